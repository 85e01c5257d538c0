// Splits .proto source into tokens with their line and column. Comments (`//` and `/* */`)
// and whitespace are dropped; adjacent string literals stay separate tokens (the parser joins them).
import { ProtoParseError } from "./errors.js";

export type TokenKind = "ident" | "int" | "float" | "string" | "symbol" | "eof";

export interface Token {
  readonly kind: TokenKind;
  /** The source text (for strings: the decoded value). */
  readonly text: string;
  readonly line: number;
  readonly col: number;
}

const SYMBOLS = new Set([";", "{", "}", "=", "<", ">", ",", "[", "]", "(", ")", ".", ":", "-", "+", "/"]);

function isIdentStart(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_";
}

function isDigit(c: string): boolean {
  return c >= "0" && c <= "9";
}

function isIdentPart(c: string): boolean {
  return isIdentStart(c) || isDigit(c);
}

export function tokenize(source: string, file: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const fail = (reason: string, at = i): never => {
    throw new ProtoParseError(reason, { file, line, col: at - lineStart + 1 });
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === "\n") {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r" || c === "\f" || c === "\v") {
      i++;
      continue;
    }
    if (c === "/" && source[i + 1] === "/") {
      while (i < source.length && source[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && source[i + 1] === "*") {
      const startLine = line;
      const startCol = i - lineStart + 1;
      i += 2;
      while (i < source.length && !(source[i] === "*" && source[i + 1] === "/")) {
        if (source[i] === "\n") {
          line++;
          lineStart = i + 1;
        }
        i++;
      }
      if (i >= source.length) throw new ProtoParseError("unterminated block comment", { file, line: startLine, col: startCol });
      i += 2;
      continue;
    }
    const col = i - lineStart + 1;
    if (isIdentStart(c)) {
      const start = i;
      while (i < source.length && isIdentPart(source[i]!)) i++;
      tokens.push({ kind: "ident", text: source.slice(start, i), line, col });
      continue;
    }
    if (isDigit(c) || (c === "." && isDigit(source[i + 1] ?? ""))) {
      const start = i;
      let kind: TokenKind = "int";
      if (c === "0" && (source[i + 1] === "x" || source[i + 1] === "X")) {
        i += 2;
        while (i < source.length && /[0-9a-fA-F]/.test(source[i]!)) i++;
        if (i === start + 2) fail("hex literal without digits", start);
      } else {
        while (i < source.length && isDigit(source[i]!)) i++;
        if (source[i] === ".") {
          kind = "float";
          i++;
          while (i < source.length && isDigit(source[i]!)) i++;
        }
        if (source[i] === "e" || source[i] === "E") {
          kind = "float";
          i++;
          if (source[i] === "+" || source[i] === "-") i++;
          const digits = i;
          while (i < source.length && isDigit(source[i]!)) i++;
          if (i === digits) fail("exponent without digits", start);
        }
      }
      if (i < source.length && isIdentPart(source[i]!)) fail(`invalid number literal "${source.slice(start, i + 1)}"`, start);
      const text = source.slice(start, i);
      if (kind === "int" && text.length > 1 && text[0] === "0" && !/^0[xX]/.test(text) && !/^[0-7]+$/.test(text)) fail(`invalid octal literal "${text}"`, start);
      tokens.push({ kind, text, line, col });
      continue;
    }
    if (c === '"' || c === "'") {
      const start = i;
      i++;
      let value = "";
      while (true) {
        if (i >= source.length || source[i] === "\n") fail("unterminated string literal", start);
        const ch = source[i]!;
        if (ch === c) {
          i++;
          break;
        }
        if (ch === "\\") {
          const [decoded, next] = readEscape(source, i, (reason) => fail(reason, i));
          value += decoded;
          i = next;
          continue;
        }
        value += ch;
        i++;
      }
      tokens.push({ kind: "string", text: value, line, col });
      continue;
    }
    if (SYMBOLS.has(c)) {
      tokens.push({ kind: "symbol", text: c, line, col });
      i++;
      continue;
    }
    fail(`unexpected character ${JSON.stringify(c)}`);
  }
  tokens.push({ kind: "eof", text: "", line, col: i - lineStart + 1 });
  return tokens;
}

const SIMPLE_ESCAPES: Record<string, string> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };

/** One escape sequence starting at the backslash at `i`: its text and the index after it. */
function readEscape(source: string, i: number, fail: (reason: string) => never): [string, number] {
  const e = source[i + 1] ?? "";
  const simple = SIMPLE_ESCAPES[e];
  if (simple !== undefined) return [simple, i + 2];
  if (e === "x" || e === "X") {
    const m = /^[0-9a-fA-F]{1,2}/.exec(source.slice(i + 2, i + 4));
    if (m === null) fail("\\x escape without hex digits");
    return [String.fromCharCode(parseInt(m![0], 16)), i + 2 + m![0].length];
  }
  if (e >= "0" && e <= "7") {
    const m = /^[0-7]{1,3}/.exec(source.slice(i + 1, i + 4))!;
    return [String.fromCharCode(parseInt(m[0], 8) & 0xff), i + 1 + m[0].length];
  }
  if (e === "u" || e === "U") {
    const n = e === "u" ? 4 : 8;
    const digits = source.slice(i + 2, i + 2 + n);
    if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(digits)) fail(`\\${e} escape needs ${n} hex digits`);
    const cp = parseInt(digits, 16);
    if (cp > 0x10ffff) fail("code point out of range");
    return [String.fromCodePoint(cp), i + 2 + n];
  }
  return fail(`invalid escape "\\${e}"`);
}
