// keel's public facade: the only stable surface. Everything users import comes from here.

export { App, type AppOptions } from "./core/app.js";
export { Context } from "./core/context.js";
export { route, group, RouteDefinition, MAX_EXTRACTORS, type Layer, type Next, type RouteMeta, type ResponseDoc, type ParamOverride, type Handler, type GroupOptions } from "./core/route.js";
export {
  Reply,
  reply,
  jsonReply,
  created,
  accepted,
  noContent,
  text as textReply,
  html,
  bytes as bytesReply,
  stream,
  redirect,
  toReply,
  type ReplyBody,
  type ReplyHeaders,
  type HeaderValue,
  type StreamBody,
} from "./core/reply.js";
export { ApiError, raise, registerErrorMapper, newErrorId, MASKED_MESSAGE, type ErrorType, type ValidationField, type ApiErrorOptions } from "./core/errors.js";
export { DEFAULT_BODY_LIMIT } from "./core/body.js";
export { DEFAULT_JSON_DEPTH } from "./core/json-body.js";
export { parseMediaType, type MediaType } from "./core/content-type.js";
export { createJsonLogger, silentLogger, LOG_LEVELS, type Logger, type LogLevelName, type JsonLoggerOptions } from "./core/logger.js";
export type { InjectOptions, InjectResponse } from "./core/inject.js";
export { DEFAULT_SHUTDOWN_TIMEOUT, type ListenOptions, type ListeningServer } from "./core/listen.js";
export type { AppRuntime, AsyncValidationAdapters } from "./core/runtime.js";

export {
  Extractor,
  extractor,
  bodyExtractor,
  optional,
  MissingValueError,
  type AnyExtractor,
  type ExtractedType,
  type ExtractorDoc,
  type OpenApiParameterDoc,
  type OpenApiBodyDoc,
} from "./extract/extractor.js";
export { path, query, header, cookie } from "./extract/params.js";
export { json, text, bytes, form, type BodyOptions } from "./extract/body.js";
export { state, requestContext, context, type RequestInfo } from "./extract/request.js";

export * from "./schema/index.js";
export * from "./openapi/index.js";

export { encodeToon, decodeToon, ToonError } from "./formats/toon/index.js";
export { estimateTokens } from "./formats/tokens.js";
export { toon, type ToonBodyOptions } from "./formats/toon-body.js";
export {
  negotiated,
  negotiation,
  negotiateReply,
  isNegotiatedRoute,
  NegotiatedReply,
  NEGOTIATED_MEDIA_TYPES,
  TOKEN_COUNT_JSON_HEADER,
  TOKEN_COUNT_TOON_HEADER,
  TOKEN_SAVINGS_HEADER,
  FORMAT_USED_HEADER,
  type NegotiatedReplyOptions,
  type NegotiationOptions,
} from "./formats/negotiated.js";
export {
  parseAccept,
  acceptQuality,
  selectMediaType,
  negotiateFormat,
  MAX_ACCEPT_RANGES,
  TOON_MEDIA_TYPE,
  TOON_TEXT_MEDIA_TYPE,
  TOON_MEDIA_TYPES,
  type AcceptRange,
  type FormatChoice,
  type ResponseFormat,
} from "./formats/negotiate.js";

export * from "./auth/jwt.js";
export { jwt, authUser, optionalAuthUser, BEARER_SECURITY_SCHEME, type JwtLayerOptions, type JwtLayerSettings, type AuthUserOptions } from "./auth/jwt-layer.js";
export { requireRole, requirePermission, type GuardOptions, type ClaimPath } from "./auth/guards.js";
export { apiKey, apiKeyDigest, apiKeySecurityScheme, type ApiKeyOptions, type ApiKeyEntry, type ApiKeyVerdict } from "./auth/api-key.js";
export { AUTH_PRINCIPAL_KEY, setAuthPrincipal, setAnonymousPrincipal, getAuthPrincipal, type AuthPrincipal } from "./auth/principal.js";
export {
  oauth2Client,
  type OAuth2Client,
  type OAuth2ClientOptions,
  type OAuth2IdTokenOptions,
  type OAuth2Result,
  type AuthorizationRequest,
  type AuthorizationRequestOptions,
} from "./auth/oauth2.js";
export type { OAuth2TokenResponse, TokenEndpointAuth } from "./auth/oauth2-token.js";
export { createPkcePair, pkceChallenge, type PkcePair } from "./auth/oauth2-pkce.js";
export { timingSafeEqualString, timingSafeEqualBytes } from "./auth/timing.js";
export { cors, addVary, type CorsOptions, type CorsOriginPredicate } from "./layers/cors.js";
export { csrf, csrfToken, CSRF_TOKEN_KEY, type CsrfOptions } from "./layers/csrf.js";
export { securityHeaders, DEFAULT_CONTENT_SECURITY_POLICY, type SecurityHeadersOptions, type HstsOptions } from "./layers/security-headers.js";

