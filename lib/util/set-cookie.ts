// Set-Cookie values built from options checked once, at construction: the name, path, domain
// and attributes are validated and joined into a fixed suffix, so a request only concatenates
// its (validated) value. Used by the CSRF layer and the OAuth2 client.
import { isCookieValue, isHttpToken, isSafeHeaderValue } from "./http-syntax.js";

export type SameSite = "Strict" | "Lax" | "None";

export interface CookieAttributes {
  /** Path attribute (default "/"). */
  path?: string;
  /** Domain attribute (default none: host-only, the safest). */
  domain?: string;
  /** Secure attribute (default false here; callers decide their own defaults). */
  secure?: boolean;
  /** HttpOnly attribute (default false). */
  httpOnly?: boolean;
  /** SameSite attribute (default "Lax"). "None" requires secure. */
  sameSite?: SameSite;
  /** Max-Age in seconds (default: a session cookie). */
  maxAge?: number;
  /** Expires attribute (an HTTP date; Max-Age wins in browsers when both are set). */
  expires?: Date;
  /** Partitioned attribute (CHIPS): the cookie is keyed to the top-level site. Requires secure. */
  partitioned?: boolean;
}

/** A compiled cookie: `set(value)` and `clear()` give complete Set-Cookie header values. */
export interface CompiledCookie {
  readonly name: string;
  set(value: string): string;
  clear(): string;
}

function fail(message: string): never {
  throw new TypeError(`cookie: ${message}`);
}

/**
 * One Set-Cookie value: the value is percent-encoded (`parseCookies` decodes it), so any string
 * round-trips; name and attributes are checked as by compileCookie (a TypeError, never a broken
 * header). RFC 6265bis caps name + value at 4096 bytes.
 */
export function serializeSetCookie(name: string, value: string, attrs: CookieAttributes = {}): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    fail(`cookie ${name}: value is not well-formed Unicode (a lone surrogate)`);
  }
  if (name.length + encoded.length > 4096) fail(`cookie ${name}: name and encoded value exceed 4096 bytes`);
  return compileCookie(name, attrs).set(encoded);
}

export function compileCookie(name: string, attrs: CookieAttributes = {}): CompiledCookie {
  if (!isHttpToken(name)) fail(`invalid cookie name ${JSON.stringify(name)}`);
  const path = attrs.path ?? "/";
  if (!path.startsWith("/") || !isSafeHeaderValue(path, 1024) || path.indexOf(";") !== -1) {
    fail(`invalid path ${JSON.stringify(path)}`);
  }
  const sameSite = attrs.sameSite ?? "Lax";
  if (sameSite !== "Strict" && sameSite !== "Lax" && sameSite !== "None") fail(`sameSite must be Strict, Lax or None`);
  const secure = attrs.secure === true;
  if (sameSite === "None" && !secure) fail(`sameSite None requires secure`);
  if (name.startsWith("__Secure-") && !secure) fail(`a __Secure- cookie requires secure`);
  if (name.startsWith("__Host-") && (!secure || path !== "/" || attrs.domain !== undefined)) {
    fail(`a __Host- cookie requires secure, path "/" and no domain`);
  }
  let suffix = `; Path=${path}`;
  if (attrs.domain !== undefined) {
    const d = attrs.domain;
    if (d === "" || !isSafeHeaderValue(d, 253) || /[\s;,]/.test(d)) fail(`invalid domain ${JSON.stringify(d)}`);
    suffix += `; Domain=${d}`;
  }
  if (attrs.maxAge !== undefined) {
    if (!Number.isInteger(attrs.maxAge) || attrs.maxAge < 0) fail("maxAge must be a non-negative integer (seconds)");
    suffix += `; Max-Age=${attrs.maxAge}`;
  }
  if (attrs.expires !== undefined) {
    const at = attrs.expires;
    if (!(at instanceof Date) || Number.isNaN(at.getTime())) fail("expires must be a valid Date");
    suffix += `; Expires=${at.toUTCString()}`;
  }
  if (attrs.httpOnly === true) suffix += "; HttpOnly";
  if (secure) suffix += "; Secure";
  suffix += `; SameSite=${sameSite}`;
  if (attrs.partitioned === true) {
    if (!secure) fail("partitioned requires secure");
    suffix += "; Partitioned";
  }
  const prefix = name + "=";
  const cleared = `${prefix}${suffix.replace(/; Max-Age=\d+/, "").replace(/; Expires=[^;]*/, "")}; Max-Age=0`;
  return {
    name,
    set(value: string): string {
      if (!isCookieValue(value)) throw new TypeError(`cookie ${name}: value has characters a cookie cannot carry`);
      return prefix + value + suffix;
    },
    clear(): string {
      return cleared;
    },
  };
}
