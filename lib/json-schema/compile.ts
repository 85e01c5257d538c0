// compileSchema, the full JSON Schema 2020-12 engine: generated code (the kernel's code generator,
// reached through keel/plugin) for every subschema made of local keywords, the closure compiler
// (compile-context.ts) for the rest ($ref, applicators, unevaluated*, $dynamicRef) and as the whole
// engine when `new Function` is not allowed or `codegen: false` is passed. Both engines pass the
// whole required 2020-12 suite. index.ts registers it as the engine of every compileSchema call.
import {
  coercerFor, DEFAULT_MAX_ERRORS, DEFAULT_MAX_REF_DEPTH, makeValidate, namedSchemasWithin, ValidationState,
  type AsyncRuleAdapters, type CompiledSchema, type CompileOptions, type FieldError, type JsonSchema, type Static,
} from "../plugin.js";
import { collectAsyncSites, runAsyncRules } from "./async-rules.js";
import { CompileContext } from "./compile-context.js";
import { isSchemaObject } from "./schema-node.js";
import { anonymousBase, SchemaRegistry, splitRef } from "./registry.js";

const DEFAULT_ASYNC_TIMEOUT_MS = 2000;

/** The engine keel/schema registers; everything calls it through the kernel's compileSchema. */
export function compileFull<S extends JsonSchema>(schema: S, options: CompileOptions = {}): CompiledSchema<Static<S>> {
  // The option's type is the kernel's structural view of a registry; only SchemaRegistry makes one.
  const registry = new SchemaRegistry(options.registry as SchemaRegistry | undefined);
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
