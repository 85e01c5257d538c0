// Rows checked against the schema given as query(fragment, { rows }): a `t` / JSON Schema
// compiled once (cached by schema object) or any Standard Schema (its output replaces the row).
// A mismatch is a PostgresRowError: the database and the code disagree, a bug, so a 500.
import { compileSchema, foreignSchema, isPromise, issueFields, schemaProblem, type AnySchema, type FieldError, type JsonSchema, type StandardSchemaV1 } from "../plugin.js";
import { PostgresRowError } from "./errors.js";
import type { Rows } from "./connection.js";

type Check = (row: unknown, index: number) => unknown;

/** Compiled checks by schema; weak, so schemas built on the fly do not pile up. */
const checks = new WeakMap<object, Check>();

function checkFor(schema: AnySchema): Check {
  const key = schema as object;
  let check = checks.get(key);
  if (check !== undefined) return check;
  const problem = schemaProblem(schema);
  if (problem !== undefined) throw new TypeError(`the rows schema ${problem}`);
  const foreign = foreignSchema(schema);
  if (foreign !== null) {
    const std = foreign["~standard"];
    check = (row, index) => {
      const settle = (r: StandardSchemaV1.Result<unknown>): unknown => {
        if (r.issues !== undefined) throw new PostgresRowError(index, issueFields(r.issues));
        return r.value;
      };
      const result = std.validate(row);
      return isPromise(result) ? result.then(settle) : settle(result);
    };
  } else {
    const compiled = compileSchema(schema as JsonSchema);
    check = (row, index) => {
      const fields: FieldError[] | null = compiled.validate(row);
      if (fields !== null) throw new PostgresRowError(index, fields);
      return row;
    };
  }
  checks.set(key, check);
  return check;
}

/** The rows, each checked (and, for a Standard Schema, replaced by its output); `count` kept. */
export async function checkRows(rows: Rows, schema: AnySchema): Promise<Rows> {
  const check = checkFor(schema);
  for (let i = 0; i < rows.length; i++) {
    const out = check(rows[i], i);
    rows[i] = (isPromise(out) ? await out : out) as Rows[number];
  }
  return rows;
}
