// compileSchema: the public entry. Compiles once (at route registration); validating is then one
// call per value with a reused state object and no allocation unless something fails.
//
// Two engines, measured on the create-user body with callgrind (instructions per validation,
// deterministic; ajv 8 with allErrors for comparison): generated code 1,295 valid / 1,616 invalid,
// closures 3,013 / 4,245, ajv 1,362 / 1,372. Closures pay for megamorphic calls between many small
// functions; generated code inlines a whole subtree. So: code generation (codegen.ts) for every
// subschema made of local keywords, the closure compiler (compile-context.ts) for the rest ($ref,
// applicators, unevaluated*, $dynamicRef) and as the whole engine when `new Function` is not
// allowed or `codegen: false` is passed. Both engines pass the whole required 2020-12 suite.
import { collectAsyncSites, runAsyncRules } from "./async-rules.js";
import { schemaName } from "./builder.js";
import { coercerFor } from "./coerce.js";
import { CompileContext } from "./compile-context.js";
import { isSchemaObject } from "./schema-node.js";
import { anonymousBase, SchemaRegistry, splitRef } from "./registry.js";
import { ValidationState, type Check } from "./state.js";
import type { AsyncRuleAdapters, CompiledSchema, CompileOptions, FieldError, JsonSchema, Static } from "./types.js";

const DEFAULT_MAX_ERRORS = 100;
const DEFAULT_MAX_REF_DEPTH = 512;
const DEFAULT_ASYNC_TIMEOUT_MS = 2000;

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

type Validate = (value: unknown) => FieldError[] | null;

/**
 * With codegen, every schema gets its own copy of the entry function: a single shared closure
 * would see all roots at its \`root(...)\` call site and go megamorphic in an app with many routes.
 */
function makeValidate(codegen: boolean, state: ValidationState, dynamic: boolean, base: string, root: Check): Validate {
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

export function compileSchema<S extends JsonSchema>(schema: S, options: CompileOptions = {}): CompiledSchema<Static<S>> {
  const registry = new SchemaRegistry(options.registry);
  const id = isSchemaObject(schema) ? schema["$id"] : undefined;
  const base = typeof id === "string" ? splitRef(id, anonymousBase())[0] : anonymousBase();
  registry.add(schema, base);
  const cc = new CompileContext(registry, {
    coerce: options.coerce === true,
    useDefaults: options.useDefaults === true,
    codegen: options.codegen !== false,
    assertFormats: options.formats !== "annotate",
    components: options.components ?? namedSchemasWithin(schema),
  });
  const root = cc.compile(schema, base, true);
  const maxErrors = Math.max(1, options.maxErrors ?? DEFAULT_MAX_ERRORS);
  const state = new ValidationState(maxErrors, options.maxRefDepth ?? DEFAULT_MAX_REF_DEPTH);
  const topCoercer = options.coerce === true ? coercerFor(schema) : null;
  const sites = collectAsyncSites(schema);

  // cc.dynamic is final here: only compiling a $dynamicRef sets it, and runtime compiles need it set.
  const validate = makeValidate(options.codegen !== false, state, cc.dynamic, base, root);

  return {
    schema,
    validate,
    is: (value: unknown): value is Static<S> => validate(value) === null,
    coerce: (value: unknown): unknown => (topCoercer === null ? value : topCoercer(value)),
    hasAsyncRules: sites.length > 0,
    runAsync: (value: unknown, adapters: AsyncRuleAdapters, timeoutMs = DEFAULT_ASYNC_TIMEOUT_MS): Promise<FieldError[]> =>
      sites.length === 0 ? Promise.resolve([]) : runAsyncRules(sites, value, adapters, timeoutMs, maxErrors),
  };
}
