// The build-time features: what `npm run build -- --features a,b` may name. Each feature is one
// entry module under lib/ whose exports join the kernel's in dist/keel.js + dist/keel.d.ts.
// `requires`: features whose code this one runs or whose public names its API is written in;
// they come along whenever it is chosen (spec/build/features.test.ts checks the runtime part
// against the import graph). Groups expand to several features.

/** @typedef {{ name: string, entry: string, requires: string[], description: string }} Feature */

/** @type {Feature[]} in build order; the kernel is always first and always in. */
export const FEATURES = [
  { name: "kernel", entry: "lib/index.ts", requires: [], description: "App, routes and groups, replies, ApiError, extractors, `t`, logger, inject, listen" },
  { name: "plugin", entry: "lib/plugin.ts", requires: [], description: "keel/plugin: what features use of the kernel (direct layers, settled replies, error and reply helpers, request-input parsers), for writing a feature of your own" },
  { name: "schema", entry: "lib/json-schema/index.ts", requires: [], description: "the full JSON Schema 2020-12 engine, registered on import: $ref/$dynamicRef, unevaluated*, every applicator, SchemaRegistry, dialects, every format, async rules" },
  { name: "openapi", entry: "lib/openapi/index.ts", requires: [], description: "the OpenAPI 3.1 document and the docs() page" },
  { name: "toon", entry: "lib/toon/index.ts", requires: [], description: "TOON codec, toon() bodies, JSON/TOON negotiation, token estimates" },
  { name: "messages", entry: "lib/messages/index.ts", requires: [], description: "messages(): 422 field messages from catalogues chosen by Accept-Language or a fixed locale; englishMessages, the keys" },
  { name: "jose", entry: "lib/jose/index.ts", requires: [], description: "JWS/JWK/JWKS/JWT over node:crypto" },
  { name: "jwt", entry: "lib/auth/jwt/index.ts", requires: ["jose", "guards"], description: "the jwt() bearer layer and authUser() extractors" },
  { name: "guards", entry: "lib/auth/guards/index.ts", requires: [], description: "the request principal, requireRole() and requirePermission()" },
  { name: "api-key", entry: "lib/auth/api-key/index.ts", requires: ["guards"], description: "apiKey() with digest-stored keys" },
  { name: "oauth2", entry: "lib/auth/oauth2/index.ts", requires: ["jose"], description: "the OAuth2 authorization-code client with PKCE" },
  { name: "cors", entry: "lib/middleware/cors/index.ts", requires: [], description: "cors() preflights and response headers" },
  { name: "csrf", entry: "lib/middleware/csrf/index.ts", requires: [], description: "csrf() double-submit cookie and csrfToken()" },
  { name: "security-headers", entry: "lib/middleware/security-headers/index.ts", requires: [], description: "securityHeaders(): CSP, HSTS, nosniff, frame and referrer policies" },
  { name: "request-id", entry: "lib/middleware/request-id/index.ts", requires: [], description: "requestId(): keep or make an x-request-id" },
  { name: "client-ip", entry: "lib/middleware/client-ip/index.ts", requires: [], description: "the client address behind trusted proxies" },
  { name: "stores", entry: "lib/stores/index.ts", requires: [], description: "the Store interface and MemoryStore" },
  { name: "rate-limit", entry: "lib/middleware/rate-limit/index.ts", requires: ["stores", "client-ip"], description: "rateLimit(): a token bucket per client" },
  { name: "idempotency", entry: "lib/middleware/idempotency/index.ts", requires: ["stores", "client-ip"], description: "idempotency(): one execution per Idempotency-Key" },
  { name: "cache", entry: "lib/middleware/cache/index.ts", requires: ["stores"], description: "responseCache() with ETags and invalidation" },
  { name: "compression", entry: "lib/middleware/compression/index.ts", requires: [], description: "compression(): br, gzip, deflate" },
  { name: "timeout", entry: "lib/middleware/timeout/index.ts", requires: [], description: "timeout(): abort and answer 503/504" },
  { name: "retry", entry: "lib/middleware/retry/index.ts", requires: [], description: "retry() for idempotent methods with full-jitter backoff" },
  { name: "circuit-breaker", entry: "lib/middleware/circuit-breaker/index.ts", requires: ["stores"], description: "circuitBreaker() per route and dependencyBreaker()" },
  { name: "alt-svc", entry: "lib/middleware/alt-svc/index.ts", requires: [], description: "altSvc(): advertise HTTP/3 or another alternative service (RFC 7838)" },
  { name: "jobs", entry: "lib/jobs/index.ts", requires: [], description: "JobQueue, memory and file job stores, worker threads" },
  { name: "service", entry: "lib/service/index.ts", requires: [], description: "production(), probes, observability, runService() CLI" },
  { name: "db-errors", entry: "lib/db-errors/index.ts", requires: [], description: "mapDatabaseError for registerErrorMapper" },
  { name: "client", entry: "lib/client/index.ts", requires: [], description: "client<typeof routes>(baseUrl): a typed fetch client for an app's routes" },
  { name: "tls", entry: "lib/tls/index.ts", requires: [], description: "https() and http2(): listeners for app.listen() serving HTTPS, and HTTP/2 with HTTP/1.1 fallback (ALPN), with the kernel's limits and drain; TlsOptions, resolveTlsOptions" },
  { name: "grpc", entry: "lib/grpc/index.ts", requires: ["tls"], description: "protobuf (proto3 parser, wire codec) and a gRPC server on node:http2 with grpc.health.v1" },
  { name: "insight", entry: "lib/insight/index.ts", requires: [], description: "insight(): per-route status classes, latency percentiles, in-flight, bytes, top errors; admin endpoint" },
  { name: "audit", entry: "lib/audit/index.ts", requires: ["client-ip"], description: "tamper-evident audit log: SHA-256 chained JSON lines, rotation, audit() plugin, verifyAuditLog and audit verify" },
  { name: "metrics", entry: "lib/metrics/index.ts", requires: [], description: "Prometheus metrics: registry, text and OpenMetrics formats, httpMetrics layer, process and job-queue collectors, metrics() plugin" },
  { name: "replay", entry: "lib/replay/index.ts", requires: [], description: "replay(): sampled request recording with redaction, memory/JSONL stores, admin routes, replayRecord/diffReplay and the replay command" },
  { name: "otel", entry: "lib/otel/index.ts", requires: ["service"], description: "OpenTelemetry: OTLP/HTTP JSON span exporter, samplers, OTEL_* environment, tracedFetch()" },
  { name: "redis", entry: "lib/redis/index.ts", requires: ["stores", "jobs"], description: "our own Redis client (RESP2/3 over node:net/tls), redisStore with atomic Lua operations for the traffic layers and sessions, RedisJobStore (leased at-least-once jobs across processes)" },
  { name: "mcp", entry: "lib/mcp/index.ts", requires: ["openapi", "toon"], description: "mcpServer(app): chosen routes (by tag or name) as MCP tools with schemas from the OpenAPI document, run through inject with every layer; Streamable HTTP at a path of the app (bounded sessions) and serveMcpStdio" },
  { name: "postgres", entry: "lib/postgres/index.ts", requires: [], description: "our own PostgreSQL client (wire protocol over node:net/tls): SCRAM/md5, sslmode, DATABASE_URL, pipelined extended protocol with a bounded statement cache, pool, transactions (and per route: transaction(db)/tx()), databaseCheck, migrate(), cancellation, LISTEN/NOTIFY" },
  { name: "sqlite", entry: "lib/sqlite/index.ts", requires: [], description: "openSqlite(): SQLite on node:sqlite (Node 22.13+) as a SqlDatabase, the sql tag, transactions with savepoints, migrate() over plain .sql files" },
  { name: "sse", entry: "lib/sse/index.ts", requires: [], description: "sse(): server-sent event streams with keep-alive, backpressure and Last-Event-ID, ended when the app drains" },
  { name: "ws", entry: "lib/ws/index.ts", requires: [], description: "websockets(): RFC 6455 for route.ws routes, permessage-deflate, heartbeats, rooms" },
  { name: "cookies", entry: "lib/web/cookies/index.ts", requires: [], description: "cookieSigner() and signedCookie(): HMAC-signed cookies with key rotation" },
  { name: "session", entry: "lib/web/session/index.ts", requires: ["cookies", "stores"], description: "session() layer and sessionState(): a signed id cookie, data in a Store" },
  { name: "html", entry: "lib/web/html/index.ts", requires: [], description: "markup``: HTML escaped by context (text, attributes, URLs), SafeHtml, raw(), escapeHtml, the HTML context scanner" },
  { name: "templates", entry: "lib/web/templates/index.ts", requires: ["html"], description: "templates(): HTML file templates compiled once, partials, layouts, dev reload" },
  { name: "multipart", entry: "lib/web/multipart/index.ts", requires: [], description: "multipart(): streaming multipart/form-data uploads to temp files or sinks, with limits" },
  { name: "static", entry: "lib/web/static/index.ts", requires: [], description: "serveStatic(): files under a prefix with ETags, ranges and precompressed siblings" },
  { name: "fetch", entry: "lib/web/fetch/index.ts", requires: [], description: "fetchHandler(app): the app as a Web fetch handler (Request in, Response out); mountFetch(prefix, handler): a Web fetch handler (Hono, better-auth) under a prefix, inside the app's layers" },
  { name: "versions", entry: "lib/versions/index.ts", requires: ["openapi"], description: "versions(): API versions chosen by path prefix, header, query or Accept parameter, Deprecation/Sunset headers, the OpenAPI document of one version" },
  { name: "testing", entry: "lib/testing/index.ts", requires: [], description: "mockServer(): a loopback server answering declared expectations (method, path, query, headers, body; reply, delay, fault) with verify(), for testing an app's outgoing calls" },
];

