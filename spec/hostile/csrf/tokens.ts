// CSRF tokens of the sample, minted here the way lib/middleware/csrf does (`<nonce>.<mac>`,
// HMAC-SHA256 over session, NUL, nonce, with the key the sample derives from its JWT secret), so
// the cases can hold valid, foreign-session and tampered tokens as plain data.
import { createHmac } from "node:crypto";
import { DEV_JWT_SECRET } from "../../../lib/sample/index.js";

const key = createHmac("sha256", DEV_JWT_SECRET).update("keel-sample csrf tokens").digest();

/** A token for `session` ("anonymous", "sub:<subject>", or an application session id). */
export function mintCsrf(session: string, nonce = "AAAAAAAAAAAAAAAAAAAAAA", secret: Buffer | string = key): string {
  return `${nonce}.${createHmac("sha256", secret).update(session).update("\0").update(nonce).digest("base64url")}`;
}

/**
 * The cookie header value carrying `token` under both names the layer may use: `csrf_token` in
 * development, `__Host-csrf_token` in production (where the cookie is Secure), so one case runs
 * in both passes.
 */
export const csrfCookie = (token: string): string => `csrf_token=${token}; __Host-csrf_token=${token}`;

/** Valid for the sample's anonymous visitors (its form routes have no authentication). */
export const validCsrf = mintCsrf("anonymous");
