// Public surface of the schema module: the `t` builder, compileSchema, the registry, async rules.
export type { AsyncRuleAdapters, CompiledSchema, CompileOptions, FieldError, JsonSchema, Static, TSchema } from "./types.js";
export type { ArrayOptions, NumberOptions, ObjectOptions, ObjectStatic, SchemaAnnotations, StringOptions, TOptional } from "./builder.js";
export { isOptionalSchema, kOptional, kSchemaName, schemaName, t } from "./builder.js";
export { compileSchema } from "./compile.js";
export { UnsupportedDialectError } from "./compile-context.js";
export { SchemaRegistry } from "./registry.js";
export { schemaFormats } from "./formats.js";
export type { SchemaFormatCheck } from "./formats.js";
export { asyncUnique, customAsync, SchemaAsyncRuleError, ASYNC_KEYWORD } from "./async-rules.js";
export type { AsyncRule } from "./async-rules.js";
export { formatFieldPath } from "./state.js";
export { publicSchema } from "./public-schema.js";
export { compileSerializer, SerializationMismatch } from "./serializer.js";
export type { Serializer, SerializerOptions } from "./serializer.js";
