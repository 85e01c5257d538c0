// The three probes, declared as ordinary routes (tag "health"), so they are in the OpenAPI
// document and pass through the app's layers like any other route:
//   GET /live    200 {"status":"ok"} while the process can serve
//   GET /ready   200 {"status":"ready","checks":{…}}; 503 {"status":"unready","checks":{…}} when a
//                critical check fails; 503 {"status":"draining"} once shutdown has begun
//   GET /health  {"status":"ok"|"degraded"|"fail","service","version"?,"uptime_s","checks":{…}};
//                200 unless a critical check fails (503)
// A failing check shows its name, status and a generic reason; why it fails (an error message that
// may name internal hosts and ports) only to callers with the admin token or admitted by
// `showDetails` (probe-access.ts). Probe replies carry `cache-control: no-store`. Their access-log lines are at debug level by
// default (route config `accessLog`), so a load balancer's polling does not flood the log.
import { context, type Context, Reply, route, type RouteDefinition, t } from "../../index.js";
import { defined, JSON_TYPE } from "../../plugin.js";
import { HealthChecks, type CheckOutcome, type HealthReport } from "./health-checks.js";
import { probeTokenAccess, type ProbeDetailAccess, type ProbeToken } from "./probe-access.js";

export interface ProbePaths {
  /** Path of the liveness probe, or false to leave it out (default "/live"). */
  live?: string | false;
  /** Default "/ready". */
  ready?: string | false;
  /** Default "/health". */
  health?: string | false;
}

export interface ProbeOptions {
  /** Service name in the /health body. */
  service: string;
  version?: string;
  /** The checks behind /ready and /health (default: a new, empty registry). */
  checks?: HealthChecks;
  paths?: ProbePaths;
  /** OpenAPI tag (default "health"). */
  tag?: string;
  /** Access-log level of probe requests: a level, or false for none (default "debug"). */
  accessLog?: string | number | false;
  /**
   * The bearer token (at least 16 characters) that shows why checks fail; or a function read
   * per request. Without it (and without showDetails) nobody sees the reasons.
   */
  adminToken?: ProbeToken;
  /** Or: who else sees the reasons (e.g. `() => true` on a private network). */
  showDetails?: ProbeDetailAccess;
}

export const DEFAULT_PROBE_PATHS = { live: "/live", ready: "/ready", health: "/health" } as const;

const CheckResult = t.object({
  status: t.enum(["ok", "degraded", "fail"]),
  duration_ms: t.optional(t.number()),
  error: t.optional(t.string()),
});
export const LiveBody = t.named("LiveProbe", t.object({ status: t.literal("ok") }));
export const ReadyBody = t.named(
  "ReadyProbe",
  t.object({ status: t.enum(["ready", "unready", "draining"]), checks: t.optional(t.record(CheckResult)) }),
);
export const HealthBody = t.named(
  "HealthProbe",
  t.object({
    status: t.enum(["ok", "degraded", "fail"]),
    service: t.string(),
    version: t.optional(t.string()),
    uptime_s: t.number(),
    checks: t.record(CheckResult),
  }),
);

const NO_STORE = "no-store";

/** A probe's answer: JSON text written here (the probes' bodies are fixed shapes), 200 or 503. */
type ProbeReply = Reply<200, never> | Reply<503, never>;

function probeReply(status: 200 | 503, body: string): ProbeReply {
  const r = new Reply<200, never>(status as 200, body);
  r.headers["content-type"] = JSON_TYPE;
  r.headers["cache-control"] = NO_STORE;
  return r;
}

const LIVE_JSON = JSON.stringify({ status: "ok" });
const DRAINING_JSON = JSON.stringify({ status: "draining" });

function readyReply(report: HealthReport, details: boolean): ProbeReply {
  return probeReply(report.ready ? 200 : 503, JSON.stringify({ status: report.ready ? "ready" : "unready", checks: details ? report.checks : publicChecks(report) }));
}

/** Reasons shown to callers without access: they say what kind of trouble, never where. */
const GENERIC_REASON = { fail: "check failed", degraded: "check degraded" } as const;

/** The checks with each reason replaced by a generic one. */
function publicChecks(report: HealthReport): Record<string, CheckOutcome> {
  const out: Record<string, CheckOutcome> = Object.create(null) as Record<string, CheckOutcome>;
  for (const [name, outcome] of Object.entries(report.checks)) {
    out[name] = outcome.status === "ok" ? outcome : { status: outcome.status, duration_ms: outcome.duration_ms, error: GENERIC_REASON[outcome.status] };
  }
  return out;
}

function checkPath(name: string, p: string): string {
  if (!p.startsWith("/")) throw new TypeError(`probe path for ${name} must start with "/", got ${JSON.stringify(p)}`);
  return p;
}

/** The probe routes, ready for `app.routes(...)`. */
export function probeRoutes(options: ProbeOptions): RouteDefinition[] {
  const checks = options.checks ?? new HealthChecks();
  const tag = options.tag ?? "health";
  const paths = { ...DEFAULT_PROBE_PATHS, ...options.paths };
  const config = { accessLog: options.accessLog ?? "debug" };
  const service = options.service;
  const version = options.version;
  const byToken = options.adminToken === undefined ? null : probeTokenAccess(options.adminToken);
  const showDetails = options.showDetails;
  const details = (ctx: Context): boolean => (byToken !== null && byToken(ctx)) || (showDetails !== undefined && showDetails(ctx));
  const routes: RouteDefinition[] = [];

  if (paths.live !== false) {
    routes.push(
      route.get(
        checkPath("live", paths.live),
        { tag, summary: "Liveness probe", description: "200 while the process can serve requests.", responses: { 200: LiveBody }, config },
        [],
        () => probeReply(200, LIVE_JSON) as Reply<200, never>,
      ),
    );
  }
  if (paths.ready !== false) {
    routes.push(
      route.get(
        checkPath("ready", paths.ready),
        {
          tag,
          summary: "Readiness probe",
          description: "200 when every critical check passes; 503 when one fails or once graceful shutdown has begun (status \"draining\"). Why a check fails is shown with the admin token only.",
          responses: { 200: ReadyBody, 503: ReadyBody },
          config,
        },
        [context()],
        (ctx: Context): ProbeReply | Promise<ProbeReply> => {
          if (ctx.runtime.draining) return probeReply(503, DRAINING_JSON);
          return checks.run().then((report) => (ctx.runtime.draining ? probeReply(503, DRAINING_JSON) : readyReply(report, details(ctx))));
        },
      ),
    );
  }
  if (paths.health !== false) {
    routes.push(
      route.get(
        checkPath("health", paths.health),
        {
          tag,
          summary: "Health report",
          description: "Service name, version, uptime and every check; 503 when a critical check fails, 200 otherwise (\"degraded\" included). Why a check fails is shown with the admin token only.",
          responses: { 200: HealthBody, 503: HealthBody },
          config,
        },
        [context()],
        async (ctx: Context): Promise<ProbeReply> => {
          const report = await checks.run();
          const body = {
            status: report.status,
            service,
            ...defined({ version }),
            uptime_s: Math.floor(process.uptime()),
            checks: details(ctx) ? report.checks : publicChecks(report),
          };
          return probeReply(report.status === "fail" ? 503 : 200, JSON.stringify(body));
        },
      ),
    );
  }
  return routes;
}
