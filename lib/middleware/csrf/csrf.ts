// CSRF protection with the signed double-submit cookie pattern (OWASP).
// - A token is `<nonce>.<mac>`: 16 random bytes and HMAC-SHA256(secret, session id, nonce), both
//   base64url. The session id is `sessionId(ctx)` when given (and not empty), else the
//   authenticated principal's subject, else "anonymous"; the three kinds never collide. A token
//   is valid only with its MAC for the current session: an attacker who can plant cookies (a
//   sibling subdomain, plain HTTP) cannot mint one for a victim's session, and a token minted
//   for one session is refused for another. Before any session exists all visitors share the
//   "anonymous" binding; an anonymous id kept in a cookie of its own would add nothing, since
//   whoever can plant the token cookie can plant that one too. The layer must run after the
//   layer that establishes the session (or `sessionId` must read the session itself).
// - Over TLS (or with `secure: true`) and with Path=/ and no Domain, the cookie is named
//   `__Host-<cookieName>`: browsers refuse such a cookie from subdomains or without Secure.
// - Safe methods (GET, HEAD, OPTIONS, TRACE): when the request has no valid token cookie, a new
//   token is generated and set as a cookie on the reply; handlers read the request's token with
//   the `csrfToken()` extractor (to embed it in forms).
// - Every other method (POST, PUT, PATCH, DELETE and unknown ones) must present the token in
//   the header (default `x-csrf-token`) equal to the cookie, compared in constant time; else
//   403 `forbidden`. The check does not depend on the Content-Type: a missing, odd-case or
//   unknown content type is no way around it (peers.md §5.3, Hono's CSRF advisories).
// - Form posts may carry the token in an urlencoded field (default `_csrf`) instead of the
//   header. The body is read through `ctx.body()`, which reads it once and shares it, so a
//   later `form()` extractor gets the same bytes; the route's body limit applies. Only
//   `application/x-www-form-urlencoded` is looked into (multipart forms: use the header).
// - Routes opt out with `config: { csrf: false }` (webhooks with their own authentication).
//   Unrouted requests (404/405) are not checked: nothing runs for them.
import { createHmac, randomBytes } from "node:crypto";
import type { TLSSocket } from "node:tls";
import { compileCookie, type CompiledCookie, isBase64urlText, isHttpToken, parseQueryString, type SameSite } from "../../plugin.js";
import { timingSafeEqualString } from "../../shared/timing.js";
import { ApiError, type Context, describeLayer, Extractor, type Layer, type LayerDoc, type Next, type Reply } from "../../index.js";
import { getAuthPrincipal } from "../../shared/principal.js";

export interface CsrfOptions {
  /** Token cookie name (default `csrf_token`). */
  cookieName?: string;
  /** Request header carrying the token (default `x-csrf-token`). */
  headerName?: string;
  /**
   * Secure flag of the cookie. "auto" (default): set when the app runs in production
   * (KEEL_ENV=production) or the request arrived over TLS.
   */
  secure?: boolean | "auto";
  /** SameSite of the cookie (default "Lax"). */
  sameSite?: SameSite;
  /** Cookie path (default "/"). */
  path?: string;
  /** Cookie domain (default none: host-only). */
  domain?: string;
  /**
   * HttpOnly flag (default false: single-page apps read the cookie to copy it into the header;
   * set true when tokens only reach pages through `csrfToken()`).
   */
  httpOnly?: boolean;
  /** Cookie Max-Age in seconds (default: a session cookie). */
  maxAge?: number;
  /** Urlencoded form field accepted instead of the header (default `_csrf`; false: header only). */
  formField?: string | false;
  /**
   * Key of the token MACs, at least 32 bytes. Default: random per process, so tokens do not
   * survive a restart and are not shared between workers: set it when running more than one.
   */
  secret?: string | Uint8Array;
  /** The session a token is bound to (default: the authenticated principal's `sub`, else "anonymous"). */
  sessionId?: (ctx: Context) => string | undefined;
}

