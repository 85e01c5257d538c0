// The front door: the request target (RFC 9112 §3.2), the HTTP version and Host, checked once by
// readTarget() before a Context exists. App.contextFor() calls it for every way a request comes
// in (node:http's request and upgrade events, HTTP/2 streams, app.inject), so each answers a bad
// target or Host the same way. Origin-form (`/path?query`) is the common case and costs one scan
// for `#`. Absolute-form (`http://host/path`) is reduced to its path and query only when the
// authority is a real one; anything else is refused instead of being served as `/`: a fragment
// (origin-form has none), userinfo, an empty or unparsable authority, another scheme, or the
// asterisk-form outside OPTIONS.
import type { IncomingMessage } from "node:http";
import { ApiError } from "../core/errors.js";
import { isHttp2Request } from "./http2-compat.js";

/** The shared refusal for a target no server should route. */
export const INVALID_TARGET = ApiError.badRequest("Invalid request target");

/** A request line of another HTTP version than 1.x (a 400: the corpus never answers a client's mistake with a 5xx). */
export const UNSUPPORTED_VERSION = ApiError.badRequest("Unsupported HTTP version; use HTTP/1.1");

/** A Host that is not `host[:port]` (RFC 9112 §3.2: 400 for an invalid or repeated Host). */
export const INVALID_HOST = ApiError.badRequest("Invalid Host header");

/**
 * `reg-name / IPv4 [ ":" port ]` or `"[" IPv6 "]" [ ":" port ]`, checked with one scan: letters,
 * digits, `.`, `-`, `_`, `~` in the name (no userinfo, path, space, comma: a repeated Host
 * arrives joined with ", "), 1-5 digits of port.
 */
export function isValidHost(host: string): boolean {
  // Nearly every request of a service names the same host: one comparison instead of a scan.
  if (host === lastValidHost) return true;
  if (!scanHost(host)) return false;
  lastValidHost = host;
  return true;
}

/** The last Host that passed the scan (only valid values are remembered). */
let lastValidHost = "";

function scanHost(host: string): boolean {
  const n = host.length;
  if (n === 0 || n > 255) return false;
  let i = 0;
  if (host.charCodeAt(0) === 91 /* [ */) {
    const close = host.indexOf("]");
    if (close < 3) return false;
    for (i = 1; i < close; i++) {
      const c = host.charCodeAt(i);
      if (!((c >= 48 && c <= 58) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102) || c === 46)) return false;
    }
    i = close + 1;
  } else {
    for (; i < n; i++) {
      const c = host.charCodeAt(i);
      if (c === 58 /* : */) break;
      if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 46 || c === 45 || c === 95 || c === 126)) return false;
    }
    if (i === 0) return false;
  }
  if (i === n) return true;
  if (host.charCodeAt(i) !== 58 || n - i - 1 < 1 || n - i - 1 > 5) return false;
  for (i++; i < n; i++) {
    const c = host.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** HTTP/1.1 without a Host header. */
export const MISSING_HOST = ApiError.badRequest("Missing Host header");

/** `scheme://authority`, the authority without userinfo, whitespace, a path or a query. */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#@\s\\]+)/i;

/**
 * The origin-form of `url` ("/path" or "/path?query"), or "" when the target is invalid. The
 * path is the target's own text (not re-encoded or dot-normalised by a URL parser), so an
 * absolute-form request routes exactly as its origin-form twin would.
 */
export function originForm(url: string): string {
  if (url.charCodeAt(0) !== 47 /* "/" */) {
    const m = ABSOLUTE_FORM.exec(url);
    if (m === null) return "";
    try {
      // Validates the authority: a host name or address and a port in range.
      if (new URL(m[0]).host === "") return "";
    } catch {
      return "";
    }
    const rest = url.slice(m[0].length);
    if (rest === "") return "/";
    if (rest.charCodeAt(0) === 63 /* "?" */) url = "/" + rest;
    else if (rest.charCodeAt(0) === 47) url = rest;
    else return "";
  }
  return url.indexOf("#") === -1 ? url : "";
}

/** Marks `OPTIONS *` (RFC 9110 §9.3.7), the one valid target that is not a path. */
export const ASTERISK_OPTIONS: unique symbol = Symbol("OPTIONS *");

/**
 * The request's target in origin-form (`/path` or `/path?query`) when the request may be routed,
 * otherwise why not: the uniform 400 to answer with, or ASTERISK_OPTIONS for `OPTIONS *`. The
 * target is checked first, then the version (only HTTP/1.x is spoken here: llhttp also parses
 * "HTTP/0.9" and "HTTP/2.0" request lines), then Host: HTTP/1.1 requires one (RFC 9112 §3.2;
 * node's own check would answer a bare 400) and it must be `host[:port]`. HTTP/2 streams come
 * through node:http2's compatibility API: their authority is the :authority pseudo-header, which
 * nghttp2 has checked, and Host is optional.
 */
export function readTarget(req: IncomingMessage): string | ApiError | typeof ASTERISK_OPTIONS {
  const raw = req.url ?? "/";
  const url = raw.charCodeAt(0) === 47 /* "/" */ && raw.indexOf("#") === -1 ? raw : originForm(raw);
  if (url === "") return raw === "*" && req.method === "OPTIONS" ? ASTERISK_OPTIONS : INVALID_TARGET;
  const host = req.headers.host;
  if (req.httpVersionMajor === 1) {
    if (host === undefined ? req.httpVersionMinor === 1 : !isValidHost(host)) return host === undefined ? MISSING_HOST : INVALID_HOST;
    return url;
  }
  if (!isHttp2Request(req)) return UNSUPPORTED_VERSION;
  return host === undefined || isValidHost(host) ? url : INVALID_HOST;
}
