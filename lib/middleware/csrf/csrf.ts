// CSRF protection with the double-submit cookie pattern.
// - Safe methods (GET, HEAD, OPTIONS, TRACE): when the request has no valid token cookie, a new
//   token (32 random bytes, base64url) is generated and set as a cookie on the reply; handlers
//   read the request's token with the `csrfToken()` extractor (to embed it in forms).
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
import { randomBytes } from "node:crypto";
import type { TLSSocket } from "node:tls";
import { compileCookie, type CompiledCookie, type SameSite } from "../../util/set-cookie.js";
import { isBase64urlText, isHttpToken } from "../../util/http-syntax.js";
import { timingSafeEqualString } from "../../util/timing.js";
import type { Context } from "../../core/context.js";
import { ApiError } from "../../core/errors.js";
import { parseQueryString } from "../../core/query.js";
import type { Reply } from "../../core/reply.js";
import type { Layer, Next } from "../../core/route.js";
import { Extractor } from "../../core/extractor.js";

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
}

/** `ctx.locals` key holding the request's CSRF token. */
export const CSRF_TOKEN_KEY = "keel.csrf";
const TOKEN_BYTES = 32;
const TOKEN_LENGTH = 43; // base64url of 32 bytes, unpadded

function isSafeMethod(method: string): boolean {
  return method === "GET" || method === "HEAD" || method === "OPTIONS" || method === "TRACE";
}

function isTls(ctx: Context): boolean {
  return (ctx.req.socket as TLSSocket | undefined)?.encrypted === true;
}

export function csrf(options: CsrfOptions = {}): Layer {
  const cookieName = options.cookieName ?? "csrf_token";
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
  // Both variants are compiled (and validated) up front; "auto" picks one per request.
  const secureCookie: CompiledCookie = compileCookie(cookieName, { ...attrs, secure: true });
  const plainCookie: CompiledCookie | null = secure === true ? null : compileCookie(cookieName, { ...attrs, secure: false });

  const cookieFor = (ctx: Context): CompiledCookie => {
    if (plainCookie === null) return secureCookie;
    if (secure === false) return plainCookie;
    return ctx.runtime.production || isTls(ctx) ? secureCookie : plainCookie;
  };

  const presentedToken = async (ctx: Context): Promise<string | undefined> => {
    const h = ctx.req.headers[headerName];
    if (h !== undefined) return Array.isArray(h) ? h.join(", ") : h;
    if (formField === null || ctx.contentType.essence !== "application/x-www-form-urlencoded") return undefined;
    const fields = parseQueryString((await ctx.body()).toString("utf8"));
    const v = fields[formField];
    return Array.isArray(v) ? undefined : v;
  };

  return async function csrfLayer(ctx: Context, next: Next): Promise<Reply> {
    const route = ctx.route;
    if (route !== null && route.meta.config !== undefined && route.meta.config["csrf"] === false) return next(ctx);
    const cookie = ctx.cookies[cookieName];
    const cookieValid = cookie !== undefined && isBase64urlText(cookie, TOKEN_LENGTH);
    if (isSafeMethod(ctx.method)) {
      if (cookieValid) {
        ctx.locals[CSRF_TOKEN_KEY] = cookie;
        return next(ctx);
      }
      const token = randomBytes(TOKEN_BYTES).toString("base64url");
      ctx.locals[CSRF_TOKEN_KEY] = token;
      const reply = await next(ctx);
      reply.appendHeader("set-cookie", cookieFor(ctx).set(token));
      return reply;
    }
    if (route === null) return next(ctx);
    if (!cookieValid) throw ApiError.forbidden("CSRF cookie missing or invalid");
    const presented = await presentedToken(ctx);
    if (presented === undefined) throw ApiError.forbidden("CSRF token missing");
    if (!timingSafeEqualString(presented, cookie)) throw ApiError.forbidden("CSRF token mismatch");
    ctx.locals[CSRF_TOKEN_KEY] = cookie;
    return next(ctx);
  };
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
