// The `signedCookie(name, signer)` extractor: the verified value of one cookie signed with
// `signer.sign(value, name)`. Absent: 400 `Missing required cookie: name` (a MissingValueError,
// so `optional(signedCookie(...))` gives undefined). Present with a wrong or missing signature:
// 400 `bad_request` "cookie name has an invalid signature", which `optional()` does not hide,
// since a forged or stale cookie is not the same as no cookie.
import { ApiError, Extractor } from "../../index.js";
import { isHttpToken, MissingValueError } from "../../plugin.js";
import type { CookieSigner } from "./cookie-signer.js";

export function signedCookie(name: string, signer: CookieSigner): Extractor<string> {
  if (!isHttpToken(name)) throw new TypeError(`signedCookie: invalid cookie name ${JSON.stringify(name)}`);
  return new Extractor(
    "signedCookie:" + name,
    (ctx) => {
      const raw = ctx.cookies[name];
      if (raw === undefined) throw new MissingValueError(`Missing required cookie: ${name}`);
      const value = signer.verify(raw, name);
      if (value === null) throw ApiError.badRequest(`cookie ${name} has an invalid signature`);
      return value;
    },
    false,
    {
      parameters: [
        {
          in: "cookie",
          name,
          required: true,
          schema: { type: "string" },
          description: "A value signed by the server (HMAC-SHA256); a changed value is refused",
        },
      ],
      errorStatuses: [400],
    },
  );
}
