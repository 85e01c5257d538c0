/**
 * TOON spec v4 encoder: objects (§8), inline/tabular/list arrays (§9.1–§9.4),
 * keyed tabular objects (§9.5), list-item objects (§10), delimiters (§11),
 * whitespace invariants (§12: LF, no trailing spaces or final newline).
 * The encoder writes every header with the document delimiter, so the active
 * delimiter always equals the document delimiter.
 */
import { formatToonNumber } from "./numbers.js";
import { normalizeToonValue } from "./normalize.js";
import { resolveToonEncodeOptions, type ToonDelimiter, type ToonEncodeOptions } from "./options.js";
import { encodeToonKey, encodeToonStringValue } from "./quote.js";
import { detectToonKeyedObject, detectToonTabularArray, type ToonShapeField } from "./shape.js";
import type { ToonJsonObject, ToonJsonValue } from "./values.js";

/** Encodes a value (normalized per §3, see normalize.ts) as TOON text. Throws ToonError on cycles. */
export function encodeToon(value: unknown, options?: ToonEncodeOptions): string {
  const opts = resolveToonEncodeOptions(options);
  return new ToonEncoder(opts.delimiter, opts.indentSize).encodeRoot(normalizeToonValue(value));
}

function isPrimitive(v: ToonJsonValue): v is string | number | boolean | null {
  return v === null || typeof v !== "object";
}

class ToonEncoder {
  private readonly out: string[] = [];
  private readonly indents: string[] = [""];
  /** Delimiter symbol written inside brackets: none for comma (§6). */
  private readonly delimSym: string;

  constructor(private readonly delimiter: ToonDelimiter, private readonly indentSize: number) {
    this.delimSym = delimiter === "," ? "" : delimiter;
  }

  private indent(depth: number): string {
    let s = this.indents[depth];
    if (s === undefined) {
      s = " ".repeat(depth * this.indentSize);
      this.indents[depth] = s;
    }
    return s;
  }

  private primitive(v: string | number | boolean | null): string {
    if (typeof v === "string") return encodeToonStringValue(v, this.delimiter);
    if (typeof v === "number") return formatToonNumber(v);
    return v === null ? "null" : v ? "true" : "false";
  }

  encodeRoot(value: ToonJsonValue): string {
    if (isPrimitive(value)) return this.primitive(value);
    if (Array.isArray(value)) {
      if (value.length === 0) return "[]"; // §9.1 root empty array
      this.fieldArray("", "", value, 0);
    } else {
      const keys = Object.keys(value);
      const shape = detectToonKeyedObject(value, keys);
      if (shape !== undefined) this.keyedObject("", "", value, keys, shape, 0); // §9.5 keyless root form
      else this.fields(value, keys, 0);
    }
    return this.out.join("\n");
  }

  private fields(obj: ToonJsonObject, keys: readonly string[], depth: number): void {
    const prefix = this.indent(depth);
    for (const key of keys) this.field(prefix, key, obj[key]!, depth);
  }

  /** One field whose line starts with `prefix` and stands at fieldDepth (content at fieldDepth + 1). */
  private field(prefix: string, key: string, value: ToonJsonValue, fieldDepth: number): void {
    const k = encodeToonKey(key);
    if (isPrimitive(value)) {
      this.out.push(`${prefix}${k}: ${this.primitive(value)}`);
    } else if (Array.isArray(value)) {
      if (value.length === 0) this.out.push(`${prefix}${k}: []`);
      else this.fieldArray(prefix, k, value, fieldDepth);
    } else {
      const keys = Object.keys(value);
      const shape = detectToonKeyedObject(value, keys);
      if (shape !== undefined) {
        this.keyedObject(prefix, k, value, keys, shape, fieldDepth);
      } else {
        this.out.push(`${prefix}${k}:`);
        if (keys.length > 0) this.fields(value, keys, fieldDepth + 1);
      }
    }
  }

