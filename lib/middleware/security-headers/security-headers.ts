// A default set of security response headers. Each can be replaced (a string) or removed
// (false); `extra` adds more. A header the reply already has (a docs page with its own CSP and
// script hashes, a route that allows framing) keeps its own value. Defaults:
//   x-content-type-options: nosniff
//   x-frame-options: DENY
//   referrer-policy: strict-origin-when-cross-origin
//   cross-origin-opener-policy: same-origin
//   cross-origin-resource-policy: same-origin
//   content-security-policy: default-src 'self'; base-uri 'self'; form-action 'self';
//                            frame-ancestors 'none'; object-src 'none'
//   strict-transport-security: max-age=15552000; includeSubDomains
//       only on requests that arrived over TLS, unless `hsts.always` (behind a TLS-terminating
//       proxy, where the app itself sees plain HTTP).
// Everything is validated and laid out in two parallel arrays at construction; a request costs
// one loop of property checks.
import { type Chain, directLayer, isHttpToken, isPromise, isSafeHeaderValue } from "../../plugin.js";
import type { Context, Layer, Reply } from "../../index.js";

export interface HstsOptions {
  /** max-age in seconds (default 15552000, 180 days). */
  maxAge?: number;
  /** includeSubDomains (default true). */
  includeSubDomains?: boolean;
  /** preload (default false; read hstspreload.org before turning it on). */
  preload?: boolean;
  /** Send it on plain-HTTP requests too (the app sits behind a TLS-terminating proxy). Default false. */
  always?: boolean;
}

export interface SecurityHeadersOptions {
  contentTypeOptions?: string | false;
  frameOptions?: string | false;
  referrerPolicy?: string | false;
  crossOriginOpenerPolicy?: string | false;
  crossOriginResourcePolicy?: string | false;
  /** Cross-Origin-Embedder-Policy (default: not sent; `require-corp` breaks most embeds). */
  crossOriginEmbedderPolicy?: string | false;
  contentSecurityPolicy?: string | false;
  /** HSTS settings, or false to never send it. */
  hsts?: HstsOptions | false;
  /** More headers, name -> value. */
  extra?: Readonly<Record<string, string>>;
}

export const DEFAULT_CONTENT_SECURITY_POLICY = "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; object-src 'none'";

const DEFAULTS: ReadonlyArray<readonly [keyof SecurityHeadersOptions, string, string | false]> = [
  ["contentTypeOptions", "x-content-type-options", "nosniff"],
  ["frameOptions", "x-frame-options", "DENY"],
  ["referrerPolicy", "referrer-policy", "strict-origin-when-cross-origin"],
  ["crossOriginOpenerPolicy", "cross-origin-opener-policy", "same-origin"],
  ["crossOriginResourcePolicy", "cross-origin-resource-policy", "same-origin"],
  ["crossOriginEmbedderPolicy", "cross-origin-embedder-policy", false],
  ["contentSecurityPolicy", "content-security-policy", DEFAULT_CONTENT_SECURITY_POLICY],
];

function checkValue(name: string, value: unknown): string {
  if (typeof value !== "string" || value === "" || !isSafeHeaderValue(value)) {
    throw new TypeError(`securityHeaders: invalid value for ${name}: ${JSON.stringify(value)}`);
  }
  return value;
}

function hstsValue(options: HstsOptions): string {
  const maxAge = options.maxAge ?? 15552000;
  if (!Number.isInteger(maxAge) || maxAge < 0) throw new TypeError("securityHeaders: hsts.maxAge must be a non-negative integer");
  let v = `max-age=${maxAge}`;
  if (options.includeSubDomains !== false) v += "; includeSubDomains";
  if (options.preload === true) v += "; preload";
  return v;
}

/**
 * Security headers on every answer: nosniff, frame and referrer policies, COOP/CORP, a strict
 * Content-Security-Policy and HSTS over TLS. Each option takes a value or `false`.
 *
 * @example
 * ```ts
 * app.layer(securityHeaders({ frameOptions: "SAMEORIGIN", hsts: { maxAge: 31536000, always: true } }));
 * ```
 * @see docs/features/middleware.md
 */
export function securityHeaders(options: SecurityHeadersOptions = {}): Layer {
  const names: string[] = [];
  const values: string[] = [];
  for (const [key, name, fallback] of DEFAULTS) {
    const given = options[key];
    const value = given === undefined ? fallback : given;
    if (value === false) continue;
    names.push(name);
    values.push(checkValue(name, value));
  }
  if (options.extra !== undefined) {
    for (const raw of Object.keys(options.extra)) {
      const name = raw.toLowerCase();
      if (!isHttpToken(name)) throw new TypeError(`securityHeaders: invalid header name ${JSON.stringify(raw)}`);
      const at = names.indexOf(name);
      const value = checkValue(name, options.extra[raw]);
      if (at === -1) {
        names.push(name);
        values.push(value);
      } else values[at] = value;
    }
  }
  const count = names.length;
  const hsts = options.hsts === false ? null : hstsValue(options.hsts ?? {});
  const hstsAlways = options.hsts !== false && options.hsts?.always === true;

  const applyFixed = (reply: Reply): Reply => {
    const h = reply.headers;
    for (let i = 0; i < count; i++) {
      const name = names[i]!;
      if (h[name] === undefined) h[name] = values[i]!;
    }
    return reply;
  };
  const withHsts = (reply: Reply): Reply => {
    if (reply.headers["strict-transport-security"] === undefined) reply.headers["strict-transport-security"] = hsts!;
    return applyFixed(reply);
  };

  // Whether HSTS applies is known per request only when it depends on TLS; the callbacks are
  // shared functions, so no closure is made per request. Direct layers: behind a route that
  // answers synchronously, no promise is made for the headers.
  const after = (r: Reply | Promise<Reply>, apply: (reply: Reply) => Reply): Reply | Promise<Reply> => (isPromise(r) ? r.then(apply) : apply(r));
  if (hsts === null) return directLayer(function securityHeadersLayer(ctx: Context, next: Chain) {
    return after(next(ctx), applyFixed);
  });
  if (hstsAlways) return directLayer(function securityHeadersLayer(ctx: Context, next: Chain) {
    return after(next(ctx), withHsts);
  });
  return directLayer(function securityHeadersLayer(ctx: Context, next: Chain): Reply | Promise<Reply> {
    // RFC 6797 §7.2: an HSTS header received over plain HTTP is ignored, so it is not sent there.
    return after(next(ctx), ctx.secure ? withHsts : applyFixed);
  });
}
