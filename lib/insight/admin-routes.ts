// The admin endpoint of traffic insight, behind the layers of adminAccessLayers():
//   GET {adminPath}                     every route that has seen traffic, and since when
//   GET {adminPath}/{method}/{*route}   one route: `/admin/insight/GET/users/{id}` (the braces may
//                                       be percent-encoded), `/admin/insight/*/(unmatched)`
// Hidden from the OpenAPI document, not recorded themselves (`config: { insight: false }`), and
// audited as admin requests when the audit() plugin is registered (`config: { audit: "admin" }`).
import { ApiError, type Layer, path, type Reply, route, type RouteDefinition } from "../index.js";
import { jsonReply } from "../plugin.js";
import type { InsightRecorder } from "./recorder.js";

export const DEFAULT_ADMIN_PATH = "/admin/insight";

/** "/admin/insight/" -> "/admin/insight". Throws on a path that is not absolute or is "/". */
export function normalizeAdminPath(adminPath: string): string {
  if (typeof adminPath !== "string" || !adminPath.startsWith("/")) {
    throw new TypeError(`insight: adminPath must start with "/", got ${JSON.stringify(adminPath)}`);
  }
  const trimmed = adminPath.replace(/\/+$/, "");
  if (trimmed === "") throw new TypeError('insight: adminPath must not be "/"');
  return trimmed;
}

const NO_STORE = { "cache-control": "no-store" };

function snapshotReply(value: unknown): Reply {
  return jsonReply(value, 200, NO_STORE);
}

export function insightAdminRoutes(recorder: InsightRecorder, adminPath: string, layers: readonly Layer[]): RouteDefinition[] {
  const meta = { hidden: true, layers, config: { insight: false, audit: "admin" } } as const;
  return [
    route.get(adminPath, { ...meta, summary: "Traffic insight: every route" }, [], () => snapshotReply(recorder.snapshot())),
    route.get(`${adminPath}/{method}/{*route}`, { ...meta, summary: "Traffic insight: one route" }, [path("method"), path("route")], (method: string, tail: string) => {
      // Patterns start with "/"; the shared buckets are named "(unmatched)" and "(other routes)".
      const pattern = tail.startsWith("(") ? tail : `/${tail}`;
      const found = recorder.find(method.toUpperCase(), pattern);
      if (found === undefined) throw ApiError.notFound(`No traffic recorded for ${method} ${pattern}`);
      return snapshotReply(found);
    }),
  ];
}
