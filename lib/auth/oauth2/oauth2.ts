// An OAuth2 / OpenID Connect client for the authorization-code flow with PKCE (RFC 6749 §4.1,
// RFC 7636 S256, RFC 9700 best practice):
//   startAuthorization(ctx)  -> 302 to the IdP's authorization endpoint; state, PKCE verifier
//                               and nonce travel in a signed, HttpOnly, SameSite=Lax cookie
//   finishAuthorization(ctx) -> on the redirect URI: checks the cookie's signature and expiry,
//                               compares state in constant time, exchanges the code (with the
//                               verifier) at the token endpoint, and verifies the ID token
//                               (signature via key or JWKS, issuer, audience, nonce) when
//                               `idToken` is configured.
// Refusals: no/expired/forged flow cookie or missing code -> 400; state or `iss` mismatch
// -> 403; IdP error (access_denied, ...), refused code or invalid ID token -> 401; IdP
// unreachable or answering nonsense -> 502. The caller clears the flow cookie with
// `result.clearCookie` on its reply (one pending login per browser: a second login started in
// another tab replaces the first).
import type { TLSSocket } from "node:tls";
import { ApiError, type Context, Reply } from "../../index.js";
import type { JwtPayload } from "../../jose/index.js";
import { createJwtVerifier, type JwtVerifier, type JwtVerifierOptions } from "../../jose/index.js";
import { JwtError } from "../../jose/index.js";
import { openFlow, sealFlow, type OAuth2Flow } from "./oauth2-flow-cookie.js";
import { createPkcePair, randomUrlToken } from "./oauth2-pkce.js";
import { exchangeCode, type OAuth2TokenResponse, type TokenEndpointAuth } from "./oauth2-token.js";
import { compileCookie, type CompiledCookie } from "../../plugin.js";
import { timingSafeEqualString } from "../../shared/timing.js";

export interface OAuth2IdTokenOptions extends JwtVerifierOptions {
  /** The IdP's issuer identifier (exact `iss`). Required. */
  readonly issuer: string;
  /** Accepted audiences (default: the client id). */
  readonly audience?: string | readonly string[];
}

export interface OAuth2ClientOptions {
  readonly clientId: string;
  /** Confidential clients only; public clients rely on PKCE alone. */
  readonly clientSecret?: string;
  /** Default: client_secret_basic with a secret, none (client_id in the form) without. */
  readonly tokenEndpointAuth?: TokenEndpointAuth;
  readonly authorizationEndpoint: string | URL;
  readonly tokenEndpoint: string | URL;
  /** This app's callback URL, registered at the IdP. */
  readonly redirectUri: string | URL;
  /** Requested scopes (joined with spaces). "openid" is added when `idToken` is set. */
  readonly scopes?: readonly string[];
  /** Extra authorization-request parameters (prompt, audience, ...). */
  readonly authorizationParams?: Readonly<Record<string, string>>;
  /** Verify the ID token returned with the access token (OpenID Connect). */
  readonly idToken?: OAuth2IdTokenOptions;
  /** HMAC key of the flow cookie, at least 32 bytes. */
  readonly cookieSecret: string | Uint8Array;
  /** Default "keel_oauth2". */
  readonly cookieName?: string;
  /** Default "/". Narrow it to the callback path if you like. */
  readonly cookiePath?: string;
  /** Secure flag: "auto" (default) = in production or over TLS. */
  readonly secure?: boolean | "auto";
  /** How long a login may take, seconds (default 600). */
  readonly flowTtl?: number;
  /** Token endpoint timeout, ms (default 10 000). */
  readonly timeoutMs?: number;
  /** Largest token endpoint answer, bytes (default 64 KiB). */
  readonly maxResponseBytes?: number;
  /** Allow plain http endpoints on non-loopback hosts (default false; never in production). */
  readonly allowInsecureHttp?: boolean;
  /** fetch implementation (default globalThis.fetch). */
  readonly fetch?: typeof fetch;
  /** Clock in ms (default Date.now). */
  readonly now?: () => number;
}

export interface AuthorizationRequestOptions {
  /** Local path (starting with a single "/") to come back to after login. */
  readonly returnTo?: string;
  /** Extra parameters for this request only. */
  readonly params?: Readonly<Record<string, string>>;
}

export interface AuthorizationRequest {
  readonly url: string;
  readonly state: string;
  /** Set-Cookie value carrying the sealed flow. */
  readonly setCookie: string;
}

export interface OAuth2Result<T extends object = Record<never, never>> {
  readonly tokens: OAuth2TokenResponse;
  /** Verified ID token claims (when `idToken` is configured). */
  readonly idTokenClaims: (JwtPayload & T) | undefined;
  /** The returnTo path given to startAuthorization, if any. */
  readonly returnTo: string | undefined;
  /** Set-Cookie value that deletes the flow cookie; append it to your reply. */
  readonly clearCookie: string;
}