export { MemoryStore, DEFAULT_STORE_MAX_ENTRIES, type Store, type StoreSetOptions, type StoreUpdater, type MemoryStoreOptions, type MaybePromise } from "./layers/store.js";
export { clientAddressResolver, canonicalIp, ipv6Network, socketAddress, type TrustProxyOptions, type ClientAddressResolver } from "./layers/client-ip.js";
export { rateLimit, DEFAULT_RATE_LIMIT_MAX_KEYS, type RateLimitOptions, type RateLimitKey, type TokenBucketState } from "./layers/rate-limit.js";
export { idempotency, IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, type IdempotencyOptions, type IdempotencyRecord } from "./layers/dedup.js";
export {
  responseCache,
  strongEtag,
  ifNoneMatchHits,
  CACHE_STATUS_HEADER,
  type ResponseCache,
  type ResponseCacheOptions,
  type CacheRouteConfig,
  type CacheCredentials,
  type CacheEntry,
  type CachedVariant,
} from "./layers/cache.js";
export { compression, negotiateEncoding, compressibleType, DEFAULT_COMPRESSION_THRESHOLD, type CompressionOptions, type CompressionEncoding } from "./layers/compression.js";
export { timeout, discardReply, type TimeoutOptions } from "./layers/timeout.js";
export { retry, backoffDelay, type RetryOptions } from "./layers/retry.js";
export {
  circuitBreaker,
  dependencyBreaker,
  BreakerCore,
  type CircuitBreakerOptions,
  type CircuitBreakerLayer,
  type DependencyBreaker,
  type DependencyBreakerOptions,
  type BreakerOptions,
  type BreakerState,
  type BreakerSnapshot,
  type BreakerRecord,
} from "./layers/circuit-breaker.js";
export * from "./jobs/index.js";

export { production, Production, type ProductionOptions, type ProductionSpanOptions, type ProductionAccessLogOptions, type ProductionProbeOptions } from "./production.js";
export { requestId, compileRequestIdPolicy, isPlainRequestId, REQUEST_ID_HEADER, type RequestIdOptions, type RequestIdPolicy } from "./layers/request-id.js";
export { accessLog, type AccessLogOptions } from "./observability/access-log.js";
export { createBufferedLogger, isJsonLogger, parseLogLevel, type JsonLogger, type BufferedLoggerOptions } from "./observability/json-logger.js";
export { createLogDestination, type LogDestination, type LogDestinationOptions } from "./observability/log-destination.js";
export { redactHeaders, SECRET_HEADERS, REDACTED } from "./observability/redact.js";
export { span, tracer, Tracer, ActiveSpan, getRequestSpan, type SpanRecord, type SpanSink, type SpanAttributeValue } from "./observability/span.js";
export { parseTraceParent, formatTraceParent, type TraceParent } from "./observability/traceparent.js";
export { HealthChecks, type HealthCheck, type HealthCheckOptions, type HealthChecksOptions, type HealthReport, type CheckOutcome, type CheckStatus } from "./probes/health-checks.js";
export { probeRoutes, DEFAULT_PROBE_PATHS, type ProbeOptions, type ProbePaths } from "./probes/probe-routes.js";
export { runService, type RunServiceOptions } from "./cli/run-service.js";
export { installProcessHandlers, shutdownSignal, type ProcessHandlerOptions } from "./cli/process-handlers.js";
export { runClusterPrimary, type ClusterOptions } from "./cli/cluster.js";
export { parseServiceConfig, serviceHelp, type ServiceConfig } from "./cli/service-config.js";
