// Traffic insight: `app.register(insight({ adminToken }))` records, per route pattern and method,
// answers by status class, latency percentiles, requests in flight, request and response bytes
// and the most frequent error types, in memory bounded by the route table (see recorder.ts,
// route-stats.ts, histogram.ts). The numbers are served at `GET /admin/insight` to callers
// that pass adminAccessLayers(); with neither an admin token nor admin layers there is no admin
// route at all, and the handle's `insightStats()` is the only way to read them.
// Register it before the other layers: it wraps what is registered after it.
import type { App } from "../index.js";
import { performance } from "node:perf_hooks";
import { adminAccessLayers, type AdminAccessOptions } from "../shared/admin-access.js";
import { DEFAULT_ADMIN_PATH, insightAdminRoutes, normalizeAdminPath } from "./admin-routes.js";
import { insightLayer, type InsightClock } from "./insight-layer.js";
import { InsightRecorder, type InsightSnapshot } from "./recorder.js";
import type { RouteInsight } from "./route-stats.js";

export interface InsightOptions extends AdminAccessOptions {
  /** Where the admin endpoint is served (default "/admin/insight"); only with admin access. */
  adminPath?: string;
  /** At most this many route entries (default 500); routes past it share "(other routes)". */
  maxRoutes?: number;
  /** Error types kept per route, most frequent (default 10). */
  topErrors?: number;
  /** Monotonic milliseconds for latencies (default `performance.now`); tests pass their own. */
  clock?: InsightClock;
}

/** The plugin, and how to read what it recorded in-process. */
export interface InsightHandle {
  (app: App): void;
  /** Every route that has seen traffic, most requested first, and since when. */
  insightStats(): InsightSnapshot;
  /** One route by method and pattern (`"GET", "/users/{id}"`), if it has seen traffic. */
  routeStats(method: string, route: string): RouteInsight | undefined;
  /** Clear the counts and start a new `since` (requests in flight stay counted). */
  reset(): void;
}

export const DEFAULT_MAX_ROUTES = 500;
export const DEFAULT_TOP_ERRORS = 10;

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`insight: ${name} must be a positive integer, got ${String(value)}`);
  return value;
}

/**
 * Per-route traffic numbers (status classes, latency percentiles, in flight, bytes, top error
 * types), recorded by one layer and served to admins at /admin/insight.
 *
 * @example
 * const traffic = insight({ adminToken: process.env["KEEL_ADMIN_TOKEN"] });
 * app.register(traffic);                      // first, so it times every other layer
 * traffic.routeStats("GET", "/users/{id}");   // or GET /admin/insight with the token
 *
 * @see docs/features/insight.md
 */
export function insight(options: InsightOptions = {}): InsightHandle {
  const maxRoutes = positiveInteger(options.maxRoutes, DEFAULT_MAX_ROUTES, "maxRoutes");
  const topErrors = positiveInteger(options.topErrors, DEFAULT_TOP_ERRORS, "topErrors");
  const clock = options.clock ?? performance.now.bind(performance);
  if (typeof clock !== "function") throw new TypeError("insight: clock must be a function returning milliseconds");
  const adminPath = normalizeAdminPath(options.adminPath ?? DEFAULT_ADMIN_PATH);
  // Checked now, so a short token fails at startup and not on the first admin request.
  const access = adminAccessLayers(options, "insight");
  const recorder = new InsightRecorder(maxRoutes, topErrors);
  const registered = new WeakSet<App>();

  const plugin = (app: App): void => {
    if (registered.has(app)) throw new TypeError("insight: already registered on this app (it would count every request twice)");
    registered.add(app);
    app.layer(insightLayer(recorder, clock));
    if (access !== null) app.routes(insightAdminRoutes(recorder, adminPath, access));
  };
  return Object.assign(plugin, {
    insightStats: () => recorder.snapshot(),
    routeStats: (method: string, route: string) => recorder.find(method, route),
    reset: () => recorder.reset(),
  });
}
