/**
 * TOON spec v4 decoder: root form (§5), objects (§8), arrays (§9), list-item
 * objects (§10), blank lines and array spans (§12), strict checks (§14).
 * One pass over the pre-split lines with a cursor; every line is classified a
 * bounded number of times, so work is linear in the input.
 */
import { ToonError } from "./errors.js";
import { classifyToonLine, type ToonHeader, type ToonLineContext, type ToonLineKind } from "./header.js";
import { splitToonLines, type ToonLine } from "./lines.js";
import { resolveToonDecodeOptions, type ToonDecodeOptions, type ToonResolvedDecodeOptions } from "./options.js";
import { buildToonRow, splitToonRowCells } from "./rows.js";
import { indexOfUnquoted, parseToonPrimitive, splitToonDelimited, trimToonSpaces } from "./scan.js";
import { readToonQuoted } from "./unescape.js";
import { createToonObject, type ToonJsonObject, type ToonJsonValue } from "./values.js";

const CH_COLON = 0x3a;
const CH_QUOTE = 0x22;

/**
 * Decodes TOON text to a JSON value. Objects are null-prototype objects
 * (`__proto__` etc. are plain own keys, §15). Throws ToonError on any error,
 * including the limits `maxLength` (input size) and `maxDepth` (nesting).
 */
export function decodeToon(text: string, options?: ToonDecodeOptions): unknown {
  const opts = resolveToonDecodeOptions(options);
  if (typeof text !== "string") throw new ToonError("decodeToon expects a string");
  if (text.length > opts.maxLength) {
    throw new ToonError(`input length ${text.length} exceeds maxLength ${opts.maxLength}`);
  }
  try {
    return new ToonDecoder(splitToonLines(text, opts.indentSize, opts.strict), opts).decodeDocument();
  } catch (err) {
    if (err instanceof ToonError) throw err;
    // Last-resort guard: stack or string-size exhaustion must still surface as a ToonError.
    if (err instanceof RangeError) throw new ToonError(`input too large or too deeply nested: ${err.message}`);
    throw err;
  }
}

class ToonDecoder {
  private pos = 0;
  /** Number of array spans (§12) the cursor is currently inside. */
  private spanDepth = 0;
  private nesting = 0;
  private readonly strict: boolean;

  constructor(private readonly lines: readonly ToonLine[], private readonly opts: ToonResolvedDecodeOptions) {
    this.strict = opts.strict;
  }

  // ---- cursor -------------------------------------------------------------

  /** Index of the next non-blank line at or after the cursor, or -1. */
  private peek(): number {
    const lines = this.lines;
    for (let i = this.pos; i < lines.length; i++) if (!lines[i]!.blank) return i;
    return -1;
  }

  /** Takes line `idx` as content of the current scope; blank lines skipped inside an array span are a strict error (§12). */
  private consume(idx: number): ToonLine {
    if (idx > this.pos && this.spanDepth > 0 && this.strict) {
      throw new ToonError("blank line inside an array", this.lines[this.pos]!.lineNo);
    }
    this.pos = idx + 1;
    return this.lines[idx]!;
  }

  /** §8 / §14.2: a line deeper than its scope's content depth. Strict: error; non-strict: skipped. */
  private overIndented(idx: number, jump: boolean): void {
    const line = this.lines[idx]!;
    if (this.strict) {
      throw new ToonError(jump ? "indentation jumps more than one level" : "unexpected indentation: line belongs to no scope", line.lineNo, line.colBase + 1);
    }
    this.pos = idx + 1;
  }

  private enter(lineNo: number): void {
    if (++this.nesting > this.opts.maxDepth) {
      throw new ToonError(`nesting exceeds maxDepth ${this.opts.maxDepth}`, lineNo);
    }
  }

  private leave(): void {
    this.nesting--;
  }

  private ctx(line: ToonLine, offset = 0): ToonLineContext {
    return { strict: this.strict, maxDepth: this.opts.maxDepth, lineNo: line.lineNo, colBase: line.colBase + offset };
  }

  // ---- root form (§5) -----------------------------------------------------

