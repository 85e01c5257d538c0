/**
 * Decoder pre-pass of TOON spec v4: line splitting with CRLF acceptance (§12),
 * comment-line removal (§5.1), blank-line marking and indentation depth (§12).
 */
import { ToonError } from "./errors.js";

export interface ToonLine {
  /** Indentation level; 0 for blank lines. */
  readonly depth: number;
  /** Content after the leading indentation ("" for blank lines). */
  readonly content: string;
  /** 1-based line number in the original text. */
  readonly lineNo: number;
  /** Column of content[0] minus one. */
  readonly colBase: number;
  readonly blank: boolean;
}

const CH_SPACE = 0x20;
const CH_TAB = 0x09;
const CH_HASH = 0x23;
const CH_CR = 0x0d;

/**
 * Splits `text` into non-comment lines. Strict mode rejects tabs in
 * indentation and indentation that is not a multiple of indentSize. Non-strict
 * tab policy (§12, documented): a tab in the indentation counts as indentSize
 * spaces, and depth is floor(spaces / indentSize).
 */
export function splitToonLines(text: string, indentSize: number, strict: boolean): ToonLine[] {
  const lines: ToonLine[] = [];
  const n = text.length;
  let start = 0;
  let lineNo = 0;
  while (start <= n) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = n;
    lineNo++;
    const next = end + 1;
    // §12: a CR right before the line terminator (or at end of input) is part of the terminator.
    if (end > start && text.charCodeAt(end - 1) === CH_CR) end--;
    let i = start;
    let spaces = 0;
    let sawTab = false;
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === CH_SPACE) spaces++;
      else if (c === CH_TAB) { sawTab = true; spaces += indentSize; }
      else break;
    }
    if (i === end) {
      // Blank (only spaces/tabs). A final empty segment after a trailing LF is not a line.
      if (!(end === n && start === n && lineNo > 1)) lines.push({ depth: 0, content: "", lineNo, colBase: 0, blank: true });
    } else if (!(text.charCodeAt(i) === CH_HASH && !sawTab)) {
      if (sawTab && strict) throw new ToonError("tab character used in indentation", lineNo, 1);
      if (strict && spaces % indentSize !== 0) {
        throw new ToonError(`indentation of ${spaces} spaces is not a multiple of indentSize ${indentSize}`, lineNo, 1);
      }
      lines.push({ depth: Math.floor(spaces / indentSize), content: text.slice(i, end), lineNo, colBase: i - start, blank: false });
    }
    start = next;
  }
  return lines;
}
