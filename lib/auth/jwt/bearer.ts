// `Authorization: Bearer <token>` parsing (RFC 6750 §2.1): the scheme is matched
// case-insensitively, then one or more spaces, then exactly one token68 and nothing after it.
// A second token, a comma-separated list or any other scheme is not a bearer credential
// (peers.md §5.3: Hono CVE-2026-47673 accepted any scheme).

/** No Authorization header, or one with a different scheme. */
export const BEARER_ABSENT = 0;
/** The Bearer scheme is there but the credentials are not one well-formed token. */
export const BEARER_MALFORMED = 1;

/** token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
function isToken68Char(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 95 || c === 126 || c === 43 || c === 47;
}

/**
 * The bearer token, or BEARER_ABSENT / BEARER_MALFORMED. `maxLength` bounds the work
 * (longer tokens are malformed without being scanned).
 */
export function parseBearer(header: string | undefined, maxLength: number): string | typeof BEARER_ABSENT | typeof BEARER_MALFORMED {
  if (header === undefined) return BEARER_ABSENT;
  if (typeof header !== "string") return BEARER_MALFORMED; // repeated header (only possible in-process)
  // "bearer" followed by at least one space; anything shorter or different is another scheme.
  if (header.length < 7 || header.charCodeAt(6) !== 32 || header.slice(0, 6).toLowerCase() !== "bearer") {
    return header.length === 6 && header.toLowerCase() === "bearer" ? BEARER_MALFORMED : BEARER_ABSENT;
  }
  let i = 7;
  const n = header.length;
  while (i < n && header.charCodeAt(i) === 32) i++;
  if (i === n || n - i > maxLength) return BEARER_MALFORMED;
  const start = i;
  while (i < n && isToken68Char(header.charCodeAt(i))) i++;
  if (i === start) return BEARER_MALFORMED;
  while (i < n && header.charCodeAt(i) === 61 /* = */) i++;
  // Node trims surrounding whitespace of header values, so anything left is a second token,
  // a list separator or a forbidden character.
  if (i !== n) return BEARER_MALFORMED;
  return header.slice(start);
}
