// Rows checked against the schema a query names: a `t` schema (JSON Schema, compiled once per
// schema object) or any Standard Schema. A row that does not match is our bug (the table and the
// code disagree): the query rejects with a plain Error, which the app answers as a 500.
import type { AnySchema } from "../index.js";
import { compileSchema, foreignSchema, isPromise, issueFields, type FieldError, type JsonSchema } from "../plugin.js";

/** The failed rules (null when the row matches) and the row to return (a Standard Schema's output). */
interface Checked {
  fields: FieldError[] | null;
  value: unknown;
}
type Check = (row: unknown) => Checked | Promise<Checked>;

// Keyed by the schema object: an app's row schemas are module constants, so this stays small,
// and a WeakMap lets a schema made per call be collected with its compiled check.
const checks = new WeakMap<object, Check>();

function checkFor(schema: AnySchema): Check {
  let check = checks.get(schema as object);
  if (check !== undefined) return check;
  const foreign = foreignSchema(schema);
  if (foreign !== null) {
    const std = foreign["~standard"];
    const checked = (r: { issues?: readonly unknown[] | undefined; value?: unknown }): Checked =>
      r.issues === undefined ? { fields: null, value: r.value } : { fields: issueFields(r.issues as Parameters<typeof issueFields>[0]), value: undefined };
    check = (row) => {
      const r = std.validate(row);
      return isPromise(r) ? r.then(checked) : checked(r);
    };
  } else {
    const compiled = compileSchema(schema as JsonSchema);
    check = (row) => ({ fields: compiled.validate(row), value: row });
  }
  checks.set(schema as object, check);
  return check;
}

function mismatch(index: number, fields: FieldError[]): Error {
  const what = fields.slice(0, 3).map((f) => `${f.field || "$"}: ${f.message}`).join("; ");
  return new Error(`keel/sqlite: row ${index} does not match the rows schema (${what})`);
}

/** Resolves when every row matches `schema` (each replaced by the schema's output); rejects with the first that does not. */
export async function checkRows(rows: unknown[], schema: AnySchema): Promise<void> {
  const check = checkFor(schema);
  for (let i = 0; i < rows.length; i++) {
    let checked = check(rows[i]);
    if (isPromise(checked)) checked = await checked;
    if (checked.fields !== null && checked.fields.length > 0) throw mismatch(i, checked.fields);
    rows[i] = checked.value;
  }
}
