// The sample service: every endpoint of SPEC "Sample application endpoints", built only from
// keel's public API (./index.js). Run it with `npm start` (or `node dist/server.js`).
import { accepted, ApiError, App, created, createJsonLogger, form, group, header, json, noContent, path, raise, registerErrorMapper, route, t, text, type Logger, type RouteDefinition, type Static } from "./index.js";
import { docs } from "./openapi/index.js";
import { negotiation } from "./toon/index.js";
import { authUser, BEARER_SECURITY_SCHEME, jwt, requireRole } from "./auth/index.js";
import { compression, cors, csrf, csrfToken, idempotency, rateLimit, responseCache, securityHeaders, timeout, type ResponseCache } from "./middleware/index.js";
import { defineJob, JobQueue, type JobStore } from "./jobs/index.js";
import { runService, type Production } from "./service/index.js";
import { mapDatabaseError } from "./db-errors/index.js";
import { isProductionEnv } from "./util/env.js";

// --- resources -------------------------------------------------------------------------------

const User = t.named("User", t.object({ id: t.u64(), email: t.string({ format: "email" }) }));
const CreateUser = t.named(
  "CreateUser",
  t.object({
    email: t.string({ email: true }),
    password: t.string({ length: { min: 8 } }),
  }),
);
const Ping = t.named("Ping", t.object({ status: t.string() }));
const ProjectList = t.named("ProjectList", t.object({ service: t.string(), items: t.array(t.string()) }));
const Echo = t.named("Echo", t.object({ content: t.string() }));
const UserList = t.named("UserList", t.object({ users: t.array(User), total: t.u64() }));

type UserRecord = Static<typeof User>;

// --- an in-memory user store, seeded --------------------------------------------------------

const seed = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj"];
const users = new Map<number, UserRecord>(seed.map((name, i) => [i + 1, { id: i + 1, email: `${name}@example.com` }]));
let nextUserId = seed.length + 1;

// --- routes ------------------------------------------------------------------------------------

export const ping = route.get("/api/v1/ping", { tag: "system", summary: "Liveness ping", responses: { 200: Ping } }, [], () => ({
  status: "ok",
}));

export const hello = route.get("/hello", { tag: "system", summary: "Say hello", responses: { 200: t.string() } }, [], () => "Hello, World!");

export const getUser = route.get(
  "/users/{id}",
  { tag: "users", summary: "Get a user", responses: { 200: User } },
  [path("id", t.u64())],
  (id) => {
    if (id === 0) throw ApiError.badRequest("id must be greater than zero");
    return users.get(id) ?? raise(ApiError.notFound(`user ${id} not found`));
  },
);

/** `POST /users` (deduplicated by Idempotency-Key) and the cached, negotiated `GET /api/v1/users`. */
export function userRoutes(cache: ResponseCache): { createUser: RouteDefinition; listUsers: RouteDefinition } {
  const createUser = route.post(
    "/users",
    { tag: "users", summary: "Create a user (send Idempotency-Key to make retries safe)", responses: { 201: User }, layers: [idempotency()] },
    [json(CreateUser)],
    (body) => {
      const user: UserRecord = { id: nextUserId++, email: body.email };
      users.set(user.id, user);
      cache.invalidateTag("users");
      return created(user, { location: `/users/${user.id}` });
    },
  );
  /** JSON by default; TOON with `Accept: application/toon` (see the token-count headers). Cached 30 s. */
  const listUsers = route.get(
    "/api/v1/users",
    {
      tag: "users",
      summary: "List users (JSON, or TOON with Accept: application/toon)",
      responses: { 200: UserList },
      layers: [cache],
      config: { negotiated: true, cache: { tags: ["users"] } },
    },
    [],
    () => {
      const list = [...users.values()];
      return { users: list, total: list.length };
    },
  );
  return { createUser, listUsers };
}

/** `x-tenant-id`, trimmed; missing or blank is a 400. */
const tenantId = header("x-tenant-id").map((v) => {
  const trimmed = v.trim();
  if (trimmed === "") throw ApiError.badRequest("Header x-tenant-id must not be blank");
  return trimmed;
});

export const listProjects = route.get(
  "/projects",
  { tag: "projects", summary: "List the tenant's projects", responses: { 200: ProjectList } },
  [tenantId],
  (tenant) => ({ service: tenant, items: ["alpha", "beta", "gamma"] }),
);

export const echoText = route.post(
  "/echo-text",
  { tag: "system", summary: "Echo a UTF-8 text body", responses: { 200: Echo } },
  [text()],
  (content) => ({ content }),
);

export const broken = route.get(
  "/api/v1/broken",
  { tag: "system", summary: "Always fails (shows 5xx masking under KEEL_ENV=production)" },
  [],
  () => {
    throw ApiError.internal("Storage error", { detail: "simulated storage failure: disk quota exceeded on /var/lib/keel" });
  },
);

