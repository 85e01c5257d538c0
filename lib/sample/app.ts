// The sample service wired in one straight line: every endpoint of SPEC "Sample application
// endpoints", built only from keel's public entry points. Everything it depends on (user store,
// job queue, logger, secrets, the production baseline) is passed in or made here for this app
// alone, and creating it starts nothing: the job queue starts when the app listens.
import { App, createJsonLogger, group, type Logger, type RouteDefinition } from "../index.js";
import { mapDatabaseError } from "../db-errors/index.js";
import type { JobQueue } from "../jobs/index.js";
import { compression, cors, rateLimit, responseCache, securityHeaders, timeout } from "../middleware/index.js";
import { docs } from "../openapi/index.js";
import { mcpServer } from "../mcp/index.js";
import type { Production } from "../service/index.js";
import { negotiation } from "../toon/index.js";
import type { RedisClient } from "../redis/index.js";
import { websockets } from "../ws/index.js";
import { authRoutes, jwtSecretFor } from "./auth.js";
import { createSampleJobQueue, jobRoutes } from "./jobs.js";
import { broken, echoText, hello, listProjects, ping } from "./system.js";
import { UserStore, userRoutes, type UserTable } from "./users.js";
import { SqlUserTable } from "./sql-users.js";
import type { SqlDatabase } from "../sqlite/index.js";
import { databaseCheck } from "../sql/index.js";
import { eventRoutes } from "./events.js";
import { realtimeRoutes, sampleChatRooms } from "./realtime.js";
import { registerSampleObservability, sampleReplay } from "./observability.js";
import type { Collector } from "../metrics/index.js";
import { registerSampleGrpc, type SampleGrpcOptions } from "./grpc.js";
import { uploadFile } from "./uploads.js";
import { redisSharedState, type SampleSharedState } from "./shared-state.js";
import { homePage, staticFiles } from "./web.js";
import { defined } from "../plugin.js";

export interface SampleAppOptions {
  /** KEEL_ENV (default: process.env.KEEL_ENV, as App reads it). */
  env?: string;
  /** Default: JSON lines on stdout at info (the production baseline's logger when given). */
  logger?: Logger;
  /** HS256 secret for the JWT routes; outside production the development secret stands in. */
  jwtSecret?: string;
  /** Origins allowed by CORS with credentials (default none: CORS off). */
  corsOrigins?: readonly string[];
  /** The user table (default: over `database` when given, else a fresh seeded store in memory for this app). */
  users?: UserTable;
  /**
   * The database of the user table (main.ts: SQLite under --data-dir, or Postgres), migrated
   * already. The app closes it on shutdown, after the job queue drained.
   */
  database?: SqlDatabase;
  /** The background job queue (default: an in-memory queue; started on listen, drained on shutdown). */
  jobs?: JobQueue;
  /** Bearer token of the admin endpoints (insight, replay); none: they do not exist. */
  adminToken?: string;
  /** Where the audit log's hash-chained JSONL files go (default: kept in memory). */
  auditDir?: string;
  /** JSONL file of recorded requests for `replay <id>` (default: kept in memory). */
  replayFile?: string;
  /** Share of requests recorded for replay (default 0.1). */
  replaySampleRate?: number;
  /** Serve users.v1.Users over gRPC on this port and host while the app listens (default: off). */
  grpc?: SampleGrpcOptions;
  /** The production baseline (request ids, spans, access logs, probes); registered outermost. */
  production?: Production;
  /**
   * Redis for what several instances share (rate limits, idempotency, jobs): REDIS_URL.
   * The app closes it on shutdown, after the job queue drained. Default: all in this process.
   */
  redis?: RedisClient;
  /** More collectors for GET /metrics (main.ts: the OTLP exporter's, when spans are exported). */
  metricsCollectors?: readonly Collector[];
  /** With `redis`: the job lease (KEEL_JOB_LEASE_MS, default 30 s). */
  jobLeaseMs?: number;
  /** Simulated data-source latency of each report job, ms (KEEL_REPORT_DELAY_MS, default 0). */
  reportDelayMs?: number;
  /** Event streams open at once (KEEL_EVENTS_MAX_SUBSCRIBERS, default 1000); more get 503 + Retry-After. */
  eventsMaxSubscribers?: number;
  /** Event streams open at once from one client address (default 16). */
  eventsMaxPerClient?: number;
}

