// keel/schema: the full JSON Schema 2020-12 engine behind the kernel's compileSchema, and its
// public surface (compileSchema, SchemaRegistry, every format, async rules, dialects).
//
// Side effect: importing this module (any name from keel/schema) registers the engine with the
// kernel (registerSchemaCompiler from keel/plugin), so from then on every schema compiles with it:
// route and extractor schemas, response contracts, keel/plugin's compileSchema. Without it the
// kernel compiles what `t` builds and refuses, naming keel/schema, any keyword only this engine
// implements. The package declares no `"sideEffects": false`, so bundlers keep the registering
// call whenever any name of this module is imported (spec/build/hello-bundle.test.ts checks it
// with esbuild for an import of `t` alone). Keep it that way.
import { registerSchemaCompiler, useSchemas } from "../plugin.js";
import { compileFull } from "./compile.js";

registerSchemaCompiler(compileFull);
// Response contracts compile with it too (raw JSON Schemas declared without `t`).
useSchemas();

// The kernel's compileSchema, one binding for keel/schema, keel/plugin and a vendored keel.js that
// holds them all: with this module loaded it compiles with the full engine.
export { compileSchema, type CompileOptions, type SchemaResolver } from "../plugin.js";
export type { AsyncRuleAdapters, CompiledSchema, FieldError, JsonSchema, Static, TSchema } from "../plugin.js";
export type { ArrayOptions, NumberOptions, ObjectOptions, ObjectStatic, SchemaAnnotations, StringOptions, TOptional } from "../plugin.js";
export { isOptionalSchema, kOptional, kSchemaName, schemaName, t } from "../plugin.js";
export { UnsupportedDialectError } from "./compile-context.js";
export { SchemaRegistry } from "./registry.js";
export { schemaFormats } from "./formats.js";
export type { SchemaFormatCheck } from "../plugin.js";
export { asyncUnique, customAsync } from "./async-rules.js";
export { SchemaAsyncRuleError, ASYNC_KEYWORD, type AsyncRule } from "../plugin.js";
export { formatFieldPath } from "../plugin.js";
export { publicSchema } from "./public-schema.js";
export { compileSerializer, SerializationMismatch, SchemaEngineRequired } from "../plugin.js";
export type { Serializer, SerializerOptions } from "../plugin.js";
