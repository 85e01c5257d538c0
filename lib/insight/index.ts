// keel/insight: per-route traffic numbers (status classes, latency percentiles, in-flight
// requests, bytes, top error types) recorded by one layer, served to admins at /admin/insight.
export { insight, DEFAULT_MAX_ROUTES, DEFAULT_TOP_ERRORS, type InsightOptions, type InsightHandle } from "./insight.js";
export { DEFAULT_ADMIN_PATH } from "./admin-routes.js";
export { UNMATCHED_ROUTE, OTHER_ROUTES, ANY_METHOD, type InsightSnapshot } from "./recorder.js";
export type { RouteInsight, StatusClass } from "./route-stats.js";
export type { InsightClock } from "./insight-layer.js";
export type { NameCount } from "./top-counts.js";
export { LatencyHistogram, HISTOGRAM_RELATIVE_ERROR } from "./histogram.js";
