// CORS (Fetch standard, "CORS protocol"). Preflights (OPTIONS + Origin +
// Access-Control-Request-Method) are answered here, before routing results matter: 204 with
// the allow headers when the origin, the requested method and every requested header are
// allowed, 204 without any CORS header otherwise (the browser then blocks the real request).
// Actual requests go through and get Access-Control-Allow-Origin (+ credentials, exposed
// headers) when their origin is allowed, error replies included, so clients can read 401/403
// bodies.
// - Origins match exactly, in their serialized form (scheme, host, port): configured origins
//   are canonicalised once (lowercase, default port dropped), the request's `Origin` is compared
//   as sent, so `https://a.example.evil.com`, `https://a.example.`, another port or another case
//   are different origins. A predicate decides for itself.
// - `origin: "*"` answers `*` and never depends on the request; it cannot be combined with
//   `credentials: true` (configuration error): with credentials, only listed or accepted origins
//   are echoed. `"*"` inside a list is refused in every mode.
// - `Vary: Origin` is added to every reply whose CORS headers depend on the origin (all modes
//   but "*"), including replies to requests without Origin, so shared caches keep them apart.
// - With credentials, the origin `null` (sandboxed iframes, data: and file: documents, some
//   redirects: any page can arrange to send it) is never allowed: listing it is a configuration
//   error, and a predicate that accepts it is overruled.
// - A preflight for a method outside `methods` (compared case-sensitively, as browsers do), or
//   naming a header outside a configured `allowHeaders`, gets no CORS headers at all.
// - Requested headers are reflected only when `allowHeaders` is not configured, after splitting
//   the list on commas and checking each name is a token (no regex: Hono CVE-2026-69207); an
//   unusable list refuses the preflight.
import { type Context, type Layer, type Reply, Reply as ReplyClass } from "../../index.js";
import { type Chain, directLayer, isHttpToken, isPromise, isSafeHeaderValue } from "../../plugin.js";

export type CorsOriginPredicate = (origin: string, ctx: Context) => boolean;

export interface CorsOptions {
  /** "*", one origin, a list of origins (`https://app.example.com`), or a predicate. */
  origin: "*" | string | readonly string[] | CorsOriginPredicate;
  /** Allowed methods (default GET, HEAD, PUT, PATCH, POST, DELETE). */
  methods?: readonly string[];
  /** Allowed request headers (default: reflect the requested ones that are valid tokens). */
  allowHeaders?: readonly string[];
  /** Response headers scripts may read (default none beyond the CORS-safelisted ones). */
  exposeHeaders?: readonly string[];
  /** Send Access-Control-Allow-Credentials: true (cookies, Authorization). Default false. */
  credentials?: boolean;
  /** Access-Control-Max-Age in seconds for preflight caching (default: not sent). */
  maxAge?: number;
}

const DEFAULT_METHODS = ["GET", "HEAD", "PUT", "PATCH", "POST", "DELETE"];
/** Bounds for reflected request-header lists. */
const MAX_REQUESTED_HEADERS = 64;
const MAX_REQUESTED_LENGTH = 4096;
const MAX_ORIGIN_LENGTH = 2048;

function listOf(name: string, values: readonly string[] | undefined, fallback: readonly string[]): string {
  const list = values ?? fallback;
  if (!Array.isArray(list)) throw new TypeError(`cors: ${name} must be a list`);
  for (const v of list) {
    if (typeof v !== "string" || !isHttpToken(v)) throw new TypeError(`cors: invalid entry ${JSON.stringify(v)} in ${name}`);
  }
  return list.join(", ");
}

/** Serialize a configured origin the way browsers send it (lowercase scheme and host, no default port). */
function canonicalOrigin(origin: string): string {
  if (origin === "null") return origin;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    throw new TypeError(`cors: invalid origin ${JSON.stringify(origin)}`);
  }
  if (u.origin === "null" || u.pathname !== "/" || u.search !== "" || u.hash !== "" || u.username !== "" || u.password !== "") {
    throw new TypeError(`cors: origin must be scheme://host[:port] without a path, got ${JSON.stringify(origin)}`);
  }
  return u.origin;
}

/**
 * Check the requested header names (split on commas, each a token, bounded in count and length).
 * With `allowed` (the configured names, lowercased): "" when every name is in it, else null.
 * Without: the names lowercased and joined for reflection ("" for an empty list), or null when
 * the list is unusable.
 */
