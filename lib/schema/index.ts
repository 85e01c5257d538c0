// The kernel's schema module, for the kernel's own files (core, extract) and lib/index.ts and
// lib/plugin.ts: the `t` builder, compileSchema (kernel engine, or keel/schema's once registered),
// the response serializer. Not a public entry: keel/schema is lib/json-schema/.
export type { AnySchema, AsyncRuleAdapters, CompiledSchema, CompileOptions, FieldError, JsonSchema, SchemaResolver, StandardJSONSchemaV1, StandardSchemaV1, StandardTypedV1, Static, StaticInput, TSchema } from "./types.js";
export { describeForeign, FOREIGN_ISSUE_CODE, foreignSchema, issueFields, issuePath, MAX_FOREIGN_ISSUES, schemaProblem } from "./foreign-schema.js";
export { withStandard } from "./standard-out.js";
export type { ArrayOptions, NumberOptions, ObjectOptions, ObjectStatic, SchemaAnnotations, StringOptions, TOptional } from "./builder.js";
export { isOptionalSchema, kOptional, kSchemaName, refTarget, schemaName, t } from "./builder.js";
export { compileSchema, useSchemas } from "./use-schemas.js";
export { makeValidate, namedSchemasWithin, registerSchemaCompiler, DEFAULT_MAX_ERRORS, DEFAULT_MAX_REF_DEPTH, type SchemaCompiler, type Validate } from "./compile.js";
export { SchemaEngineRequired } from "./kernel-compiler.js";
export { generateCheck, isGeneratable, type CodegenHost } from "./codegen.js";
export { coercerFor, setOwn, type Coercer } from "./coerce.js";
export { canonicalKey, jsonEqual } from "./json-equal.js";
export { defaultMessages, requiredMessage, schemaMessage } from "./messages.js";
export { formatFieldPath, mergeEvaluated, newEvaluated, ValidationState, type Check, type Evaluated } from "./state.js";
export { codePointLength, isMultipleOf } from "./value-rules.js";
export { commonFormats, MAX_FORMAT_LENGTH, type SchemaFormatCheck } from "./formats.js";
export { ASYNC_KEYWORD, SchemaAsyncRuleError, type AsyncRule } from "./async-rule.js";
export { compileSerializer, SerializationMismatch } from "./serializer.js";
export type { Serializer, SerializerOptions } from "./serializer.js";
