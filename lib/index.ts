// keel: the kernel. App, routes and groups, replies, the uniform error, extractors, the `t`
// schema builder, inject and listen. Every optional capability is its own entry point and
// build-time feature (package.json `exports`, scripts/features.mjs: keel/schema, keel/openapi,
// keel/sse, keel/tls, keel/ws, keel/web, keel/auth, ...); nothing here imports them. What features
// use of the kernel beyond these names is keel/plugin (lib/plugin.ts).

export { App, type AppOptions, type Plugin } from "./core/app.js";
export { Context, type MatchedRoute } from "./core/context.js";
export {
  route,
  group,
  RouteDefinition,
  type Layer,
  type Next,
  type RouteMeta,
  type ResponseDoc,
  type ResponseValue,
  type Responses,
  type ResponseBody,
  type ErrorBodyShape,
  type HandlerResult,
  type Prefixed,
  type ParamOverride,
  type Handler,
  type GroupOptions,
} from "./core/route.js";
export type { ResponseValidation } from "./core/runtime.js";
export {
  Reply,
  reply,
  created,
  accepted,
  noContent,
  text as textReply,
  html,
  bytes as bytesReply,
  stream,
  redirect,
  type ReplyBody,
  type ReplyHeaders,
  type HeaderValue,
  type CookieOptions,
} from "./core/reply.js";
export { ApiError, raise, type ErrorMapper, type ErrorType, type ValidationField, type ApiErrorOptions } from "./core/errors.js";
export { createJsonLogger, silentLogger, type Logger, type LogLevelName } from "./util/logger.js";
export type { InjectOptions, InjectResponse } from "./core/inject.js";
export type { ListenOptions, ListeningServer } from "./server/listen.js";
export type { RequestTrace } from "./core/tracing.js";
export { DEFAULT_SERVER_LIMITS, type ServerLimits } from "./server/server-limits.js";
export type { AsyncValidationAdapters } from "./core/runtime.js";

export { Extractor, extractor, bodyExtractor, optional, type AnyExtractor, type ExtractedType, type ExtractorDoc, type OpenApiParameterDoc, type OpenApiBodyDoc } from "./core/extractor.js";
export { describeLayer, layerDoc, type LayerDoc, type LayerResponseDoc, type LayerHeaderDoc } from "./core/layer-doc.js";
export { path, query, header, cookie } from "./extract/params.js";
export { json, text, bytes, form, type BodyOptions, type JsonBodyOptions } from "./extract/body.js";
export { state, requestContext, context, type RequestInfo } from "./extract/request.js";

export { t, type Static, type TSchema, type JsonSchema } from "./schema/index.js";
export type { AnySchema, StandardSchemaV1, StandardJSONSchemaV1, StaticInput } from "./schema/index.js";
