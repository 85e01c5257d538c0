// The pending-authorization cookie of the OAuth2 client: state, PKCE verifier, nonce and the
// page to return to, sealed with HMAC-SHA256 so the browser can carry it but not change it.
// (It is signed, not encrypted: the verifier only matters together with a code the IdP sends
// to our redirect URI, and the cookie is HttpOnly.)  Format: base64url(JSON) "." base64url(MAC).
import { createHmac, timingSafeEqual } from "node:crypto";
import { isBase64urlText } from "../../plugin.js";

export interface OAuth2Flow {
  /** state parameter */
  readonly s: string;
  /** PKCE code verifier */
  readonly v: string;
  /** OIDC nonce, when ID tokens are verified */
  readonly n?: string;
  /** Local path to return to after the login */
  readonly r?: string;
  /** Expiry, seconds since the epoch */
  readonly x: number;
}

const MAC_CONTEXT = "keel.oauth2.flow.v1.";
const MAX_COOKIE_LENGTH = 4096;
const MAC_LENGTH = 43; // base64url of 32 bytes

function mac(secret: Uint8Array, body: string): Buffer {
  return createHmac("sha256", secret).update(MAC_CONTEXT).update(body).digest();
}

export function sealFlow(flow: OAuth2Flow, secret: Uint8Array): string {
  const body = Buffer.from(JSON.stringify(flow), "utf8").toString("base64url");
  return body + "." + mac(secret, body).toString("base64url");
}

function isShortString(v: unknown, max: number): v is string {
  return typeof v === "string" && v.length > 0 && v.length <= max;
}

/** The flow if the value is authentic and not expired, else undefined. Never throws. */
export function openFlow(value: string | undefined, secret: Uint8Array, nowSeconds: number): OAuth2Flow | undefined {
  if (value === undefined || value.length > MAX_COOKIE_LENGTH) return undefined;
  const dot = value.indexOf(".");
  if (dot <= 0) return undefined;
  const body = value.slice(0, dot);
  const tag = value.slice(dot + 1);
  if (!isBase64urlText(body) || !isBase64urlText(tag, MAC_LENGTH)) return undefined;
  if (!timingSafeEqual(mac(secret, body), Buffer.from(tag, "base64url"))) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const f = parsed as Record<string, unknown>;
  if (!isShortString(f["s"], 256) || !isShortString(f["v"], 128) || typeof f["x"] !== "number") return undefined;
  if (f["n"] !== undefined && !isShortString(f["n"], 256)) return undefined;
  if (f["r"] !== undefined && !isShortString(f["r"], 2048)) return undefined;
  if (!(nowSeconds < f["x"])) return undefined;
  const flow: { s: string; v: string; x: number; n?: string; r?: string } = { s: f["s"], v: f["v"], x: f["x"] };
  if (f["n"] !== undefined) flow.n = f["n"] as string;
  if (f["r"] !== undefined) flow.r = f["r"] as string;
  return flow;
}
