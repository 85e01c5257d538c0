// Runs a compiled schema against an extracted value and turns failures into the 422 body.
import type { Context } from "../core/context.js";
import { ApiError, type ValidationField } from "../core/errors.js";
import { SchemaAsyncRuleError, type CompiledSchema } from "../schema/index.js";
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