/**
 * The sample's routes with their layers, as a typed tuple: `client<SampleRoutes>(url)` checks
 * paths, parameters, bodies and answers against it.
 */
export function sampleRoutes(users: UserTable, jobs: JobQueue, secret: string, shared: SampleSharedState = {}) {
  // Per process even with Redis: it holds the user list, which is each instance's own without
  // DATABASE_URL; with Postgres another instance's new user shows here within the 30 s.
  const cache = responseCache({ ttlMs: 30_000 });
  const { getUser, createUser, listUsers } = userRoutes(users, cache, shared.idempotency);
  const bucketStore = defined({ store: shared.rateLimit });
  // Every route that changes something has its own, tighter budget per client (20 at once, then
  // 2 a second), on top of the generous one across /api/v1: one client cannot fill the user
  // table or the job queue, however fast it sends.
  const writeLimit = rateLimit({ capacity: 20, refillPerSecond: 2, name: "writes", ...bucketStore });
  const limitWrites = <const T extends readonly RouteDefinition<any, any, any, any>[]>(defs: T): { -readonly [K in keyof T]: T[K] } =>
    defs.map((d) => (d.method === "GET" || d.method === "HEAD" ? d : group({ layers: [writeLimit] }, [d])[0]!)) as { -readonly [K in keyof T]: T[K] };
  // One generous token bucket per client across /api/v1 (attached to the routes, not matched by prefix).
  const apiLimit = rateLimit({ capacity: 100, refillPerSecond: 20, name: "api", ...bucketStore });
  return [
    ...limitWrites([hello, getUser, createUser, listProjects, echoText]),
    ...group({ layers: [apiLimit] }, limitWrites([ping, listUsers, broken, uploadFile, ...authRoutes(secret, cache), ...jobRoutes(jobs)])),
  ] as const;
}

/** The type of the sample's route table, for `client<SampleRoutes>(baseUrl)`. */
export type SampleRoutes = ReturnType<typeof sampleRoutes>;