function checkRequestHeaders(requested: string, allowed: ReadonlySet<string> | null): string | null {
  if (requested.length > MAX_REQUESTED_LENGTH) return null;
  let out = "";
  let count = 0;
  let start = 0;
  const n = requested.length;
  while (start <= n) {
    let end = requested.indexOf(",", start);
    if (end === -1) end = n;
    const name = requested.slice(start, end).trim();
    if (name !== "") {
      if (!isHttpToken(name) || ++count > MAX_REQUESTED_HEADERS) return null;
      const lower = name.toLowerCase();
      if (allowed !== null) {
        if (!allowed.has(lower)) return null;
      } else out = out === "" ? lower : out + ", " + lower;
    }
    start = end + 1;
  }
  return out;
}

/** Add `token` to the reply's Vary header unless it is already listed (or Vary is `*`). */
export function addVary(reply: Reply, token: string): void {
  const prev = reply.headers["vary"];
  if (prev === undefined) {
    reply.headers["vary"] = token;
    return;
  }
  const current = Array.isArray(prev) ? (prev as readonly string[]).join(", ") : String(prev);
  const lower = token.toLowerCase();
  let start = 0;
  const n = current.length;
  while (start <= n) {
    let end = current.indexOf(",", start);
    if (end === -1) end = n;
    const item = current.slice(start, end).trim().toLowerCase();
    if (item === "*" || item === lower) return;
    start = end + 1;
  }
  reply.headers["vary"] = current === "" ? token : current + ", " + token;
}

/**
 * `cors()` alone allows any origin, without credentials (`origin: "*"`).
 *
 * @example
 * ```ts
 * app.layer(cors({ origin: ["https://app.example.com"], credentials: true, maxAge: 600 }));
 * ```
 * @see docs/features/middleware.md
 */
