/**
 * Lexical helpers of the TOON decoder (spec v4 Appendix B.3/B.4, §11.2, §12):
 * space-only trimming, quote-aware search and splitting, primitive tokens.
 * All single pass, linear in the input.
 */
import { ToonError } from "./errors.js";
import { parseToonNumberToken } from "./numbers.js";
import { readToonQuoted } from "./unescape.js";

export type ToonPrimitive = string | number | boolean | null;

const CH_SPACE = 0x20;
const CH_QUOTE = 0x22;
const CH_BACKSLASH = 0x5c;

/** §12 token trimming: removes U+0020 only (never NBSP, tabs, ...). */
export function trimToonSpaces(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) === CH_SPACE) start++;
  while (end > start && s.charCodeAt(end - 1) === CH_SPACE) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** Index of the first occurrence of `code` outside double quotes (B.3 quote tracking), or -1. */
export function indexOfUnquoted(s: string, code: number, from = 0): number {
  const n = s.length;
  let inQuotes = false;
  for (let i = from; i < n; i++) {
    const c = s.charCodeAt(i);
    if (inQuotes) {
      if (c === CH_BACKSLASH) i++;
      else if (c === CH_QUOTE) inQuotes = false;
    } else if (c === CH_QUOTE) {
      inQuotes = true;
    } else if (c === code) {
      return i;
    }
  }
  return -1;
}

/**
 * B.3 / §11.2: splits on the active delimiter outside quotes, keeping empty
 * tokens and trimming U+0020 around each. Quoted tokens are validated later.
 */
export function splitToonDelimited(s: string, delimCode: number): string[] {
  const out: string[] = [];
  const n = s.length;
  let tokenStart = 0;
  let inQuotes = false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (inQuotes) {
      if (c === CH_BACKSLASH) i++;
      else if (c === CH_QUOTE) inQuotes = false;
    } else if (c === CH_QUOTE) {
      inQuotes = true;
    } else if (c === delimCode) {
      out.push(trimToonSpaces(s.slice(tokenStart, i)));
      tokenStart = i + 1;
    }
  }
  out.push(trimToonSpaces(s.slice(tokenStart)));
  return out;
}

/**
 * B.4 / §4: a (trimmed) value token to a primitive. Quoted tokens must be
 * well-formed with nothing after the closing quote; true/false/null literals;
 * §4 numbers; anything else is a string (the empty token is "").
 */
export function parseToonPrimitive(token: string, strict: boolean, lineNo?: number, colBase?: number): ToonPrimitive {
  if (token.length === 0) return "";
  const c0 = token.charCodeAt(0);
  if (c0 === CH_QUOTE) {
    const q = readToonQuoted(token, 0, strict, lineNo, colBase);
    if (q.end !== token.length) {
      throw new ToonError("unexpected characters after closing quote", lineNo, colBase === undefined ? undefined : colBase + q.end + 1);
    }
    return q.value;
  }
  if (token === "true") return true;
  if (token === "false") return false;
  if (token === "null") return null;
  if ((c0 >= 0x30 && c0 <= 0x39) || c0 === 0x2d) {
    const num = parseToonNumberToken(token);
    if (num !== undefined) return num;
  }
  return token;
}
