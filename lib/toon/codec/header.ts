/**
 * Line classification and header parsing of TOON spec v4:
 * §5.2 (key-value vs header vs scalar), §6 (bracket segment, keyed marker,
 * delimiter symbol, fields segment with nested field groups, colon), §7.4 keys.
 */
import { ToonError } from "./errors.js";
import type { ToonDelimiter } from "./options.js";
import { trimToonSpaces } from "./scan.js";
import { readToonQuoted } from "./unescape.js";

/** A field entry of a fields segment; `children` is a nested field group (§9.3). */
export interface ToonFieldNode {
  readonly name: string;
  readonly children: readonly ToonFieldNode[] | undefined;
}

export interface ToonHeader {
  /** undefined for a keyless header (`[N]:`); "" for the quoted empty key `""[N]:`. */
  readonly key: string | undefined;
  readonly length: number;
  /** `[N:]` keyed tabular object header (§9.5). */
  readonly keyed: boolean;
  readonly delimiter: ToonDelimiter;
  readonly fields: readonly ToonFieldNode[] | undefined;
  /** Number of leaf fields in depth-first order (row width, §9.3). */
  readonly leafCount: number;
  /** Some brace group repeats a name (§9.3 → §14.3). */
  readonly duplicateFields: boolean;
  /** Text after the header colon, trimmed of U+0020. */
  readonly inline: string;
}

export type ToonLineKind =
  | { readonly kind: "header"; readonly header: ToonHeader }
  | { readonly kind: "field"; readonly key: string; readonly value: string; readonly valueOffset: number }
  | { readonly kind: "scalar" };

export interface ToonLineContext {
  readonly strict: boolean;
  readonly maxDepth: number;
  readonly lineNo: number;
  /** Column of content[0] minus one, for error positions. */
  readonly colBase: number;
}

const SCALAR: ToonLineKind = { kind: "scalar" };
const CH_QUOTE = 0x22;
const CH_LBRACKET = 0x5b;
const CH_RBRACKET = 0x5d;
const CH_LBRACE = 0x7b;
const CH_RBRACE = 0x7d;
const CH_COLON = 0x3a;
const CH_SPACE = 0x20;
const CH_TAB = 0x09;
const CH_PIPE = 0x7c;
const CH_COMMA = 0x2c;

/** Thrown inside this module for §6 "header syntax errors"; never escapes it. */
class MalformedHeader {
  constructor(readonly reason: string) {}
}

/** Unquoted header keys are literal tokens, but a space/quote/brace before `[` means "not a header" (§5.2 `foo [2]: bar`). */
function isHeaderKeyText(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === CH_SPACE || c === CH_TAB || c === CH_QUOTE || c === CH_LBRACE || c === CH_RBRACE || c === CH_RBRACKET) return false;
  }
  return true;
}

function skipSpaces(s: string, i: number): number {
  while (s.charCodeAt(i) === CH_SPACE) i++;
  return i;
}

/**
 * Classifies one line's content (after indentation) per §5.2 for object-field,
 * list-item and root positions. Strict mode throws on malformed headers (§6,
 * §14.2); non-strict falls through to a key-value line with a literal key.
 */
export function classifyToonLine(content: string, ctx: ToonLineContext): ToonLineKind {
  if (content.charCodeAt(0) === CH_QUOTE) {
    const q = readToonQuoted(content, 0, ctx.strict, ctx.lineNo, ctx.colBase);
    if (content.charCodeAt(q.end) === CH_LBRACKET) {
      return headerOrFallback(content, q.end, q.value, ctx);
    }
    const i = skipSpaces(content, q.end);
    if (i === content.length) return SCALAR;
    if (content.charCodeAt(i) !== CH_COLON) {
      throw new ToonError("expected ':' after quoted key", ctx.lineNo, ctx.colBase + i + 1);
    }
    return fieldKind(q.value, content, i + 1);
  }
  const colon = content.indexOf(":");
  const bracket = content.indexOf("[");
  if (bracket >= 0 && (colon < 0 || bracket < colon)) {
    const keyText = content.slice(0, bracket);
    if (isHeaderKeyText(keyText)) {
      return headerOrFallback(content, bracket, bracket === 0 ? undefined : keyText, ctx);
    }
  }
  return literalKeyField(content, colon);
}

/** Key-value line with the literal key before the first colon (§7.4), or a scalar line. */
function literalKeyField(content: string, colon: number): ToonLineKind {
  if (colon < 0) return SCALAR;
  return fieldKind(trimToonSpaces(content.slice(0, colon)), content, colon + 1);
}

/** Field with the value after `valueStart` trimmed of U+0020; valueOffset locates it for error columns. */
function fieldKind(key: string, content: string, valueStart: number): ToonLineKind {
  return { kind: "field", key, value: trimToonSpaces(content.slice(valueStart)), valueOffset: skipSpaces(content, valueStart) };
}