const BY_NAME = new Map(FEATURES.map((f) => [f.name, f]));

/** Names that stand for several features. */
export const GROUPS = {
  auth: ["jwt", "guards", "api-key", "oauth2"],
  middleware: [...FEATURES.filter((f) => f.entry.startsWith("lib/middleware/")).map((f) => f.name), "stores"],
  web: FEATURES.filter((f) => f.entry.startsWith("lib/web/")).map((f) => f.name),
  all: FEATURES.map((f) => f.name),
};

export const DEFAULT_FEATURES = ["all"];

export class FeatureError extends Error {}

export function featureNamed(name) {
  const feature = BY_NAME.get(name);
  if (feature === undefined) throw new FeatureError(`unknown feature ${name}`);
  return feature;
}

/** Every name --features accepts, for messages. */
export function validFeatureNames() {
  return [...FEATURES.map((f) => f.name), ...Object.keys(GROUPS)];
}

/**
 * Expand a --features list (names and groups) into features: the kernel, the named ones and
 * everything they require, in table order. Unknown names are a FeatureError listing the valid ones.
 * @param {string[]} names
 * @returns {Feature[]}
 */
export function resolveFeatures(names) {
  const cleaned = names.map((n) => n.trim()).filter((n) => n !== "");
  if (cleaned.length === 0) throw new FeatureError(`no features named (valid: ${validFeatureNames().join(", ")})`);
  const unknown = cleaned.filter((n) => !BY_NAME.has(n) && !Object.hasOwn(GROUPS, n));
  if (unknown.length > 0) {
    throw new FeatureError(`unknown feature${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (valid: ${validFeatureNames().join(", ")})`);
  }
  const chosen = new Set(["kernel"]);
  const add = (name) => {
    if (chosen.has(name)) return;
    chosen.add(name);
    for (const dep of featureNamed(name).requires) add(dep);
  };
  for (const name of cleaned) for (const member of Object.hasOwn(GROUPS, name) ? GROUPS[name] : [name]) add(member);
  return FEATURES.filter((f) => chosen.has(f.name));
}