export function cors(options: CorsOptions = { origin: "*" }): Layer {
  const origin = options.origin;
  const credentials = options.credentials === true;
  const wildcard = origin === "*";
  if (wildcard && credentials) {
    throw new TypeError('cors: origin "*" cannot be combined with credentials; list the allowed origins or give a predicate');
  }
  let allowed: ReadonlySet<string> | null = null;
  let predicate: CorsOriginPredicate | null = null;
  if (typeof origin === "function") predicate = origin;
  else if (typeof origin === "string" && !wildcard) allowed = new Set([canonicalOrigin(origin)]);
  else if (Array.isArray(origin)) {
    if (origin.length === 0) throw new TypeError("cors: origin list is empty");
    allowed = new Set(origin.map((o: unknown) => {
      if (typeof o !== "string" || o === "*") throw new TypeError(`cors: invalid origin ${JSON.stringify(o)} in the list ("*" stands alone)`);
      return canonicalOrigin(o);
    }));
  } else if (!wildcard) throw new TypeError("cors: origin must be \"*\", an origin, a list of origins or a function");
  if (credentials && allowed !== null && allowed.has("null")) {
    throw new TypeError('cors: origin "null" cannot be combined with credentials: any page can send Origin: null (sandboxed iframes, data: URLs)');
  }

  // Everything that does not depend on the request is a string computed here, once.
  const methods = listOf("methods", options.methods, DEFAULT_METHODS);
  const allowHeaders = options.allowHeaders === undefined ? null : listOf("allowHeaders", options.allowHeaders, []);
  const exposeHeaders = listOf("exposeHeaders", options.exposeHeaders, []);
  let maxAge: string | null = null;
  if (options.maxAge !== undefined) {
    if (!Number.isInteger(options.maxAge) || options.maxAge < 0) throw new TypeError("cors: maxAge must be a non-negative integer (seconds)");
    maxAge = String(options.maxAge);
  }
  // "*" in methods or allowHeaders is the Fetch wildcard only without credentials (with them a
  // browser reads it as a method or header literally named "*", which is never what was meant).
  const anyMethod = options.methods !== undefined && options.methods.includes("*");
  if (anyMethod && credentials) throw new TypeError('cors: methods "*" cannot be combined with credentials; list the methods');
  const methodSet: ReadonlySet<string> | null = anyMethod ? null : new Set(options.methods ?? DEFAULT_METHODS);
  const anyHeader = options.allowHeaders !== undefined && options.allowHeaders.includes("*");
  if (anyHeader && credentials) throw new TypeError('cors: allowHeaders "*" cannot be combined with credentials; list the header names');
  const allowHeaderSet: ReadonlySet<string> | null =
    options.allowHeaders === undefined || anyHeader ? null : new Set(options.allowHeaders.map((h) => h.toLowerCase()));
  // A preflight's answer depends on the requested method and headers (and the origin, but for "*").
  const preflightVary = wildcard ? "Access-Control-Request-Method, Access-Control-Request-Headers" : "Origin, Access-Control-Request-Method, Access-Control-Request-Headers";

  /** The value for Access-Control-Allow-Origin, or null when the origin is refused. */
  const allowOrigin = (requestOrigin: string, ctx: Context): string | null => {
    if (wildcard) return "*";
    if (credentials && requestOrigin === "null") return null;
    if (allowed !== null) return allowed.has(requestOrigin) ? requestOrigin : null;
    // Never call the predicate with (or echo) something that cannot be a header value.
    if (requestOrigin.length > MAX_ORIGIN_LENGTH || !isSafeHeaderValue(requestOrigin) || requestOrigin.indexOf(",") !== -1 || requestOrigin.indexOf(" ") !== -1) return null;
    return predicate!(requestOrigin, ctx) === true ? requestOrigin : null;
  };

  /** The Access-Control-Allow-Headers value ("" for none), or null when a requested header is refused. */
  const preflightHeaders = (requested: string | string[] | undefined): string | null => {
    if (requested === undefined) return allowHeaders ?? "";
    if (typeof requested !== "string") return null; // repeated header: not something a browser sends
    if (allowHeaders === null) return checkRequestHeaders(requested, null);
    if (allowHeaderSet !== null && checkRequestHeaders(requested, allowHeaderSet) === null) return null;
    return allowHeaders;
  };

  const preflight = (ctx: Context, requestOrigin: string, requestMethod: string | string[]): Reply => {
    const reply = new ReplyClass(204, null);
    const h = reply.headers;
    h["vary"] = preflightVary;
    if (typeof requestMethod !== "string" || (methodSet !== null && !methodSet.has(requestMethod))) return reply;
    const allowedHeaders = preflightHeaders(ctx.req.headers["access-control-request-headers"]);
    if (allowedHeaders === null) return reply;
    const allow = allowOrigin(requestOrigin, ctx);
    if (allow === null) return reply;
    h["access-control-allow-origin"] = allow;
    if (credentials) h["access-control-allow-credentials"] = "true";
    h["access-control-allow-methods"] = methods;
    if (allowedHeaders !== "") h["access-control-allow-headers"] = allowedHeaders;
    if (maxAge !== null) h["access-control-max-age"] = maxAge;
    return reply;
  };

  // Replies to requests without Origin only need Vary (and nothing at all for "*"): a shared
  // function, so the common same-origin / server-to-server path allocates no closure.
  const varyOnly = (reply: Reply): Reply => {
    addVary(reply, "Origin");
    return reply;
  };

  const decorate = (reply: Reply, ctx: Context, requestOrigin: string): Reply => {
    if (!wildcard) addVary(reply, "Origin");
    const allow = allowOrigin(requestOrigin, ctx);
    if (allow === null) return reply;
    const h = reply.headers;
    h["access-control-allow-origin"] = allow;
    if (credentials) h["access-control-allow-credentials"] = "true";
    if (exposeHeaders !== "") h["access-control-expose-headers"] = exposeHeaders;
    return reply;
  };

  // A direct layer: behind a route that answers synchronously, no promise is made for CORS.
  return directLayer(function corsLayer(ctx: Context, next: Chain): Reply | Promise<Reply> {
    const requestOrigin = ctx.req.headers.origin;
    if (requestOrigin === undefined && wildcard) return next(ctx);
    if (typeof requestOrigin !== "string") {
      // No Origin, or a repeated one (not CORS-able): Vary only.
      const r = next(ctx);
      return isPromise(r) ? r.then(varyOnly) : varyOnly(r);
    }
    const requestMethod = ctx.req.headers["access-control-request-method"];
    if (ctx.method === "OPTIONS" && requestMethod !== undefined) return preflight(ctx, requestOrigin, requestMethod);
    const r = next(ctx);
    return isPromise(r) ? r.then((reply) => decorate(reply, ctx, requestOrigin)) : decorate(r, ctx, requestOrigin);
  });
}
