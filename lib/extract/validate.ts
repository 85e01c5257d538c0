// Runs a compiled schema against an extracted value and turns failures into the 422 body.
import type { Context } from "../core/context.js";
import { ApiError, type ValidationField } from "../core/errors.js";
import { compileSchema, useSchemas, foreignSchema, issueFields, schemaProblem, SchemaAsyncRuleError, type AnySchema, type CompiledSchema, type CompileOptions, type StandardSchemaV1 } from "../schema/index.js";
import { isPromise } from "../util/is-promise.js";

function prefixFields(errors: readonly ValidationField[], prefix: string): ValidationField[] {
  if (prefix === "") return errors.map((e) => (e.field === "" ? { ...e, field: "body" } : e));
  return errors.map((e) => ({
    ...e,
    field: e.field === "" ? prefix : e.field.startsWith("[") ? prefix + e.field : `${prefix}.${e.field}`,
  }));
}

/**
 * Validate `value` (already coerced where the schema asks for it). Sync rules first; the async
 * rules (uniqueness, custom) run only when every sync rule passed. `prefix` names the root field
 * ("" for a body: its fields are reported as they are).
 */
export function runValidation<T>(compiled: CompiledSchema<T>, value: unknown, ctx: Context, prefix: string): T | Promise<T> {
  const errors = compiled.validate(value);
  if (errors !== null) throw ApiError.validation(prefixFields(errors, prefix));
  if (!compiled.hasAsyncRules) return value as T;
  const rt = ctx.runtime;
  const pending = compiled.runAsync(value, rt.validation, rt.asyncRuleTimeout);
  const settle = (asyncErrors: readonly ValidationField[]): T => {
    if (asyncErrors.length > 0) throw ApiError.validation(prefixFields(asyncErrors, prefix));
    return value as T;
  };
  return isPromise(pending) ? pending.then(settle, asyncRuleFailure) : settle(pending);
}

/** A rule's adapter that is missing, fails or times out is our problem, not the client's: 5xx. */
function asyncRuleFailure(err: unknown): never {
  if (err instanceof SchemaAsyncRuleError) {
    const options = { detail: err.message, cause: err };
    if (err.reason === "timeout") throw ApiError.serviceUnavailable("Validation could not be completed in time", options);
    throw ApiError.internal("Validation could not be completed", options);
  }
  throw err;
}

/** A foreign schema's result: the validated value, or the uniform 422 with one field per issue. */
function settleForeign(result: StandardSchemaV1.Result<unknown>, prefix: string): unknown {
  if (result.issues !== undefined) throw ApiError.validation(prefixFields(issueFields(result.issues), prefix));
  return result.value;
}

/**
 * Validate `value` with another library's Standard Schema (sync or async `validate`). The value
 * it returns (coerced, transformed, stripped) is what the handler gets.
 */
export function runStandard(schema: StandardSchemaV1, value: unknown, prefix: string): unknown {
  const result = schema["~standard"].validate(value);
  return isPromise(result) ? result.then((r) => settleForeign(r, prefix)) : settleForeign(result, prefix);
}

/** How a schema extractor checks its (already read) value. */
export interface SchemaCheck {
  /** keel's compiled validator (JSON Schema, `t`), or null for a foreign Standard Schema. */
  readonly compiled: CompiledSchema | null;
  /** The foreign Standard Schema, or null. */
  readonly foreign: StandardSchemaV1 | null;
  /** Why the schema was refused (neither JSON Schema nor Standard Schema), naming the extractor: App.route adds the route. */
  readonly refused: string | undefined;
}

/** Sorts a schema given to an extractor: keel compiles JSON Schema; a Standard Schema validates itself. */
export function schemaCheck(label: string, schema: AnySchema, options: CompileOptions): SchemaCheck {
  useSchemas(); // a foreign schema compiles nothing, yet its route's declared responses may need the compilers
  const foreign = foreignSchema(schema);
  if (foreign !== null) return { compiled: null, foreign, refused: undefined };
  const refused = schemaProblem(schema);
  if (refused !== undefined) return { compiled: null, foreign: null, refused: `the schema of extractor ${label} ${refused}` };
  return { compiled: compileSchema(schema as Exclude<AnySchema, StandardSchemaV1>, options), foreign: null, refused: undefined };
}

/** The extract step of a refused schema, should the extractor run outside a route (App.route refuses it first). */
export function refusedSchema(refused: string): () => never {
  return () => {
    throw ApiError.internal("Internal server error", { detail: refused });
  };
}