export interface OAuth2Client {
  authorizationRequest(ctx: Context, options?: AuthorizationRequestOptions): AuthorizationRequest;
  /** A 302 redirect to the IdP with the flow cookie set. */
  startAuthorization(ctx: Context, options?: AuthorizationRequestOptions): Reply;
  finishAuthorization<T extends object = Record<never, never>>(ctx: Context): Promise<OAuth2Result<T>>;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

function endpoint(name: string, value: string | URL, insecure: boolean): URL {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new TypeError(`oauth2: ${name} is not a valid URL`);
  }
  if (u.protocol !== "https:" && !(u.protocol === "http:" && (insecure || LOOPBACK.has(u.hostname)))) {
    throw new TypeError(`oauth2: ${name} must use https (plain http only on loopback)`);
  }
  if (u.hash !== "") throw new TypeError(`oauth2: ${name} must not have a fragment`);
  return u;
}

/** A local path: one leading "/", no "//" or "/\" (which browsers treat as another host). */
function isLocalPath(p: string): boolean {
  if (p.length === 0 || p.length > 2048 || p.charCodeAt(0) !== 47) return false;
  const second = p.charCodeAt(1);
  if (second === 47 || second === 92) return false;
  for (let i = 0; i < p.length; i++) {
    const c = p.charCodeAt(i);
    if (c < 33 || c > 126 || c === 92) return false;
  }
  return true;
}

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? undefined : v;
}

/**
 * An OAuth2 authorization-code client with PKCE: `startAuthorization(ctx)` redirects to the
 * identity provider, `finishAuthorization(ctx)` checks the callback and exchanges the code.
 *
 * @example
 * ```ts
 * const login = oauth2Client({ clientId, authorizationEndpoint, tokenEndpoint, redirectUri, cookieSecret });
 * route.get("/login", [context()], (ctx) => login.startAuthorization(ctx));
 * route.get("/callback", [context()], async (ctx) => {
 *   const done = await login.finishAuthorization(ctx); // done.tokens, done.idTokenClaims
 *   return redirect(done.returnTo ?? "/").appendHeader("set-cookie", done.clearCookie);
 * });
 * ```
 * @see docs/features/auth.md
 */
