// API key authentication layer. The key is read from a header (default `x-api-key`) or, when
// configured, a query parameter (keys in URLs end up in logs and browser history: prefer the
// header). It is checked either against configured keys or by your own `verify` function.
// Configured keys are kept only as SHA-256 digests; a presented key is hashed and compared with
// every digest with timingSafeEqual, without stopping at the first match, so neither the key's
// content nor which entry matched shows in the timing. Missing or wrong key: 401.
import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError, type Context, describeLayer, type Layer, type LayerDoc, type Next, type Reply } from "../../index.js";
import { isHttpToken, isQuotableText } from "../../plugin.js";
import type { JwtPayload } from "../../jose/index.js";
import { AUTH_PRINCIPAL_KEY, isPublicRoute, setAnonymousPrincipal, type AuthPrincipal } from "../../shared/principal.js";

/** One accepted key: the key itself or its SHA-256 (hex), plus the claims its callers get. */
export type ApiKeyEntry =
  | string
  | { key: string; claims?: JwtPayload }
  | { sha256: string; claims?: JwtPayload };

/** What `verify` returns: false/null/undefined refuses; true or a claims object accepts. */
export type ApiKeyVerdict = boolean | JwtPayload | null | undefined;

export interface ApiKeyOptions {
  /** Accepted keys. Give exactly one of `keys` or `verify`. */
  keys?: readonly ApiKeyEntry[];
  /** Your own check (a database lookup, ...). Compare secrets in constant time there too. */
  verify?: (key: string, ctx: Context) => ApiKeyVerdict | Promise<ApiKeyVerdict>;
  /** Header carrying the key (default `x-api-key`). */
  header?: string;
  /** Query parameter that may carry the key when the header is absent (default: none). */
  query?: string;
  /** Realm in the `WWW-Authenticate: ApiKey realm="..."` challenge (default "api"). */
  realm?: string;
  /** When false, a request without a key passes anonymously (a wrong key is still 401). Default true. */
  credentialsRequired?: boolean;
}

/** Longest key looked at; longer input is refused without hashing it. */
const MAX_KEY_LENGTH = 1024;
const MIN_KEY_LENGTH = 16;
const DEFAULT_CLAIMS: JwtPayload = Object.freeze({ sub: "api-key" });

function sha256(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

interface CompiledKey {
  digest: Buffer;
  claims: JwtPayload;
}

function compileKeys(entries: readonly ApiKeyEntry[]): CompiledKey[] {
  if (!Array.isArray(entries) || entries.length === 0) throw new TypeError("apiKey: keys must be a non-empty list");
  return entries.map((entry, i) => {
    if (typeof entry === "string" || "key" in entry) {
      const key = typeof entry === "string" ? entry : entry.key;
      if (typeof key !== "string" || key.length < MIN_KEY_LENGTH || key.length > MAX_KEY_LENGTH) {
        throw new TypeError(`apiKey: key ${i + 1} must be ${MIN_KEY_LENGTH} to ${MAX_KEY_LENGTH} characters`);
      }
      return { digest: sha256(key), claims: (typeof entry === "string" ? undefined : entry.claims) ?? DEFAULT_CLAIMS };
    }
    const hex = entry.sha256;
    if (typeof hex !== "string" || !/^[0-9a-fA-F]{64}$/.test(hex)) throw new TypeError(`apiKey: sha256 of key ${i + 1} must be 64 hex digits`);
    return { digest: Buffer.from(hex, "hex"), claims: entry.claims ?? DEFAULT_CLAIMS };
  });
}

/** The claims of the matching key, or undefined. Always compares against every key. */
function matchKey(keys: readonly CompiledKey[], presented: string): JwtPayload | undefined {
  const digest = sha256(presented);
  let found: JwtPayload | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (timingSafeEqual(digest, k.digest) && found === undefined) found = k.claims;
  }
  return found;
}

/** The SHA-256 (hex) of a key, for configuring `keys: [{ sha256 }]` without storing the key. */
export function apiKeyDigest(key: string): string {
  return sha256(key).toString("hex");
}

/** An OpenAPI security scheme for a header-carried key (name it e.g. "apiKeyAuth" in `docs({ securitySchemes })`). */
export function apiKeySecurityScheme(header = "x-api-key"): Readonly<Record<string, string>> {
  return Object.freeze({ type: "apiKey", in: "header", name: header.toLowerCase() });
}

