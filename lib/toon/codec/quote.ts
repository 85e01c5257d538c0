/**
 * Encoder-side string rules of TOON spec v4: escaping (§7.1), when a string
 * value must be quoted (§7.2, delimiter-aware per §11.1) and key encoding (§7.3).
 */
import { isToonNumericLike } from "./numbers.js";
import type { ToonDelimiter } from "./options.js";

const HEX = "0123456789abcdef";
const REPLACEMENT_CHAR = "\uFFFD";

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** True when position i holds a surrogate that is not part of a valid pair. */
function isLoneSurrogateAt(s: string, i: number, code: number): boolean {
  if (isHighSurrogate(code)) return !isLowSurrogate(s.charCodeAt(i + 1));
  if (isLowSurrogate(code)) return !isHighSurrogate(s.charCodeAt(i - 1));
  return false;
}

function escapeFor(code: number): string | undefined {
  switch (code) {
    case 0x5c: return "\\\\";
    case 0x22: return "\\\"";
    case 0x0a: return "\\n";
    case 0x0d: return "\\r";
    case 0x09: return "\\t";
    default:
      if (code < 0x20) return "\\u00" + HEX[code >> 4]! + HEX[code & 15]!;
      return undefined;
  }
}

/**
 * §7.1 encoder column: wraps in double quotes and escapes `\ " LF CR HTAB`, other
 * C0 controls as lowercase `\u00xx`; everything else stays literal. A lone UTF-16
 * surrogate (not a Unicode scalar value, so not representable in UTF-8) is
 * replaced by U+FFFD, as any UTF-8 transport would do.
 */
export function quoteToonString(value: string): string {
  let out = "";
  let chunkStart = 0;
  const n = value.length;
  for (let i = 0; i < n; i++) {
    const code = value.charCodeAt(i);
    let replacement: string | undefined;
    if (code < 0x20 || code === 0x22 || code === 0x5c) replacement = escapeFor(code);
    else if (code >= 0xd800 && code <= 0xdfff && isLoneSurrogateAt(value, i, code)) replacement = REPLACEMENT_CHAR;
    if (replacement === undefined) continue;
    out += value.slice(chunkStart, i) + replacement;
    chunkStart = i + 1;
  }
  return "\"" + (chunkStart === 0 ? value : out + value.slice(chunkStart)) + "\"";
}

/**
 * §7.2: a string value must be quoted when it is empty, has leading/trailing
 * space or tab, equals true/false/null, is numeric-like, contains `: " \ [ ] { }`,
 * a C0 control or the relevant delimiter, or starts with `-` or `#`.
 * (Lone surrogates also force the quoted path so they get replaced.)
 */
export function toonStringNeedsQuotes(value: string, delimiter: ToonDelimiter): boolean {
  const n = value.length;
  if (n === 0) return true;
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(n - 1);
  if (first === 0x20 || first === 0x09 || last === 0x20 || last === 0x09) return true;
  if (first === 0x2d /* - */ || first === 0x23 /* # */) return true;
  if (value === "true" || value === "false" || value === "null") return true;
  const delimCode = delimiter.charCodeAt(0);
  for (let i = 0; i < n; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === delimCode) return true;
    switch (code) {
      case 0x3a: case 0x22: case 0x5c: case 0x5b: case 0x5d: case 0x7b: case 0x7d:
        return true;
      default:
        if (code >= 0xd800 && code <= 0xdfff && isLoneSurrogateAt(value, i, code)) return true;
    }
  }
  // Only digit-led or sign-led strings can be numeric-like; checked last because it is rarest.
  return (first >= 0x30 && first <= 0x39) || first === 0x2b ? isToonNumericLike(value) : false;
}

/** §7.2 + §7.1: the encoded form of a string value. */
export function encodeToonStringValue(value: string, delimiter: ToonDelimiter): string {
  return toonStringNeedsQuotes(value, delimiter) ? quoteToonString(value) : value;
}

/** §7.3: keys may be bare only if they match `^[A-Za-z_][A-Za-z0-9_.]*$`. */
export function isToonBareKey(key: string): boolean {
  const n = key.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = key.charCodeAt(i);
    const alpha = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
    if (alpha) continue;
    if (i > 0 && ((c >= 0x30 && c <= 0x39) || c === 0x2e)) continue;
    return false;
  }
  return true;
}

/** §7.3: encoded form of an object key, entry key or tabular field name. */
export function encodeToonKey(key: string): string {
  return isToonBareKey(key) ? key : quoteToonString(key);
}
