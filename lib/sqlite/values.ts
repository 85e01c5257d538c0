// JavaScript values to SQLite parameters and SQLite values back. SQLite stores five kinds:
// integer, real, text, blob and null. Parameters: numbers, bigints, strings, null, Buffers and
// typed arrays bind as themselves; a boolean binds as 1/0 (SQLite's own TRUE/FALSE); a Date as
// ISO 8601 text (what SQLite's date functions read); a plain object or an array as JSON text
// (what its json functions read). `undefined`, NaN and other objects are refused: a missing
// value or a class instance reaching a statement is a bug, better found than stored as NULL.
// Reads: integers are numbers, or bigints past Number.MAX_SAFE_INTEGER (or always, with
// `integers: "bigint"`); blobs are Buffers; rows are plain objects.

export type IntegerMode = "number" | "bigint";

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The parameter node:sqlite binds for `value`; throws a TypeError naming the position. */
export function toParameter(value: unknown, position: number): unknown {
  switch (typeof value) {
    case "string":
    case "bigint":
      return value;
    case "number":
      if (Number.isNaN(value)) throw new TypeError(`keel/sqlite: parameter ${position} is NaN`);
      return value;
    case "boolean":
      return value ? 1 : 0;
    case "object":
      if (value === null || ArrayBuffer.isView(value)) return value;
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) throw new TypeError(`keel/sqlite: parameter ${position} is an invalid Date`);
        return value.toISOString();
      }
      if (Array.isArray(value) || isPlainObject(value)) return JSON.stringify(value);
      throw new TypeError(`keel/sqlite: parameter ${position} is a ${value.constructor?.name ?? "object"}; pass a string, number, bigint, boolean, Date, Buffer, null, or a plain object/array (stored as JSON)`);
    default:
      throw new TypeError(`keel/sqlite: parameter ${position} is ${value === undefined ? "undefined" : `a ${typeof value}`}; pass null for SQL NULL`);
  }
}

/** Converts the rendered values in place (they are a fresh array from renderSql). */
export function toParameters(values: unknown[]): unknown[] {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    // Strings and null bind as they are; everything else is checked or converted.
    if (typeof value !== "string" && value !== null) values[i] = toParameter(value, i + 1);
  }
  return values;
}

function fromValue(value: unknown, integers: IntegerMode): unknown {
  if (typeof value === "bigint") {
    if (integers === "bigint") return value;
    return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value;
  }
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

/**
 * Plain-object rows with keel's types. The statement read integers as bigints (so none is ever
 * rounded); the safe ones become numbers here. node:sqlite's rows have a null prototype: copied
 * into plain objects, which every serializer and `assert.deepStrictEqual` treat as ordinary.
 */
export function fromRows(rows: Record<string, unknown>[], integers: IntegerMode): Record<string, unknown>[] {
  for (let i = 0; i < rows.length; i++) {
    const raw = rows[i]!;
    const row: Record<string, unknown> = {};
    for (const key in raw) {
      // A column named __proto__ must stay a column, not become the row's prototype.
      if (key === "__proto__") Object.defineProperty(row, key, { value: fromValue(raw[key], integers), enumerable: true, writable: true, configurable: true });
      else row[key] = fromValue(raw[key], integers);
    }
    rows[i] = row;
  }
  return rows;
}
