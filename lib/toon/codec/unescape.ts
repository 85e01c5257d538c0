/**
 * Decoder column of TOON spec v4 §7.1: reading one quoted string or key.
 * Accepts `\\ \" \n \r \t \uXXXX` (case-insensitive hex); rejects any other
 * escape, short `\u`, surrogate code points written as `\uXXXX`, unterminated
 * strings and (strict mode) raw C0 controls other than HTAB.
 */
import { ToonError } from "./errors.js";

export interface ToonQuotedToken {
  readonly value: string;
  /** Index just past the closing quote. */
  readonly end: number;
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  return -1;
}

/**
 * Reads the quoted token whose opening quote is at `start` in `text`.
 * `lineNo` / `colBase` only feed error positions (colBase = column of text[0] minus 1).
 */
export function readToonQuoted(text: string, start: number, strict: boolean, lineNo?: number, colBase = 0): ToonQuotedToken {
  const n = text.length;
  let out = "";
  let chunkStart = start + 1;
  for (let i = start + 1; i < n; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      return { value: out + text.slice(chunkStart, i), end: i + 1 };
    }
    if (code === 0x5c) {
      out += text.slice(chunkStart, i);
      const esc = text.charCodeAt(i + 1);
      switch (esc) {
        case 0x5c: out += "\\"; break;
        case 0x22: out += "\""; break;
        case 0x6e: out += "\n"; break;
        case 0x72: out += "\r"; break;
        case 0x74: out += "\t"; break;
        case 0x75: {
          let cp = 0;
          for (let k = 2; k < 6; k++) {
            const h = i + k < n ? hexValue(text.charCodeAt(i + k)) : -1;
            if (h < 0) throw new ToonError("invalid \\u escape: expected four hex digits", lineNo, colBase + i + 1);
            cp = cp * 16 + h;
          }
          if (cp >= 0xd800 && cp <= 0xdfff) {
            throw new ToonError("\\u escape of a surrogate code point is not allowed", lineNo, colBase + i + 1);
          }
          out += String.fromCharCode(cp);
          i += 4;
          break;
        }
        default:
          if (i + 1 >= n) break;
          throw new ToonError(`invalid escape sequence "\\${text[i + 1]}"`, lineNo, colBase + i + 1);
      }
      if (i + 1 >= n) break;
      i++;
      chunkStart = i + 1;
      continue;
    }
    if (strict && code < 0x20 && code !== 0x09) {
      throw new ToonError("raw control character in quoted string (use an escape)", lineNo, colBase + i + 1);
    }
  }
  throw new ToonError("unterminated quoted string", lineNo, colBase + start + 1);
}