/** `ctx.locals` key holding the request's CSRF token. */
export const CSRF_TOKEN_KEY = "keel.csrf";
const NONCE_BYTES = 16;
const NONCE_LENGTH = 22; // base64url of 16 bytes, unpadded
const MAC_LENGTH = 43; // base64url of a SHA-256 MAC, unpadded
const TOKEN_LENGTH = NONCE_LENGTH + 1 + MAC_LENGTH;
const MIN_SECRET_BYTES = 32;
const HOST_PREFIX = "__Host-";

function isSafeMethod(method: string): boolean {
  return method === "GET" || method === "HEAD" || method === "OPTIONS" || method === "TRACE";
}

function isTls(ctx: Context): boolean {
  return (ctx.req.socket as TLSSocket | undefined)?.encrypted === true;
}

function secretKey(secret: string | Uint8Array | undefined): Buffer {
  if (secret === undefined) return randomBytes(32);
  const key = typeof secret === "string" ? Buffer.from(secret, "utf8") : Buffer.from(secret);
  if (key.length < MIN_SECRET_BYTES) throw new TypeError(`csrf: secret must be at least ${MIN_SECRET_BYTES} bytes`);
  return key;
}

function defaultSessionId(ctx: Context): string {
  const sub = getAuthPrincipal(ctx)?.claims.sub;
  return typeof sub === "string" ? "sub:" + sub : "anonymous";
}

/** What CSRF protection adds to unsafe operations in the OpenAPI document (not those with `config: { csrf: false }`). */
function csrfDoc(headerName: string, cookieName: string, formField: string | null): LayerDoc {
  const field = formField === null ? "" : ` (or the \`${formField}\` field of a form body)`;
  return {
    optOut: "csrf",
    methods: ["POST", "PUT", "PATCH", "DELETE"],
    responses: { 403: { description: `The CSRF token is missing or does not match the \`${cookieName}\` cookie` } },
    parameters: [
      {
        in: "header",
        name: headerName,
        required: false,
        schema: { type: "string" },
        description: `The CSRF token issued in the \`${cookieName}\` cookie${field}; required with the cookie on every unsafe request`,
      },
      { in: "cookie", name: cookieName, required: false, schema: { type: "string" }, description: "The CSRF cookie set by a safe request (`__Host-` prefixed over HTTPS)" },
    ],
  };
}

/**
 * CSRF protection by double-submit cookie: unsafe methods must send the cookie's token back in
 * `x-csrf-token` (or the `_csrf` form field), else 403. `csrfToken()` gives the token to a page.
 *
 * @example
 * ```ts
 * app.layer(csrf({ secret: process.env.CSRF_SECRET! }));
 * route.post("/webhook", { config: { csrf: false } }, [], () => "ok");
 * ```
 * @see docs/features/middleware.md
 */
