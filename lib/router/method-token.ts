/**
 * HTTP method names accepted by the router: an RFC 9110 `token` (section 5.6.2) written in
 * upper case, since methods are case-sensitive and node:http hands them over upper-cased.
 */
import { RouteError } from "./errors.js";

/** True when `method` is a non-empty RFC 9110 token. */
export function isMethodToken(method: string): boolean {
  if (method.length === 0) return false;
  for (let i = 0; i < method.length; i++) {
    if (!isTchar(method.charCodeAt(i))) return false;
  }
  return true;
}

/** Returns `method` when it is an upper-case token; throws RouteError otherwise. */
export function checkRouteMethod(method: string): string {
  if (typeof method !== "string" || !isMethodToken(method)) {
    throw new RouteError(`invalid HTTP method ${JSON.stringify(method)}: it must be an RFC 9110 token`);
  }
  if (method !== method.toUpperCase()) {
    throw new RouteError(`invalid HTTP method ${JSON.stringify(method)}: write it in upper case`);
  }
  return method;
}

// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
function isTchar(c: number): boolean {
  if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return true;
  switch (c) {
    case 0x21:
    case 0x23:
    case 0x24:
    case 0x25:
    case 0x26:
    case 0x27:
    case 0x2a:
    case 0x2b:
    case 0x2d:
    case 0x2e:
    case 0x5e:
    case 0x5f:
    case 0x60:
    case 0x7c:
    case 0x7e:
      return true;
    default:
      return false;
  }
}