// --- authentication and browser security ---------------------------------------------------

/** Development default; production requires KEEL_JWT_SECRET (at least 32 bytes). */
export const DEV_JWT_SECRET = "keel-dev-secret-not-for-production-0123456789";

function jwtSecret(env: string | undefined): string {
  const fromEnv = process.env["KEEL_JWT_SECRET"];
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  if (isProductionEnv(env ?? process.env["KEEL_ENV"])) {
    throw new Error("KEEL_JWT_SECRET must be set in production (at least 32 bytes)");
  }
  return DEV_JWT_SECRET;
}

function corsOrigins(): string[] {
  return (process.env["KEEL_CORS_ORIGINS"] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

const Me = t.named("Me", t.object({ sub: t.string(), role: t.string() }));
const FormToken = t.named("FormToken", t.object({ csrf_token: t.string(), header: t.string(), field: t.string() }));
const FormReceipt = t.named("FormReceipt", t.object({ message: t.string() }));

/** `GET /api/v1/me` (any valid JWT), `DELETE /api/v1/admin/cache` (role admin), a CSRF-protected form. */
export function authRoutes(secret: string, cache: ResponseCache): RouteDefinition[] {
  const auth = jwt({ algorithms: ["HS256"], key: secret });
  const me = route.get(
    "/api/v1/me",
    { tag: "auth", summary: "Who am I (JWT)", layers: [auth], responses: { 200: Me } },
    [authUser<{ role?: string }>()],
    (claims) => ({ sub: claims.sub ?? "", role: claims.role ?? "" }),
  );
  const clearCache = route.delete(
    "/api/v1/admin/cache",
    { tag: "admin", summary: "Clear the response cache (role admin)", layers: [auth] },
    [requireRole("admin")],
    () => {
      cache.clear();
      return noContent();
    },
  );
  const forms = group({ prefix: "/api/v1", tag: "forms", layers: [csrf()] }, [
    route.get("/form", { summary: "Issue a CSRF token (cookie csrf_token + body)", responses: { 200: FormToken } }, [csrfToken()], (token) => ({
      csrf_token: token,
      header: "x-csrf-token",
      field: "_csrf",
    })),
    route.post(
      "/form",
      { summary: "A CSRF-protected form post (header X-CSRF-Token or field _csrf)", responses: { 200: FormReceipt } },
      [form(t.object({ message: t.string({ length: { min: 1, max: 500 } }) }))],
      (body) => ({ message: body.message }),
    ),
  ]);
  return [me, clearCache, ...forms];
}

// --- background jobs ----------------------------------------------------------------------

const ReportRequest = t.named(
  "ReportRequest",
  t.object({
    kind: t.enum(["usage", "billing"]),
    month: t.string({ regex: "^[0-9]{4}-(0[1-9]|1[0-2])$" }),
    /** Documented failure: `fail: true` makes every attempt fail, so retries and dead letters can be seen. */
    fail: t.optional(t.boolean()),
  }),
);
const JobStateSchema = t.enum(["pending", "running", "succeeded", "dead"]);
const JobAccepted = t.named("JobAccepted", t.object({ id: t.string(), state: JobStateSchema, status_url: t.string() }));
const JobStatus = t.named(
  "JobStatus",
  t.object({
    id: t.string(),
    type: t.string(),
    state: JobStateSchema,
    attempts: t.u32(),
    max_attempts: t.u32(),
    last_error: t.nullable(t.string()),
    created_at: t.string({ format: "date-time" }),
    updated_at: t.string({ format: "date-time" }),
  }),
);

/** Builds a report in the background (a stand-in: real work would query and render). */
export const buildReport = defineJob({
  name: "reports.build",
  payload: ReportRequest,
  timeoutMs: 60_000,
  handler: async (request, signal) => {
    if (request.fail === true) throw new Error(`report ${request.kind} ${request.month}: the data source refused the query`);
    let total = 0;
    for (let day = 1; day <= 31; day++) {
      if (signal.aborted) throw signal.reason;
      total += day * (request.kind === "usage" ? 3 : 5);
      await new Promise((resolve) => setImmediate(resolve));
    }
    return total;
  },
});

export function createSampleJobQueue(options: { logger?: Logger; store?: JobStore; backoff?: { baseMs: number; factor: number; maxMs: number } } = {}): JobQueue {
  return new JobQueue({ jobs: [buildReport], concurrency: 4, maxAttempts: 3, backoff: options.backoff ?? { baseMs: 500, factor: 2, maxMs: 5_000 }, ...options });
}

/** `POST /api/v1/reports` (202 + Location) and `GET /api/v1/jobs/{id}`. */
export function jobRoutes(queue: JobQueue): RouteDefinition[] {
  const createReport = route.post(
    "/api/v1/reports",
    { tag: "jobs", summary: "Request a report, built in the background (202, job id and Location)", responses: { 202: JobAccepted } },
    [json(ReportRequest)],
    async (body) => {
      // Asking again for the same report while it still waits returns the same job.
      const id = await queue.enqueue(buildReport, body, { key: `report:${body.kind}:${body.month}:${body.fail === true}` });
      const location = `/api/v1/jobs/${id}`;
      const state = (await queue.getJob(id))?.state ?? "pending";
      return accepted({ id, state, status_url: location }, { location });
    },
  );
  const getJobStatus = route.get(
    "/api/v1/jobs/{id}",
    { tag: "jobs", summary: "State of a background job: state, attempts, last error", responses: { 200: JobStatus } },
    [path("id")],
    async (id) => {
      const job = await queue.getJob(id);
      if (job === undefined) throw ApiError.notFound(`job ${id} not found`);
      return {
        id: job.id,
        type: job.type,
        state: job.state,
        attempts: job.attempts,
        max_attempts: job.maxAttempts,
        last_error: job.lastError,
        created_at: job.createdAt,
        updated_at: job.updatedAt,
      };
    },
  );
  return [createReport, getJobStatus];
}

// --- the app ------------------------------------------------------------------------------

export interface SampleAppOptions {
  env?: string;
  logger?: ReturnType<typeof createJsonLogger>;
  /** HS256 secret for the JWT routes (default: KEEL_JWT_SECRET, or the dev secret outside production). */
  jwtSecret?: string;
  /** The background job queue (default: an in-memory queue, started with the app). */
  jobs?: JobQueue;
  /** The production baseline (request ids, spans, access logs, probes); registered outermost. */
  production?: Production;
}

export function createSampleApp(options: SampleAppOptions = {}): App {
  // Database driver errors thrown by handlers become the uniform 409/400/404/503 (SPEC Errors rule 5).
  registerErrorMapper(mapDatabaseError);
  const prod = options.production;
  const logger = prod?.logger ?? options.logger ?? createJsonLogger({ level: "info", write: (line) => process.stdout.write(line) });
  const app = new App({ ...(options.env === undefined ? {} : { env: options.env }), logger });
  const jobs = options.jobs ?? createSampleJobQueue({ logger });
  void jobs.start().catch((err: unknown) => logger.log(50, "job queue failed to start", { message: String(err) }));
  if (prod !== undefined) {
    // A queue problem degrades /health without taking the instance out of /ready.
    prod.check("jobs", jobs.healthCheck({ maxBacklog: 10_000, maxDeadLetters: 100 }), { critical: false });
    prod.register(app); // first: its layer (request id, span, access log) is the outermost
  }
  // After the HTTP drain: no new jobs, running ones get 8 s, the rest stay pending in the store;
  // then flush the log so the drain's own lines are written.
  app.onShutdown(async () => {
    await jobs.drain(8_000);
    await prod?.flush();
  });
  // Global layers, outermost first: CORS answers preflights before anything else runs;
  // compression sits outside negotiation so TOON bodies are compressed too.
  const origins = corsOrigins();
  if (origins.length > 0) {
    app.layer(cors({ origin: origins, credentials: true, allowHeaders: ["authorization", "content-type", "x-csrf-token"] }));
  }
  const cache = responseCache({ ttlMs: 30_000 });
  const { createUser, listUsers } = userRoutes(cache);
  // One generous token bucket per client across /api/v1 (attached to the routes, not matched by prefix).
  const apiV1 = group({ layers: [rateLimit({ capacity: 100, refillPerSecond: 20 })] }, [
    ping,
    listUsers,
    broken,
    ...authRoutes(options.jwtSecret ?? jwtSecret(options.env), cache),
    ...jobRoutes(jobs),
  ]);
  return app
    .layer(compression())
    .layer(securityHeaders())
    .layer(timeout(10_000))
    .layer(negotiation())
    .routes(hello, getUser, createUser, listProjects, echoText)
    .routes(apiV1)
    .register(docs("/docs", {
      securitySchemes: { bearerAuth: BEARER_SECURITY_SCHEME },
      title: "keel sample service",
      version: "0.1.0",
      description: "The sample service of the keel framework: every endpoint of the spec's sample application.",
    }));
}

// --- main --------------------------------------------------------------------------------------
// `node dist/server.js --help` lists flags and environment variables; `--workers N` runs a
// node:cluster of N processes; SIGTERM/SIGINT drain and exit 0.

const invokedDirectly = process.argv[1] !== undefined && /(?:^|[\\/])(?:server\.(?:ts|js))$/.test(process.argv[1]);
if (invokedDirectly) {
  void runService({
    service: "keel-sample",
    version: "0.1.0",
    description: "The keel sample service: every endpoint of the spec's sample application.",
    createApp: (config, prod) => createSampleApp({ env: config.env, production: prod }),
  });
}