export function csrf(options: CsrfOptions = {}): Layer {
  const cookieName = options.cookieName ?? "csrf_token";
  const key = secretKey(options.secret);
  const sessionId = options.sessionId;
  // The application's ids get their own namespace, so none of them can equal a default one.
  const sessionOf =
    sessionId === undefined
      ? defaultSessionId
      : (ctx: Context): string => {
          const id = sessionId(ctx);
          return id === undefined || id === "" ? defaultSessionId(ctx) : "sid:" + id;
        };
  const mac = (session: string, nonce: string): string => createHmac("sha256", key).update(session).update("\0").update(nonce).digest("base64url");
  const mint = (ctx: Context): string => {
    const nonce = randomBytes(NONCE_BYTES).toString("base64url");
    return nonce + "." + mac(sessionOf(ctx), nonce);
  };
  /** Well-formed and signed for this request's session (the MAC compared in constant time). */
  const isValidFor = (ctx: Context, token: string | undefined): token is string => {
    if (token === undefined || token.length !== TOKEN_LENGTH || token.charCodeAt(NONCE_LENGTH) !== 46 /* "." */) return false;
    const nonce = token.slice(0, NONCE_LENGTH);
    const given = token.slice(NONCE_LENGTH + 1);
    if (!isBase64urlText(nonce, NONCE_LENGTH) || !isBase64urlText(given, MAC_LENGTH)) return false;
    return timingSafeEqualString(given, mac(sessionOf(ctx), nonce));
  };
  const headerName = (options.headerName ?? "x-csrf-token").toLowerCase();
  if (!isHttpToken(headerName)) throw new TypeError(`csrf: invalid header name ${JSON.stringify(options.headerName)}`);
  const formField = options.formField === false ? null : options.formField ?? "_csrf";
  if (formField === "") throw new TypeError("csrf: formField must be a non-empty string or false");
  const secure = options.secure ?? "auto";
  const attrs = {
    path: options.path ?? "/",
    sameSite: options.sameSite ?? "Lax",
    httpOnly: options.httpOnly === true,
    ...(options.domain !== undefined ? { domain: options.domain } : {}),
    ...(options.maxAge !== undefined ? { maxAge: options.maxAge } : {}),
  };
  // Both variants are compiled (and validated) up front; "auto" picks one per request. The secure
  // one takes the __Host- prefix whenever its attributes allow it (Path=/, no Domain).
  const hostPrefixed = attrs.path === "/" && options.domain === undefined && !cookieName.startsWith("__");
  const secureName = hostPrefixed ? HOST_PREFIX + cookieName : cookieName;
  const secureCookie: CompiledCookie = compileCookie(secureName, { ...attrs, secure: true });
  const plainCookie: CompiledCookie | null = secure === true ? null : compileCookie(cookieName, { ...attrs, secure: false });

  const useSecure = (ctx: Context): boolean => plainCookie === null || (secure !== false && (ctx.runtime.production || isTls(ctx)));

  const presentedToken = async (ctx: Context): Promise<string | undefined> => {
    const h = ctx.req.headers[headerName];
    if (h !== undefined) return Array.isArray(h) ? h.join(", ") : h;
    if (formField === null || ctx.contentType.essence !== "application/x-www-form-urlencoded") return undefined;
    const fields = parseQueryString((await ctx.body()).toString("utf8"));
    const v = fields[formField];
    return Array.isArray(v) ? undefined : v;
  };

  return describeLayer(async function csrfLayer(ctx: Context, next: Next): Promise<Reply> {
    const route = ctx.route;
    if (route !== null && route.meta.config !== undefined && route.meta.config["csrf"] === false) return next(ctx);
    const secureRequest = useSecure(ctx);
    const cookie = ctx.cookies[secureRequest ? secureName : cookieName];
    const cookieValid = isValidFor(ctx, cookie);
    if (isSafeMethod(ctx.method)) {
      if (cookieValid) {
        ctx.locals[CSRF_TOKEN_KEY] = cookie;
        return next(ctx);
      }
      const token = mint(ctx);
      ctx.locals[CSRF_TOKEN_KEY] = token;
      const reply = await next(ctx);
      reply.appendHeader("set-cookie", (secureRequest ? secureCookie : plainCookie!).set(token));
      return reply;
    }
    if (route === null) return next(ctx);
    if (!cookieValid) throw ApiError.forbidden("CSRF cookie missing or invalid");
    const presented = await presentedToken(ctx);
    if (presented === undefined) throw ApiError.forbidden("CSRF token missing");
    if (!timingSafeEqualString(presented, cookie)) throw ApiError.forbidden("CSRF token mismatch");
    ctx.locals[CSRF_TOKEN_KEY] = cookie;
    return next(ctx);
  }, csrfDoc(headerName, cookieName, formField));
}

/**
 * The request's CSRF token (the cookie's, or the one being issued with this reply), for forms
 * (`<input type="hidden" name="_csrf">`) or clients that cannot read cookies. 500 when no
 * csrf() layer covers the route.
 */
export function csrfToken(): Extractor<string> {
  return new Extractor<string>(
    "csrfToken",
    (ctx) => {
      const token = ctx.locals[CSRF_TOKEN_KEY];
      if (typeof token === "string") return token;
      throw ApiError.internal("Internal server error", {
        detail: `csrfToken() used on route ${ctx.route?.pattern ?? ctx.path} that no csrf() layer covers (or that opts out)`,
      });
    },
    false,
  );
}