  /** Non-empty array with header `k[N]…` (k is "" at the root). */
  private fieldArray(prefix: string, k: string, arr: readonly ToonJsonValue[], depth: number): void {
    if (this.inlineArray(prefix, k, arr)) return;
    const shape = detectToonTabularArray(arr);
    if (shape !== undefined) {
      this.out.push(`${prefix}${k}[${arr.length}${this.delimSym}]${this.fieldList(shape)}:`);
      const rowIndent = this.indent(depth + 1);
      for (const row of arr) this.out.push(rowIndent + this.cells(row as ToonJsonObject, shape));
      return;
    }
    this.out.push(`${prefix}${k}[${arr.length}${this.delimSym}]:`);
    for (const item of arr) this.listItem(item, depth + 1);
  }

  /** §9.1 inline primitive array; returns false when some element is not a primitive. */
  private inlineArray(prefix: string, k: string, arr: readonly ToonJsonValue[]): boolean {
    let line = `${prefix}${k}[${arr.length}${this.delimSym}]:`;
    for (let i = 0; i < arr.length; i++) {
      const v = arr[i]!;
      if (!isPrimitive(v)) return false;
      line += (i === 0 ? " " : this.delimiter) + this.primitive(v);
    }
    this.out.push(line);
    return true;
  }

  /** §9.5 keyed tabular object: `k[N:]{fields}:` and one entry row per entry. */
  private keyedObject(
    prefix: string, k: string, obj: ToonJsonObject, keys: readonly string[], shape: readonly ToonShapeField[], depth: number,
  ): void {
    this.out.push(`${prefix}${k}[${keys.length}:${this.delimSym}]${this.fieldList(shape)}:`);
    const rowIndent = this.indent(depth + 1);
    for (const key of keys) {
      this.out.push(`${rowIndent}${encodeToonKey(key)}: ${this.cells(obj[key] as ToonJsonObject, shape)}`);
    }
  }

  /** `{f1,f2{a,b}}` with §7.3 key encoding at every level. */
  private fieldList(shape: readonly ToonShapeField[]): string {
    let s = "{";
    for (let i = 0; i < shape.length; i++) {
      const f = shape[i]!;
      if (i > 0) s += this.delimiter;
      s += encodeToonKey(f.key);
      if (f.children !== undefined) s += this.fieldList(f.children);
    }
    return s + "}";
  }

  /** Row cells in depth-first pre-order of the field tree (§9.3). */
  private cells(obj: ToonJsonObject, shape: readonly ToonShapeField[]): string {
    let s = "";
    for (let i = 0; i < shape.length; i++) {
      const f = shape[i]!;
      if (i > 0) s += this.delimiter;
      const v = obj[f.key]!;
      s += f.children === undefined ? this.primitive(v as string | number | boolean | null) : this.cells(v as ToonJsonObject, f.children);
    }
    return s;
  }

  /** §9.4 / §10 list item whose hyphen stands at depth. */
  private listItem(value: ToonJsonValue, depth: number): void {
    const prefix = this.indent(depth) + "- ";
    if (isPrimitive(value)) {
      this.out.push(prefix + this.primitive(value));
    } else if (Array.isArray(value)) {
      // Keyless arrays in list items: inline or expanded list, never tabular (§9.4); empty is `- [0]:` (§9.2).
      if (this.inlineArray(prefix, "", value)) return;
      this.out.push(`${prefix}[${value.length}${this.delimSym}]:`);
      for (const item of value) this.listItem(item, depth + 1);
    } else {
      const keys = Object.keys(value);
      if (keys.length === 0) {
        this.out.push(this.indent(depth) + "-");
        return;
      }
      // First field on the hyphen line at depth + 1; the rest at depth + 1 (§10).
      this.field(prefix, keys[0]!, value[keys[0]!]!, depth + 1);
      const restPrefix = this.indent(depth + 1);
      for (let i = 1; i < keys.length; i++) this.field(restPrefix, keys[i]!, value[keys[i]!]!, depth + 1);
    }
  }
}