  decodeDocument(): ToonJsonValue {
    const first = this.peek();
    if (first < 0) return createToonObject();
    const line = this.lines[first]!;
    if (line.depth !== 0 && this.strict) this.overIndented(first, false);
    const rootDepth = line.depth;
    const content = line.content;
    if (content === "[]") {
      this.consume(first);
      this.expectEnd();
      return [];
    }
    const kind = classifyToonLine(content, this.ctx(line));
    if (kind.kind === "header" && kind.header.key === undefined) {
      this.consume(first);
      this.enter(line.lineNo);
      const value = kind.header.keyed
        ? this.parseKeyedEntries(kind.header, rootDepth, line)
        : this.parseArrayBody(kind.header, rootDepth, line);
      this.expectEnd();
      return value;
    }
    if (kind.kind === "scalar" && this.isOnlyLine(first)) {
      this.consume(first);
      return parseToonPrimitive(content, this.strict, line.lineNo, line.colBase);
    }
    const root = createToonObject();
    this.enter(line.lineNo);
    this.parseObjectBody(root, rootDepth);
    return root;
  }

  private isOnlyLine(idx: number): boolean {
    for (let i = idx + 1; i < this.lines.length; i++) if (!this.lines[i]!.blank) return false;
    return true;
  }

  /** §5: nothing may follow a completed root array / keyed root / `[]` (strict). */
  private expectEnd(): void {
    const idx = this.peek();
    if (idx >= 0 && this.strict) {
      throw new ToonError("unexpected content after the root value", this.lines[idx]!.lineNo);
    }
  }

  // ---- objects (§8, §10) ----------------------------------------------------

  private parseObjectBody(obj: ToonJsonObject, depth: number): void {
    for (;;) {
      const idx = this.peek();
      if (idx < 0) return;
      const line = this.lines[idx]!;
      if (line.depth < depth) return;
      if (line.depth > depth) {
        this.overIndented(idx, false);
        continue;
      }
      this.consume(idx);
      this.parseField(obj, classifyToonLine(line.content, this.ctx(line)), line.content, line.colBase, depth, line);
    }
  }

  /** One object field whose line stands at `fieldDepth`; its scope content is at fieldDepth + 1. */
  private parseField(obj: ToonJsonObject, kind: ToonLineKind, content: string, colBase: number, fieldDepth: number, line: ToonLine): void {
    if (kind.kind === "scalar") {
      throw new ToonError("expected 'key: value' (missing colon)", line.lineNo, colBase + 1);
    }
    if (kind.kind === "field") {
      const v = kind.value;
      let value: ToonJsonValue;
      if (v.length === 0) value = this.parseNestedObject(fieldDepth, line);
      else if (v === "[]") value = [];
      else value = parseToonPrimitive(v, this.strict, line.lineNo, colBase + kind.valueOffset);
      this.setKey(obj, kind.key, value, line);
      return;
    }
    const header = kind.header;
    if (header.key === undefined) {
      if (this.strict) throw new ToonError("a keyless array header is only valid at the root or after '- '", line.lineNo, line.colBase + 1);
      // Non-strict (§6): the line is a key-value line with a literal key.
      const colon = content.indexOf(":");
      const v = trimToonSpaces(content.slice(colon + 1));
      this.setKey(obj, trimToonSpaces(content.slice(0, colon)), v.length === 0 ? this.parseNestedObject(fieldDepth, line) : parseToonPrimitive(v, false, line.lineNo), line);
      return;
    }
    this.enter(line.lineNo);
    const value = header.keyed ? this.parseKeyedEntries(header, fieldDepth, line) : this.parseArrayBody(header, fieldDepth, line);
    this.leave();
    this.setKey(obj, header.key, value, line);
  }

  private setKey(obj: ToonJsonObject, key: string, value: ToonJsonValue, line: ToonLine): void {
    // §14.3: strict rejects duplicate sibling keys; non-strict is last-write-wins.
    if (this.strict && key in obj) throw new ToonError(`duplicate key ${JSON.stringify(key)}`, line.lineNo);
    obj[key] = value;
  }

