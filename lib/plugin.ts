// keel/plugin: what a feature may use of the kernel beyond the app-facing names of `keel`.
// Every feature in lib/ (auth, middleware, web, ws, grpc, openapi, ...) reaches kernel code only
// through `keel` (lib/index.ts) and this entry, and so can anyone writing a feature of their own:
// direct layers and settled replies, the runtime's reply and error helpers, request-input
// parsers, layer docs, the logger's builders, and the small syntax checks the kernel uses itself.
// The import-rule test (spec/architecture) holds lib/ to it.
export { BodyLimitError, declaredLength } from "./core/body.js";
export { directLayer, type Chain } from "./core/chain.js";
export { parseMediaType } from "./core/content-type.js";
export { endOnDrain, type EndsOnDrain } from "./core/end-on-drain.js";
export { asApiError, errorBodyJson, MASKED_MESSAGE, newErrorId, toApiError, type KnowsApiError } from "./core/errors.js";
export { MissingValueError, type RequestInput } from "./core/extractor.js";
export { brandedHtml, HTML_BRAND, type BrandedHtml } from "./core/html-brand.js";
export { parseQueryString } from "./core/query.js";
export { isStreamBody, JSON_TYPE, jsonReply } from "./core/reply.js";
export { isResponseDoc } from "./core/response-contract.js";
export type { WebSocketAcceptor, WebSocketConnection } from "./core/upgrade.js";
export type { UpgradeProtocol } from "./core/upgrade-protocol.js";
export { clientErrorFor } from "./server/client-error.js";
export { isHttp2Request } from "./server/http2-compat.js";
export type { ConnectionDrain, Listener, ListenerBinding, ListenerServer } from "./server/listener.js";
export { applyServerLimits, serverConstructionOptions, type ResolvedServerLimits } from "./server/server-limits.js";
export { useWebSockets } from "./server/upgrade.js";
export { isBodyless, settledReply } from "./server/write.js";
export { runValidation } from "./extract/validate.js";
export { DEFAULT_MAX_PARAM_LENGTH, normalizePattern } from "./router/index.js";
export { refTarget } from "./schema/builder.js";
export { compileSchema, schemaName, type FieldError } from "./schema/index.js";
export { registerSchemaCompiler, useSchemas, makeValidate, namedSchemasWithin, DEFAULT_MAX_ERRORS, DEFAULT_MAX_REF_DEPTH, SchemaEngineRequired, type SchemaCompiler, type CompileOptions, type SchemaResolver, type CompiledSchema, type AsyncRuleAdapters, type JsonSchema, type Static, type TSchema } from "./schema/index.js";
export { generateCheck, isGeneratable, coercerFor, setOwn, canonicalKey, jsonEqual, defaultMessages, requiredMessage, schemaMessage, codePointLength, isMultipleOf, type CodegenHost, type Coercer } from "./schema/index.js";
export { formatFieldPath, mergeEvaluated, newEvaluated, ValidationState, type Check, type Evaluated } from "./schema/index.js";
export { commonFormats, MAX_FORMAT_LENGTH, ASYNC_KEYWORD, SchemaAsyncRuleError, type SchemaFormatCheck, type AsyncRule } from "./schema/index.js";
export { isOptionalSchema, kOptional, kSchemaName, t, compileSerializer, SerializationMismatch, type Serializer, type SerializerOptions } from "./schema/index.js";
export type { ArrayOptions, NumberOptions, ObjectOptions, ObjectStatic, SchemaAnnotations, StringOptions, TOptional } from "./schema/index.js";
export { isProductionEnv, KEEL_ENV_VALUES } from "./util/env.js";
export { fastNullProtoMap } from "./util/fast-map.js";
export { isBase64urlText, isHttpToken, isQuotableText, isSafeHeaderValue } from "./util/http-syntax.js";
export { isPromise } from "./util/is-promise.js";
export { buildJsonLogger, isJsonLogger, LOG_LEVELS, parseLogLevel, REDACTED, type JsonLogger } from "./util/logger.js";
export { compileCookie, type CompiledCookie, type SameSite } from "./util/set-cookie.js";
export { defined } from "./util/defined.js";