export function createSampleApp(options: SampleAppOptions = {}): App {
  const prod = options.production;
  const logger = prod?.logger ?? options.logger ?? createJsonLogger({ level: "info", write: (line) => process.stdout.write(line) });
  const app = new App({ ...defined({ env: options.env }), logger });
  // Database driver errors thrown by handlers become the uniform 409/422/404/503 (SPEC Errors rule 5).
  app.mapErrors(mapDatabaseError);
  const users = options.users ?? (options.database === undefined ? new UserStore() : new SqlUserTable(options.database));
  const shared = options.redis === undefined ? {} : redisSharedState(options.redis, defined({ jobLeaseMs: options.jobLeaseMs }));
  const jobs =
    options.jobs ??
    createSampleJobQueue({ logger, ...defined({ store: shared.jobs, reportDelayMs: options.reportDelayMs }) });
  const secret = jwtSecretFor(app.runtime.production, options.jwtSecret);

  // Production baseline first: its layer (request id, span, access log) is the outermost. A queue
  // problem degrades /health without taking the instance out of /ready.
  if (prod !== undefined) {
    prod.check("jobs", jobs.healthCheck({ maxBacklog: 10_000, maxDeadLetters: 100 }), { critical: false });
    // Redis is critical (issue 32's decision): while it fails, /ready is 503, so a load balancer or
    // orchestrator sees what every /api/v1 route answers anyway (503, as the rate limits need
    // Redis) and an instance cut off from Redis alone is taken out of rotation. /live stays 200:
    // restarting the process would not bring Redis back.
    const redis = options.redis;
    if (redis !== undefined) prod.check("redis", () => redis.command(["PING"]));
    // The user table's database is critical too: while it does not answer a trivial statement
    // within 2 s, /ready is 503 (the user routes would fail anyway). databaseCheck also gives up
    // at the probe's own abort, even if a driver's ping would hang on a half-open socket.
    if (options.database !== undefined) prod.check("database", databaseCheck(options.database, { timeoutMs: 2_000 }));
    // Why a check fails (internal addresses) is shown to the admin token's bearer only.
    if (options.adminToken !== undefined) prod.probeAdminToken(options.adminToken);
    app.register(prod);
  }
  // The queue runs while the app serves: started when it listens; after the HTTP drain no new
  // jobs, running ones get 8 s, the rest stay pending in the store; then the log is flushed.
  // A store that cannot be reached yet (Redis still starting, or down) must not leave this
  // instance without workers for good: starting is retried with backoff until the app drains.
  let stopping = false;
  const startJobs = (attempt: number): void => {
    jobs.start().catch((err: unknown) => {
      if (stopping) return;
      const delay = Math.min(10_000, 500 * 2 ** attempt);
      logger.log(50, "job queue failed to start; retrying", { message: err instanceof Error ? err.message : String(err), retry_in_ms: delay });
      setTimeout(() => startJobs(attempt + 1), delay).unref();
    });
  };
  app.onListen(() => startJobs(0));
  app.onShutdown(async () => {
    stopping = true;
    await jobs.drain(8_000);
    await options.redis?.close();
    await options.database?.close();
    await prod?.flush();
  });

  // Metrics, traffic insight and the audit log see every answer as it leaves (after the layers below).
  const metricsRegistry = registerSampleObservability(app, jobs, {
    ...defined({ adminToken: options.adminToken, auditDir: options.auditDir }),
    ...defined({ collectors: options.metricsCollectors }),
  });

  // Global layers, outermost first: CORS answers preflights before anything else runs;
  // compression sits outside negotiation so TOON bodies are compressed too.
  if (options.corsOrigins !== undefined && options.corsOrigins.length > 0) {
    app.layer(cors({ origin: [...options.corsOrigins], credentials: true, allowHeaders: ["authorization", "content-type", "x-csrf-token", "idempotency-key"], exposeHeaders: ["idempotent-replayed"] }));
  }
  // Replay records inside compression (bodies as the handler made them) and outside the security
  // headers (a record carries every header the client saw, so a replay compares like with like).
  app.layer(compression());
  app.register(
    sampleReplay({
      ...defined({ adminToken: options.adminToken, replayFile: options.replayFile, replaySampleRate: options.replaySampleRate }),
    }),
  );
  app.layer(securityHeaders()).layer(timeout(10_000)).layer(negotiation());

  app.routes(sampleRoutes(users, jobs, secret, shared));
  app.routes(homePage(users));
  app.routes(eventRoutes(jobs, defined({ maxSubscribers: options.eventsMaxSubscribers, maxPerClient: options.eventsMaxPerClient })));
  app.routes(realtimeRoutes(secret, sampleChatRooms(metricsRegistry)));
  // The user routes as MCP tools for AI agents at /mcp (Streamable HTTP), behind the same layers;
  // every MCP request spends a budget per client like the writes (20 at once, then 2 a second).
  const mcpLimit = rateLimit({ capacity: 20, refillPerSecond: 2, name: "mcp", ...defined({ store: shared.rateLimit }) });
  mcpServer(app, { name: "keel-sample", version: "0.1.0", tools: { tags: ["users"] }, layers: [mcpLimit] });
  if (options.grpc !== undefined) registerSampleGrpc(app, users, options.grpc, logger);
  app.register(websockets({ heartbeat: { intervalMs: 30_000, timeoutMs: 10_000 }, ...(options.corsOrigins === undefined ? {} : { origins: [...options.corsOrigins] }) }));
  app.register(staticFiles());
  return app.register(
    docs("/docs", {
      title: "keel sample service",
      tagDescriptions: {
        system: "Hello, ping, a text echo, and a route that always fails",
        users: "The user table: read, create (idempotent with Idempotency-Key), list a page at a time",
        projects: "A tenant's projects (the x-tenant-id header)",
        auth: "Who the bearer token says you are",
        admin: "Operations for role admin",
        forms: "A CSRF-protected form",
        jobs: "Reports built in the background",
        health: "Liveness, readiness and health probes",
        uploads: "Files sent as multipart/form-data",
        events: "Server-sent events",
        web: "The HTML home page",
      },
      version: "0.1.0",
      description: "The sample service of the keel framework: every endpoint of the spec's sample application.",
    }),
  );
}