/**
 * What apiKey() adds: its scheme ("apiKeyAuth", and "apiKeyQuery" for a query parameter), the
 * requirement when a key is required (either place will do), and the 401. `config: { auth: false }`
 * turns it off for a route.
 */
function apiKeyDoc(header: string, query: string | undefined, required: boolean): LayerDoc {
  const schemes: Record<string, Readonly<Record<string, string>>> = { apiKeyAuth: apiKeySecurityScheme(header) };
  if (query !== undefined) schemes["apiKeyQuery"] = Object.freeze({ type: "apiKey", in: "query", name: query });
  return {
    optOut: "auth",
    responses: {
      401: {
        description: required ? "The API key is missing or not one of the accepted keys" : "The API key sent is not one of the accepted keys",
        headers: { "www-authenticate": { description: "The ApiKey challenge", schema: { type: "string" } } },
      },
    },
    ...(required ? { security: Object.keys(schemes) } : {}),
    securitySchemes: schemes,
  };
}

/**
 * The API key layer: a key in `x-api-key` (or `header`, or a `query` parameter), checked against
 * `keys` (kept as SHA-256 digests, compared in constant time) or your `verify`. Missing or wrong: 401.
 *
 * @example
 * ```ts
 * app.layer(apiKey({ keys: [{ sha256: apiKeyDigest(process.env.BILLING_KEY!), claims: { sub: "billing" } }] }));
 * route.get("/stats", [authUser()], (caller) => ({ caller: caller.sub }));
 * ```
 * @see docs/features/auth.md
 */
export function apiKey(options: ApiKeyOptions): Layer {
  const hasKeys = options.keys !== undefined;
  const hasVerify = options.verify !== undefined;
  if (hasKeys === hasVerify) throw new TypeError("apiKey: give exactly one of keys or verify");
  const keys = hasKeys ? compileKeys(options.keys!) : [];
  const verify = options.verify;
  const header = (options.header ?? "x-api-key").toLowerCase();
  if (!isHttpToken(header)) throw new TypeError(`apiKey: invalid header name ${JSON.stringify(options.header)}`);
  const queryName = options.query;
  if (queryName !== undefined && (typeof queryName !== "string" || queryName === "")) throw new TypeError("apiKey: query must be a non-empty string");
  const realm = options.realm ?? "api";
  if (realm === "" || !isQuotableText(realm)) throw new TypeError("apiKey: realm must be printable ASCII without quotes or backslashes");
  const challenge = `ApiKey realm="${realm}"`;
  const challengeHeaders = { "www-authenticate": challenge };
  const required = options.credentialsRequired !== false;

  const readKey = (ctx: Context): string | undefined => {
    const h = ctx.req.headers[header];
    // A repeated header is ambiguous: refuse it rather than pick one.
    if (Array.isArray(h)) return h.length === 1 ? h[0] : "";
    if (h !== undefined) return h;
    if (queryName === undefined) return undefined;
    const q = ctx.query[queryName];
    if (Array.isArray(q)) return "";
    return q;
  };

  const accept = (ctx: Context, claims: JwtPayload, next: Next): Promise<Reply> => {
    const principal: AuthPrincipal = { scheme: "api-key", claims, challenge };
    ctx.locals[AUTH_PRINCIPAL_KEY] = principal;
    return next(ctx);
  };

  return describeLayer(async function apiKeyLayer(ctx: Context, next: Next): Promise<Reply> {
    if (isPublicRoute(ctx)) {
      setAnonymousPrincipal(ctx, challenge);
      return next(ctx);
    }
    const key = readKey(ctx);
    if (key === undefined || key === "") {
      if (key === undefined && !required) {
        setAnonymousPrincipal(ctx, challenge);
        return next(ctx);
      }
      throw ApiError.unauthorized("Missing API key", { headers: challengeHeaders });
    }
    if (key.length <= MAX_KEY_LENGTH) {
      if (verify === undefined) {
        const claims = matchKey(keys, key);
        if (claims !== undefined) return accept(ctx, claims, next);
      } else {
        const verdict = await verify(key, ctx);
        if (verdict === true) return accept(ctx, DEFAULT_CLAIMS, next);
        if (typeof verdict === "object" && verdict !== null) return accept(ctx, verdict, next);
      }
    }
    throw ApiError.unauthorized("Invalid API key", { headers: challengeHeaders });
  }, apiKeyDoc(header, queryName, required));
}