  /** `key:` with nothing after the colon: nested object at fieldDepth + 1, or {} (§8). */
  private parseNestedObject(fieldDepth: number, line: ToonLine): ToonJsonObject {
    const obj = createToonObject();
    const idx = this.peek();
    if (idx < 0 || this.lines[idx]!.depth <= fieldDepth) return obj;
    let childDepth = fieldDepth + 1;
    if (this.lines[idx]!.depth !== childDepth) {
      if (this.strict) this.overIndented(idx, true);
      childDepth = this.lines[idx]!.depth; // non-strict: accept the jump
    }
    this.enter(line.lineNo);
    this.parseObjectBody(obj, childDepth);
    this.leave();
    return obj;
  }

  // ---- arrays (§9) ---------------------------------------------------------

  /** Array after a non-keyed header standing at headerDepth; rows/items at headerDepth + 1. */
  private parseArrayBody(header: ToonHeader, headerDepth: number, line: ToonLine): ToonJsonValue[] {
    if (header.fields !== undefined) return this.parseTabularRows(header, headerDepth, line);
    if (header.inline.length > 0) {
      const tokens = splitToonDelimited(header.inline, header.delimiter.charCodeAt(0));
      this.checkCount(tokens.length, header, "values", line);
      const out: ToonJsonValue[] = new Array(tokens.length);
      for (let i = 0; i < tokens.length; i++) out[i] = parseToonPrimitive(tokens[i]!, this.strict, line.lineNo);
      return out;
    }
    return this.parseListItems(header, headerDepth, line);
  }

  private checkCount(actual: number, header: ToonHeader, what: string, line: ToonLine): void {
    // §14.1: counts are checked only in strict mode and only against an explicit [N].
    if (this.strict && actual !== header.length) {
      throw new ToonError(`expected ${header.length} ${what}, found ${actual}`, line.lineNo);
    }
  }

  /**
   * Shared scope walk for rows, entries and list items: returns the index of the
   * next line belonging to the scope at `depth`, or -1 when the scope ends.
   * Handles over-indentation and (non-strict) adoption of a deeper first line.
   */
  private nextScopeLine(scope: { depth: number; started: boolean }): number {
    for (;;) {
      const idx = this.peek();
      if (idx < 0) return -1;
      const d = this.lines[idx]!.depth;
      if (d < scope.depth) return -1;
      if (d === scope.depth) return idx;
      if (!scope.started && !this.strict) {
        scope.depth = d;
        return idx;
      }
      this.overIndented(idx, !scope.started);
    }
  }

  private markStarted(scope: { depth: number; started: boolean }): void {
    if (!scope.started) {
      scope.started = true;
      this.spanDepth++;
    }
  }

  private endScope(scope: { depth: number; started: boolean }): void {
    if (scope.started) this.spanDepth--;
  }

  /** §9.3 tabular rows; a colon-before-delimiter line at row depth ends the rows. */
  private parseTabularRows(header: ToonHeader, headerDepth: number, line: ToonLine): ToonJsonValue[] {
    if (this.strict && header.duplicateFields) throw new ToonError("duplicate field names in header", line.lineNo);
    const rows: ToonJsonValue[] = [];
    const scope = { depth: headerDepth + 1, started: false };
    const delimCode = header.delimiter.charCodeAt(0);
    for (;;) {
      const idx = this.nextScopeLine(scope);
      if (idx < 0) break;
      const content = this.lines[idx]!.content;
      if (content.indexOf(":") >= 0) {
        const colon = indexOfUnquoted(content, CH_COLON);
        if (colon >= 0) {
          const delim = indexOfUnquoted(content, delimCode);
          if (delim < 0 || colon < delim) break;
        }
      }
      const rowLine = this.consume(idx);
      this.markStarted(scope);
      rows.push(buildToonRow(header, splitToonDelimited(content, delimCode), this.strict, rowLine.lineNo));
    }
    this.endScope(scope);
    this.checkCount(rows.length, header, "rows", line);
    return rows;
  }

