/**
 * Number grammar pieces of TOON spec v4: canonical encoding (§2), the decoder's
 * number grammar (§4) and the encoder's "numeric-like" quoting test (§7.2).
 * Hand-written scanners instead of regular expressions: linear, no backtracking.
 */

const CH_0 = 48;
const CH_9 = 57;
const CH_MINUS = 45;
const CH_PLUS = 43;
const CH_DOT = 46;
const CH_E_LOWER = 101;
const CH_E_UPPER = 69;

function isDigit(code: number): boolean {
  return code >= CH_0 && code <= CH_9;
}

/**
 * Matches `[sign]digits[.digits][(e|E)[+-]digits]` against the whole token.
 * Returns the number of integer-part digits, or -1 when the token does not match.
 */
function matchNumberShape(token: string, allowPlus: boolean): number {
  const n = token.length;
  let i = 0;
  const c0 = token.charCodeAt(0);
  if (c0 === CH_MINUS || (allowPlus && c0 === CH_PLUS)) i++;
  const intStart = i;
  while (i < n && isDigit(token.charCodeAt(i))) i++;
  const intDigits = i - intStart;
  if (intDigits === 0) return -1;
  if (i < n && token.charCodeAt(i) === CH_DOT) {
    const fracStart = ++i;
    while (i < n && isDigit(token.charCodeAt(i))) i++;
    if (i === fracStart) return -1;
  }
  if (i < n) {
    const c = token.charCodeAt(i);
    if (c !== CH_E_LOWER && c !== CH_E_UPPER) return -1;
    i++;
    const s = token.charCodeAt(i);
    if (s === CH_PLUS || s === CH_MINUS) i++;
    const expStart = i;
    while (i < n && isDigit(token.charCodeAt(i))) i++;
    if (i === expStart) return -1;
  }
  return i === n ? intDigits : -1;
}

/**
 * §4 decoder rule: an unquoted token is a number iff it matches
 * `/^-?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?$/i` without forbidden leading zeros.
 * Returns the value, or undefined when the token is a string.
 *
 * Out-of-range policy (§4, documented): tokens that overflow to ±Infinity stay
 * strings (lossless); other tokens decode to the nearest IEEE-754 double
 * (integers beyond 2^53 lose precision, as with JSON.parse). -0 decodes to 0.
 */
export function parseToonNumberToken(token: string): number | undefined {
  const intDigits = matchNumberShape(token, false);
  if (intDigits < 0) return undefined;
  const intStart = token.charCodeAt(0) === CH_MINUS ? 1 : 0;
  if (intDigits > 1 && token.charCodeAt(intStart) === CH_0) return undefined;
  const value = Number(token);
  if (!Number.isFinite(value)) return undefined;
  return value === 0 ? 0 : value;
}

/** §7.2: numeric-like strings (`/^[+-]?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?$/i`) must be quoted. */
export function isToonNumericLike(value: string): boolean {
  return matchNumberShape(value, true) >= 0;
}

/**
 * §2 canonical form. JavaScript's Number#toString already gives the shortest
 * round-tripping digits, plain decimal for 1e-6 <= |n| < 1e21 and `1e-7` /
 * `1.5e+21` style (lowercase e, explicit sign) outside that range, which §2
 * permits. -0 becomes 0; NaN and ±Infinity become null (§3).
 */
export function formatToonNumber(value: number): string {
  if (!Number.isFinite(value)) return "null";
  if (value === 0) return "0";
  return String(value);
}