export function oauth2Client(options: OAuth2ClientOptions): OAuth2Client {
  const insecure = options.allowInsecureHttp === true;
  const authorizationEndpoint = endpoint("authorizationEndpoint", options.authorizationEndpoint, insecure);
  const tokenEndpoint = endpoint("tokenEndpoint", options.tokenEndpoint, insecure);
  const redirectUri = String(new URL(options.redirectUri));
  if (typeof options.clientId !== "string" || options.clientId === "") throw new TypeError("oauth2: clientId is required");
  const secret = typeof options.cookieSecret === "string" ? Buffer.from(options.cookieSecret, "utf8") : options.cookieSecret;
  if (!(secret instanceof Uint8Array) || secret.byteLength < 32) throw new TypeError("oauth2: cookieSecret must be at least 32 bytes");
  const auth: TokenEndpointAuth = options.tokenEndpointAuth ?? (options.clientSecret === undefined ? "none" : "client_secret_basic");
  if (auth !== "none" && options.clientSecret === undefined) throw new TypeError(`oauth2: ${auth} needs clientSecret`);
  const flowTtl = options.flowTtl ?? 600;
  if (!Number.isInteger(flowTtl) || flowTtl <= 0) throw new TypeError("oauth2: flowTtl must be a positive integer (seconds)");
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? globalThis.fetch;

  const scopes = [...(options.scopes ?? [])];
  if (options.idToken !== undefined && !scopes.includes("openid")) scopes.unshift("openid");
  // RFC 6749 §3.3 scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
  for (const s of scopes) if (typeof s !== "string" || !/^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/.test(s)) throw new TypeError(`oauth2: invalid scope ${JSON.stringify(s)}`);

  let idVerifier: JwtVerifier | null = null;
  let clientIdAudience = false;
  if (options.idToken !== undefined) {
    const id = options.idToken;
    if (typeof id.issuer !== "string" || id.issuer === "") throw new TypeError("oauth2: idToken.issuer is required");
    clientIdAudience = id.audience === undefined;
    idVerifier = createJwtVerifier({ ...id, audience: id.audience ?? options.clientId });
  }

  const cookieName = options.cookieName ?? "keel_oauth2";
  const cookieAttrs = { path: options.cookiePath ?? "/", httpOnly: true, sameSite: "Lax" as const, maxAge: flowTtl };
  const secureMode = options.secure ?? "auto";
  const secureCookie: CompiledCookie = compileCookie(cookieName, { ...cookieAttrs, secure: true });
  const plainCookie: CompiledCookie | null = secureMode === true ? null : compileCookie(cookieName, { ...cookieAttrs, secure: false });
  const cookieFor = (ctx: Context): CompiledCookie => {
    if (plainCookie === null) return secureCookie;
    if (secureMode === false) return plainCookie;
    return ctx.runtime.production || (ctx.req.socket as TLSSocket | undefined)?.encrypted === true ? secureCookie : plainCookie;
  };

  function authorizationRequest(ctx: Context, req: AuthorizationRequestOptions = {}): AuthorizationRequest {
    if (req.returnTo !== undefined && !isLocalPath(req.returnTo)) throw ApiError.badRequest("returnTo must be a local path");
    const state = randomUrlToken(32);
    const pkce = createPkcePair();
    const nonce = idVerifier === null ? undefined : randomUrlToken(32);
    const url = new URL(authorizationEndpoint);
    const q = url.searchParams;
    const extra = { ...options.authorizationParams, ...req.params };
    for (const k of Object.keys(extra)) q.set(k, extra[k]!);
    q.set("response_type", "code");
    q.set("client_id", options.clientId);
    q.set("redirect_uri", redirectUri);
    if (scopes.length > 0) q.set("scope", scopes.join(" "));
    q.set("state", state);
    q.set("code_challenge", pkce.challenge);
    q.set("code_challenge_method", pkce.method);
    if (nonce !== undefined) q.set("nonce", nonce);
    const flow: { s: string; v: string; x: number; n?: string; r?: string } = { s: state, v: pkce.verifier, x: Math.floor(now() / 1000) + flowTtl };
    if (nonce !== undefined) flow.n = nonce;
    if (req.returnTo !== undefined) flow.r = req.returnTo;
    return { url: url.toString(), state, setCookie: cookieFor(ctx).set(sealFlow(flow, secret)) };
  }

  async function verifyIdToken<T extends object>(token: string, flow: OAuth2Flow): Promise<JwtPayload & T> {
    let claims: JwtPayload & T;
    try {
      claims = await idVerifier!.verify<T>(token);
    } catch (err) {
      if (err instanceof JwtError) {
        if (err.code === "jwks_unavailable") throw new ApiError(502, "bad_gateway", "Identity provider keys are unavailable", { detail: err.message });
        throw ApiError.unauthorized("Invalid ID token", { detail: `${err.code}: ${err.message}` });
      }
      throw err;
    }
    const nonce = claims["nonce"];
    if (typeof nonce !== "string" || flow.n === undefined || !timingSafeEqualString(nonce, flow.n)) {
      throw ApiError.unauthorized("Invalid ID token", { detail: "nonce mismatch" });
    }
    // OIDC Core §3.1.3.7: with several audiences, azp must name this client.
    if (clientIdAudience && Array.isArray(claims.aud) && claims.aud.length > 1 && claims["azp"] !== options.clientId) {
      throw ApiError.unauthorized("Invalid ID token", { detail: "azp does not name this client" });
    }
    return claims;
  }

  async function finishAuthorization<T extends object>(ctx: Context): Promise<OAuth2Result<T>> {
    const flow = openFlow(ctx.cookies[cookieName], secret, now() / 1000);
    if (flow === undefined) throw ApiError.badRequest("No pending login (flow cookie missing, expired or altered); start again");
    const q = ctx.query;
    const state = single(q["state"]);
    if (state === undefined || !timingSafeEqualString(state, flow.s)) throw ApiError.forbidden("OAuth2 state mismatch");
    // RFC 9207: when the IdP names itself, it must be the one we expect (mix-up defence).
    const iss = single(q["iss"]);
    if (iss !== undefined && options.idToken !== undefined && iss !== options.idToken.issuer) throw ApiError.forbidden("OAuth2 issuer mismatch");
    const error = single(q["error"]);
    if (error !== undefined) {
      const code = /^[A-Za-z0-9_.-]{1,64}$/.test(error) ? error : "unknown_error";
      throw ApiError.unauthorized(`Authorization failed: ${code}`);
    }
    const code = single(q["code"]);
    if (code === undefined || code === "" || code.length > 4096) throw ApiError.badRequest("Missing authorization code");
    const tokens = await exchangeCode({
      tokenEndpoint,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      auth,
      code,
      codeVerifier: flow.v,
      redirectUri,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxBytes: options.maxResponseBytes ?? 65_536,
      fetch: doFetch,
    });
    let idTokenClaims: (JwtPayload & T) | undefined;
    if (idVerifier !== null) {
      if (typeof tokens.id_token !== "string") throw new ApiError(502, "bad_gateway", "Token endpoint answer lacks id_token", { detail: "no id_token" });
      idTokenClaims = await verifyIdToken<T>(tokens.id_token, flow);
    }
    return { tokens, idTokenClaims, returnTo: flow.r, clearCookie: cookieFor(ctx).clear() };
  }

  return {
    authorizationRequest,
    startAuthorization(ctx, req) {
      const r = authorizationRequest(ctx, req);
      const reply = new Reply(302, null, { location: r.url, "cache-control": "no-store" });
      reply.appendHeader("set-cookie", r.setCookie);
      return reply;
    },
    finishAuthorization,
  };
}