/**
 * The package's entry points (package.json `exports`): each subpath is built to dist/pkg/<out>.js
 * (one esbuild run with code splitting, so App and ApiError exist once for all entries) and typed
 * by the declaration tree tsc emits under dist/types/.
 */
export const PACKAGE_ENTRIES = [
  { subpath: ".", entry: "lib/index.ts", out: "index" },
  { subpath: "./plugin", entry: "lib/plugin.ts", out: "plugin" },
  { subpath: "./schema", entry: "lib/json-schema/index.ts", out: "schema" },
  { subpath: "./openapi", entry: "lib/openapi/index.ts", out: "openapi" },
  { subpath: "./toon", entry: "lib/toon/index.ts", out: "toon" },
  { subpath: "./messages", entry: "lib/messages/index.ts", out: "messages" },
  { subpath: "./jose", entry: "lib/jose/index.ts", out: "jose" },
  { subpath: "./auth", entry: "lib/auth/index.ts", out: "auth" },
  { subpath: "./middleware", entry: "lib/middleware/index.ts", out: "middleware" },
  { subpath: "./stores", entry: "lib/stores/index.ts", out: "stores" },
  { subpath: "./jobs", entry: "lib/jobs/index.ts", out: "jobs" },
  { subpath: "./service", entry: "lib/service/index.ts", out: "service" },
  { subpath: "./db-errors", entry: "lib/db-errors/index.ts", out: "db-errors" },
  { subpath: "./client", entry: "lib/client/index.ts", out: "client" },
  { subpath: "./web", entry: "lib/web/index.ts", out: "web" },
  { subpath: "./sse", entry: "lib/sse/index.ts", out: "sse" },
  { subpath: "./ws", entry: "lib/ws/index.ts", out: "ws" },
  { subpath: "./grpc", entry: "lib/grpc/index.ts", out: "grpc" },
  { subpath: "./tls", entry: "lib/tls/index.ts", out: "tls" },
  { subpath: "./insight", entry: "lib/insight/index.ts", out: "insight" },
  { subpath: "./audit", entry: "lib/audit/index.ts", out: "audit" },
  { subpath: "./metrics", entry: "lib/metrics/index.ts", out: "metrics" },
  { subpath: "./replay", entry: "lib/replay/index.ts", out: "replay" },
  { subpath: "./otel", entry: "lib/otel/index.ts", out: "otel" },
  { subpath: "./redis", entry: "lib/redis/index.ts", out: "redis" },
  { subpath: "./mcp", entry: "lib/mcp/index.ts", out: "mcp" },
  { subpath: "./postgres", entry: "lib/postgres/index.ts", out: "postgres" },
  { subpath: "./versions", entry: "lib/versions/index.ts", out: "versions" },
  { subpath: "./testing", entry: "lib/testing/index.ts", out: "testing" },
  { subpath: "./sqlite", entry: "lib/sqlite/index.ts", out: "sqlite" },
];

/** The package.json `exports` value PACKAGE_ENTRIES stands for. */
export function packageExports() {
  return Object.fromEntries(
    PACKAGE_ENTRIES.map((e) => [
      e.subpath,
      { types: `./dist/types/${e.entry.replace(/^lib\//, "").replace(/\.ts$/, ".d.ts")}`, default: `./dist/pkg/${e.out}.js` },
    ]),
  );
}