  /** §9.5 keyed entry rows: `entrykey: cells`, every colon line at entry depth is an entry. */
  private parseKeyedEntries(header: ToonHeader, headerDepth: number, line: ToonLine): ToonJsonObject {
    if (this.strict && header.duplicateFields) throw new ToonError("duplicate field names in header", line.lineNo);
    const obj = createToonObject();
    const scope = { depth: headerDepth + 1, started: false };
    let count = 0;
    for (;;) {
      const idx = this.nextScopeLine(scope);
      if (idx < 0) break;
      const entryLine = this.lines[idx]!;
      const content = entryLine.content;
      let key: string;
      let cellsStart: number;
      if (content.charCodeAt(0) === CH_QUOTE) {
        const q = readToonQuoted(content, 0, this.strict, entryLine.lineNo, entryLine.colBase);
        let i = q.end;
        while (content.charCodeAt(i) === 0x20) i++;
        key = q.value;
        cellsStart = content.charCodeAt(i) === CH_COLON ? i + 1 : -1;
      } else {
        const colon = content.indexOf(":");
        key = colon < 0 ? "" : trimToonSpaces(content.slice(0, colon));
        cellsStart = colon < 0 ? -1 : colon + 1;
      }
      if (cellsStart < 0) {
        if (this.strict) throw new ToonError("expected 'key: cells' entry row", entryLine.lineNo, entryLine.colBase + 1);
        this.pos = idx + 1;
        continue;
      }
      this.consume(idx);
      this.markStarted(scope);
      const cells = splitToonRowCells(trimToonSpaces(content.slice(cellsStart)), header);
      this.setKey(obj, key, buildToonRow(header, cells, this.strict, entryLine.lineNo), entryLine);
      count++;
    }
    this.endScope(scope);
    this.checkCount(count, header, "entries", line);
    return obj;
  }

  /** §9.2 / §9.4 expanded list: `- ` items at headerDepth + 1. */
  private parseListItems(header: ToonHeader, headerDepth: number, line: ToonLine): ToonJsonValue[] {
    const items: ToonJsonValue[] = [];
    const scope = { depth: headerDepth + 1, started: false };
    for (;;) {
      const idx = this.nextScopeLine(scope);
      if (idx < 0) break;
      const itemLine = this.lines[idx]!;
      const content = itemLine.content;
      if (!(content === "-" || content.startsWith("- "))) {
        if (this.strict) throw new ToonError("expected a list item starting with '- '", itemLine.lineNo, itemLine.colBase + 1);
        break;
      }
      this.consume(idx);
      this.markStarted(scope);
      items.push(this.parseListItem(itemLine, scope.depth));
      if (this.strict && items.length > header.length) break;
    }
    this.endScope(scope);
    this.checkCount(items.length, header, "list items", line);
    return items;
  }

  /** §10 / B.5: one list item whose hyphen stands at itemDepth. */
  private parseListItem(line: ToonLine, itemDepth: number): ToonJsonValue {
    const raw = line.content;
    let offset = 1;
    while (raw.charCodeAt(offset) === 0x20) offset++;
    const rest = trimToonSpaces(raw.slice(offset));
    if (rest.length === 0) return createToonObject();
    if (rest === "[]") return [];
    const kind = classifyToonLine(rest, this.ctx(line, offset));
    if (kind.kind === "scalar") return parseToonPrimitive(rest, this.strict, line.lineNo);
    if (kind.kind === "header" && kind.header.key === undefined) {
      const header = kind.header;
      if (header.fields !== undefined && this.strict) {
        throw new ToonError("a keyless tabular or keyed header is only valid at the root", line.lineNo, line.colBase + offset + 1);
      }
      if (header.fields === undefined) {
        this.enter(line.lineNo);
        const arr = this.parseArrayBody(header, itemDepth, line);
        this.leave();
        return arr;
      }
    }
    // Object with its first field on the hyphen line; its fields stand at itemDepth + 1.
    const obj = createToonObject();
    this.enter(line.lineNo);
    this.parseField(obj, kind, rest, line.colBase + offset, itemDepth + 1, line);
    this.parseObjectBody(obj, itemDepth + 1);
    this.leave();
    return obj;
  }
}