function headerOrFallback(content: string, bracket: number, key: string | undefined, ctx: ToonLineContext): ToonLineKind {
  try {
    return { kind: "header", header: parseHeaderAt(content, bracket, key, ctx) };
  } catch (err) {
    if (!(err instanceof MalformedHeader)) throw err;
    if (ctx.strict) throw new ToonError(`invalid array header: ${err.reason}`, ctx.lineNo, ctx.colBase + bracket + 1);
    return literalKeyField(content, content.indexOf(":"));
  }
}

/** §6 bracket segment `[N]`, `[N|]`, `[N\t]`, keyed `[N:]`, `[N:|]`, then fields and colon. */
function parseHeaderAt(s: string, bracket: number, key: string | undefined, ctx: ToonLineContext): ToonHeader {
  let i = bracket + 1;
  const digitsStart = i;
  while (i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) i++;
  const digits = i - digitsStart;
  if (digits === 0) throw new MalformedHeader("missing or non-integer length in [ ]");
  if (digits > 1 && s.charCodeAt(digitsStart) === 0x30) throw new MalformedHeader("length has leading zeros");
  if (digits > 15) throw new MalformedHeader("length too large");
  const length = Number(s.slice(digitsStart, i));
  let keyed = false;
  if (s.charCodeAt(i) === CH_COLON) {
    keyed = true;
    i++;
  }
  let delimiter: ToonDelimiter = ",";
  const d = s.charCodeAt(i);
  if (d === CH_TAB) { delimiter = "\t"; i++; } else if (d === CH_PIPE) { delimiter = "|"; i++; }
  if (s.charCodeAt(i) !== CH_RBRACKET) throw new MalformedHeader("malformed bracket segment");
  i++;
  let fields: ToonFieldNode[] | undefined;
  const state = { leafCount: 0, duplicate: false };
  if (s.charCodeAt(i) === CH_LBRACE) {
    fields = [];
    i = parseFieldGroup(s, i, delimiter.charCodeAt(0), fields, 1, state, ctx);
  }
  if (s.charCodeAt(i) !== CH_COLON) throw new MalformedHeader("expected ':' after header");
  const inline = trimToonSpaces(s.slice(i + 1));
  if (keyed && fields === undefined) throw new MalformedHeader("keyed header [N:] requires a fields segment");
  if (fields !== undefined && inline.length > 0) throw new MalformedHeader("content after a fields-bearing header");
  return { key, length, keyed, delimiter, fields, leafCount: state.leafCount, duplicateFields: state.duplicate, inline };
}

/** True when an unquoted field name contains a delimiter other than the active one (§6 mismatch). */
function hasForeignDelimiter(name: string, delimCode: number): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if ((c === CH_COMMA || c === CH_PIPE || c === CH_TAB) && c !== delimCode) return true;
  }
  return false;
}

/**
 * Parses `{entry<delim>entry...}` starting at the `{` at `open`, appending to
 * `out`; returns the index after the matching `}`. Quote-aware; nested groups
 * recurse (bounded by maxDepth).
 */
function parseFieldGroup(
  s: string, open: number, delimCode: number, out: ToonFieldNode[], depth: number,
  state: { leafCount: number; duplicate: boolean }, ctx: ToonLineContext,
): number {
  if (depth > ctx.maxDepth) throw new ToonError(`nested field groups exceed maxDepth ${ctx.maxDepth}`, ctx.lineNo);
  const seen = new Set<string>();
  let i = open + 1;
  for (;;) {
    i = skipSpaces(s, i);
    let name: string;
    if (s.charCodeAt(i) === CH_QUOTE) {
      const q = readToonQuoted(s, i, ctx.strict, ctx.lineNo, ctx.colBase);
      name = q.value;
      i = skipSpaces(s, q.end);
    } else {
      const start = i;
      while (i < s.length) {
        const c = s.charCodeAt(i);
        if (c === delimCode || c === CH_LBRACE || c === CH_RBRACE || c === CH_QUOTE) break;
        i++;
      }
      name = trimToonSpaces(s.slice(start, i));
      if (name.length === 0) throw new MalformedHeader(s.charCodeAt(i) === CH_RBRACE ? "empty fields segment" : "empty field name");
      if (hasForeignDelimiter(name, delimCode)) throw new MalformedHeader("fields segment delimiter differs from the bracket delimiter");
    }
    if (seen.has(name)) state.duplicate = true;
    seen.add(name);
    let children: ToonFieldNode[] | undefined;
    if (s.charCodeAt(i) === CH_LBRACE) {
      children = [];
      i = skipSpaces(s, parseFieldGroup(s, i, delimCode, children, depth + 1, state, ctx));
    } else {
      state.leafCount++;
    }
    out.push({ name, children });
    const c = s.charCodeAt(i);
    if (c === CH_RBRACE) return i + 1;
    if (c !== delimCode) throw new MalformedHeader(i >= s.length ? "unmatched '{' in fields segment" : "unexpected character in fields segment");
    i++;
  }
}
