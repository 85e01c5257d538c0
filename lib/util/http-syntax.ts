// Character-class checks for values keel writes into response headers (cookie names, header
// names, realms, reflected header lists). Linear scans, no regex; anything outside the grammar
// is refused instead of escaped, so CR/LF or separators can never reach the wire.

import { tokenEnd } from "./tchar.js";

/** A non-empty RFC 9110 token (header names, cookie names, auth schemes, method names), by the one tchar table. */
export function isHttpToken(s: string, maxLength = 256): boolean {
  const n = s.length;
  return n !== 0 && n <= maxLength && tokenEnd(s, 0) === n;
}

/** Visible ASCII and spaces only (no CTL, no DEL, no non-ASCII): safe as a header value. */
export function isSafeHeaderValue(s: string, maxLength = 8192): boolean {
  const n = s.length;
  if (n > maxLength) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c > 126) return false;
  }
  return true;
}

/** Text allowed inside a quoted auth-param we write ourselves (realm, error_description). */
export function isQuotableText(s: string): boolean {
  if (!isSafeHeaderValue(s, 512)) return false;
  return s.indexOf('"') === -1 && s.indexOf("\\") === -1;
}

/** RFC 6265 cookie-octet: %x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E (no space, DQUOTE, comma, semicolon, backslash). */
export function isCookieValue(s: string, maxLength = 4096): boolean {
  const n = s.length;
  if (n > maxLength) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x21 || c > 0x7e || c === 0x22 || c === 0x2c || c === 0x3b || c === 0x5c) return false;
  }
  return true;
}

/** base64url alphabet only (A-Z a-z 0-9 - _), `length` characters exactly when given. */
export function isBase64urlText(s: string, length?: number): boolean {
  const n = s.length;
  if (length !== undefined ? n !== length : n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 95)) return false;
  }
  return true;
}
