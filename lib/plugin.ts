// keel/plugin: what a feature may use of the kernel beyond the app-facing names of `keel`.
// Every feature in lib/ (auth, middleware, web, ws, grpc, openapi, ...) reaches kernel code only
// through `keel` (lib/index.ts) and this entry, and so can anyone writing a feature of their own:
// direct layers and settled replies, the runtime's reply and error helpers, request-input
// parsers, layer docs, the logger's builders, and the small syntax checks the kernel uses itself.
// The import-rule test (spec/architecture) holds lib/ to it.
export { BodyLimitError, declaredLength } from "./core/body.js";
export { directLayer, type Chain } from "./core/chain.js";
export { parseMediaType } from "./core/content-type.js";
export { errorBodyJson, MASKED_MESSAGE, newErrorId, toApiError } from "./core/errors.js";
export { MissingValueError, type RequestInput } from "./core/extractor.js";
export { describeHtmlState, HTML_TEXT, htmlAfterValue, htmlContext, htmlContextKey, htmlOf, isUnsafeUrlHtml, scanHtmlText, UNSAFE_URL, type HtmlContext, type HtmlState } from "./core/markup.js";
export { parseQueryString } from "./core/query.js";
export { isStreamBody, JSON_TYPE, jsonReply } from "./core/reply.js";
export { isResponseDoc } from "./core/response-contract.js";
export { resolveTlsOptions } from "./core/tls-options.js";
export { type WebSocketAcceptor, type WebSocketConnection } from "./core/upgrade.js";
export { isBodyless, settledReply } from "./core/write.js";
export { runValidation } from "./extract/validate.js";
export { DEFAULT_MAX_PARAM_LENGTH, normalizePattern } from "./router/index.js";
export { refTarget } from "./schema/builder.js";
export { compileSchema, schemaName, type FieldError } from "./schema/index.js";
export { acceptQuality, acceptsIdentity, MAX_ACCEPT_ELEMENTS, parseAccept, parseQValue, rankMediaTypes, selectEncoding, selectMediaType, type AcceptRange } from "./util/accept.js";
export { isProductionEnv, KEEL_ENV_VALUES } from "./util/env.js";
export { fastNullProtoMap } from "./util/fast-map.js";
export { isJsonMediaType } from "./util/json-media-type.js";
export { isBase64urlText, isHttpToken, isQuotableText, isSafeHeaderValue } from "./util/http-syntax.js";
export { isPromise } from "./util/is-promise.js";
export { buildJsonLogger, isJsonLogger, LOG_LEVELS, parseLogLevel, REDACTED, type JsonLogger } from "./util/logger.js";
export { compileCookie, type CompiledCookie, type SameSite } from "./util/set-cookie.js";
export { isTchar, tokenEnd } from "./util/tchar.js";
