/**
 * HTTP method names accepted by the router: an RFC 9110 `token` (section 5.6.2) written in
 * upper case, since methods are case-sensitive and node:http hands them over upper-cased.
 */
import { isTchar } from "../util/tchar.js";
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
