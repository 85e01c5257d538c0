// compileSchema: the one entry every schema compiles through (extractors, response contracts,
// keel/plugin). Compiles once (at route registration); validating is then one call per value with
// a reused state object and no allocation unless something fails.
//
// Two engines, measured on the create-user body with callgrind (instructions per validation,
// deterministic; ajv 8 with allErrors for comparison): generated code 1,295 valid / 1,616 invalid,
// closures 3,013 / 4,245, ajv 1,362 / 1,372. Closures pay for megamorphic calls between many small
// functions; generated code inlines a whole subtree. The kernel holds the code generator and
// compiles what `t` builds (kernel-compiler.ts). keel/schema registers the full 2020-12 engine
// here when imported (registerSchemaCompiler): generated code for local keywords, its closure
// compiler for the rest ($ref, applicators, unevaluated*, $dynamicRef) and as the whole engine
// when `new Function` is not allowed or `codegen: false` is passed.
import { schemaName } from "./schema-marks.js";
import { coercerFor } from "./coerce.js";
import { KernelCompiler, SchemaEngineRequired } from "./kernel-compiler.js";
import { ValidationState, type Check } from "./state.js";
import type { CompiledSchema, CompileOptions, FieldError, JsonSchema, Static } from "./types.js";

export const DEFAULT_MAX_ERRORS = 100;
export const DEFAULT_MAX_REF_DEPTH = 512;

/** A schema compiler as keel/schema registers it. */
export type SchemaCompiler = <S extends JsonSchema>(schema: S, options?: CompileOptions) => CompiledSchema<Static<S>>;

let engine: SchemaCompiler | null = null;

/**
 * Installs the engine every later compileSchema call uses (keel/schema calls it when imported).
 * Schemas already compiled keep their validators.
 */
export function registerSchemaCompiler(compile: SchemaCompiler): void {
  engine = compile;
}

function depthError(): FieldError[] {
  return [{ field: "", code: "depth", message: "is nested too deeply" }];
}

function invalid(): FieldError[] {
  return [{ field: "", code: "invalid", message: "is invalid" }];
}

// The entry point. Stack exhaustion on hostile nesting (deep arrays under a recursive schema, huge
// const comparisons) is reported as a `depth` error, never a crash.
const VALIDATE_SOURCE = `return function validate(value) {
  state.reset();
  if (dynamic) state.scope.push(base);
  let ok;
  try {
    ok = root(value, state, null);
  } catch (error) {
    if (error instanceof RangeError) return depthError();
    throw error;
  }
  return ok ? null : state.errors ?? invalid();
};`;

export type Validate = (value: unknown) => FieldError[] | null;

/**
 * The validate function around a compiled root check. With codegen, every schema gets its own
 * copy of the entry function: a single shared closure would see all roots at its `root(...)` call
 * site and go megamorphic in an app with many routes.
 */
export function makeValidate(codegen: boolean, state: ValidationState, dynamic: boolean, base: string, root: Check): Validate {
  const factory = (codegen ? tryFunction() : null) ?? ((...args: unknown[]) => sharedValidate(...(args as Parameters<typeof sharedValidate>)));
  return factory(state, dynamic, base, root, depthError, invalid);
}

function tryFunction(): ((...args: unknown[]) => Validate) | null {
  try {
    return new Function("state", "dynamic", "base", "root", "depthError", "invalid", VALIDATE_SOURCE) as (...args: unknown[]) => Validate;
  } catch {
    return null;
  }
}

function sharedValidate(state: ValidationState, dynamic: boolean, base: string, root: Check): Validate {
  return (value) => {
    state.reset();
    if (dynamic) state.scope.push(base);
    let ok: boolean;
    try {
      ok = root(value, state, null);
    } catch (error) {
      if (error instanceof RangeError) return depthError();
      throw error;
    }
    return ok ? null : (state.errors ?? invalid());
  };
}

/**
 * The `t.named` schemas reachable from `schema` (itself included), by name: what a
 * `t.ref("Name")` inside it refers to, so recursive named schemas compile without a
 * `components` option. Cycle-safe and bounded.
 */
export function namedSchemasWithin(schema: JsonSchema): Record<string, JsonSchema> | undefined {
  let found: Record<string, JsonSchema> | undefined;
  const seen = new Set<object>();
  const stack: unknown[] = [schema];
  while (stack.length > 0 && seen.size < 10_000) {
    const node = stack.pop();
    if (node === null || typeof node !== "object" || seen.has(node)) continue;
    seen.add(node);
    const name = schemaName(node);
    if (name !== undefined) (found ??= Object.create(null) as Record<string, JsonSchema>)[name] ??= node as JsonSchema;
    for (const value of Object.values(node)) if (value !== null && typeof value === "object") stack.push(value);
  }
  return found;
}

/** Compiles with keel/schema's engine when it is imported, else with the kernel's (what `t` builds). */
export function compileSchema<S extends JsonSchema>(schema: S, options: CompileOptions = {}): CompiledSchema<Static<S>> {
  return engine !== null ? engine(schema, options) : compileWithKernel(schema, options);
}

function compileWithKernel<S extends JsonSchema>(schema: S, options: CompileOptions): CompiledSchema<Static<S>> {
  if (options.codegen === false) throw new SchemaEngineRequired("the option codegen: false");
  if (options.registry !== undefined) throw new SchemaEngineRequired("the option registry");
  const coerce = options.coerce === true;
  const cc = new KernelCompiler(
    { coerce, useDefaults: options.useDefaults === true },
    options.formats !== "annotate",
    options.components ?? namedSchemasWithin(schema),
  );
  const root = cc.compile(schema);
  const state = new ValidationState(Math.max(1, options.maxErrors ?? DEFAULT_MAX_ERRORS), options.maxRefDepth ?? DEFAULT_MAX_REF_DEPTH);
  const topCoercer = coerce ? coercerFor(schema) : null;
  const validate = makeValidate(true, state, false, "", root);
  return {
    schema,
    validate,
    is: (value: unknown): value is Static<S> => validate(value) === null,
    coerce: (value: unknown): unknown => (topCoercer === null ? value : topCoercer(value)),
    hasAsyncRules: false,
    runAsync: (): Promise<FieldError[]> => Promise.resolve([]),
  };
}
