// keel/plugin: what a feature may use of the kernel beyond the app-facing names of `keel`.
// Every feature in lib/ (auth, middleware, web, sse, tls, ws, grpc, openapi, keel/schema's
// engine...) reaches kernel code only through `keel` (lib/index.ts) and this entry, and so can
// anyone writing a feature of their own (docs/features/plugin.md). The import-rule test
// (spec/architecture) holds lib/ to it. Grouped by what a feature does with them.

// Writing answers: synchronous layers, the final reply, stream bodies ended on drain, safe HTML.
export { directLayer, type Chain } from "./core/chain.js";
export { isStreamBody, JSON_TYPE, jsonReply } from "./core/reply.js";
export { finalizeHeaders, isBodyless, logStreamFailure, settledReply } from "./server/write.js";
export { errorReply } from "./core/error-reply.js";
export { endOnDrain, type EndsOnDrain } from "./core/end-on-drain.js";
export { brandedHtml, HTML_BRAND, type BrandedHtml } from "./core/html-brand.js";

// Errors: an error class that knows its answer; the uniform body for a transport of one's own.
export { asApiError, errorBodyJson, MASKED_MESSAGE, newErrorId, toApiError, type KnowsApiError } from "./core/errors.js";

// Request input: media types, queries, bodies and their limits, the 422.
export { parseMediaType } from "./core/content-type.js";
export { parseQueryString } from "./core/query.js";
export { BodyLimitError, declaredLength } from "./core/body.js";
export { MissingValueError, type RequestInput } from "./core/extractor.js";
export { runValidation, runStandard } from "./extract/validate.js";
export { acceptQuality, acceptsIdentity, MAX_ACCEPT_ELEMENTS, parseAccept, parseQValue, rankMediaTypes, selectEncoding, selectLanguage, selectMediaType, type AcceptRange } from "./util/accept.js";
export { isJsonMediaType } from "./util/json-media-type.js";

// Listening and upgrades: the listener seam (keel/tls), the WebSocket protocol seam (keel/ws).
export type { ConnectionDrain, Listener, ListenerBinding, ListenerServer } from "./server/listener.js";
export { applyServerLimits, serverConstructionOptions, type ResolvedServerLimits } from "./server/server-limits.js";
export { clientErrorFor } from "./server/client-error.js";
export { isHttp2Request } from "./server/http2-compat.js";
export { useWebSockets } from "./server/upgrade.js";
export type { WebSocketAcceptor, WebSocketConnection } from "./core/upgrade.js";
export type { UpgradeProtocol } from "./core/upgrade-protocol.js";

// Routes and their documents (keel/openapi, keel/client).
export { DEFAULT_MAX_PARAM_LENGTH, normalizePattern } from "./router/index.js";
export { isResponseDoc } from "./core/response-contract.js";

// Schemas: the engine seam (keel/schema registers the full 2020-12 engine through it) and the
// kernel's compiler parts an engine builds on.
export { registerSchemaCompiler, useSchemas, compileSchema, makeValidate, namedSchemasWithin, DEFAULT_MAX_ERRORS, DEFAULT_MAX_REF_DEPTH, SchemaEngineRequired } from "./schema/index.js";
export type { SchemaCompiler, CompileOptions, SchemaResolver, CompiledSchema, AsyncRuleAdapters, FieldError, JsonSchema, Static, TSchema } from "./schema/index.js";
// Other libraries' schemas (Standard Schema): recognised, described; keel's own carry `~standard` too.
export { foreignSchema, describeForeign, issueFields, issuePath, schemaProblem, withStandard, FOREIGN_ISSUE_CODE } from "./schema/index.js";
export type { AnySchema, StandardSchemaV1, StandardJSONSchemaV1, StandardTypedV1, StaticInput } from "./schema/index.js";
export { generateCheck, isGeneratable, coercerFor, setOwn, canonicalKey, jsonEqual, defaultMessages, requiredMessage, schemaMessage, codePointLength, isMultipleOf, type CodegenHost, type Coercer } from "./schema/index.js";
export { formatFieldPath, mergeEvaluated, newEvaluated, ValidationState, type Check, type Evaluated } from "./schema/index.js";
export { commonFormats, MAX_FORMAT_LENGTH, ASYNC_KEYWORD, SchemaAsyncRuleError, type SchemaFormatCheck, type AsyncRule } from "./schema/index.js";
export { t, isOptionalSchema, kOptional, kSchemaName, refTarget, schemaName, compileSerializer, SerializationMismatch, type Serializer, type SerializerOptions } from "./schema/index.js";
export type { ArrayOptions, NumberOptions, ObjectOptions, ObjectStatic, SchemaAnnotations, StringOptions, TOptional } from "./schema/index.js";

// Syntax checks and small helpers the kernel uses itself, so a feature grows no second copy.
export { isTchar, tokenEnd } from "./util/tchar.js";
export { isBase64urlText, isHttpToken, isQuotableText, isSafeHeaderValue } from "./util/http-syntax.js";
export { compileCookie, type CompiledCookie, type SameSite } from "./util/set-cookie.js";
export { fastNullProtoMap } from "./util/fast-map.js";
export { isPromise } from "./util/is-promise.js";
export { defined } from "./util/defined.js";
export { isProductionEnv, KEEL_ENV_VALUES } from "./util/env.js";

// Tracing: keel.request's events around a request a transport of a feature's own runs.
export { requestChannel, traced, tracedReply } from "./core/tracing.js";

// Logging: a logger that writes the kernel's JSON lines.
export { buildJsonLogger, isJsonLogger, LOG_LEVELS, parseLogLevel, REDACTED, type JsonLogger } from "./util/logger.js";
