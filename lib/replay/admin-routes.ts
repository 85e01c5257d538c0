// The admin API over the recordings: list (summaries, newest first, filtered), one record, delete.
// Guarded by the layers from shared/admin-access.ts, hidden from the OpenAPI document, and
// audited as admin requests when the audit() plugin is registered (`config.audit`). Errors
// are keel's uniform body (RustAPI's replay admin answers a flat `{"error","message"}`).
// There is deliberately no "replay this record to a URL" route: a server that sends requests to
// a URL its caller names is a request-forgery tool; replays run from the CLI instead.
import { ApiError, type Layer, noContent, path, query, route, type RouteDefinition, t } from "../index.js";
import type { ReplayRecord } from "./record.js";
import { MAX_LIST_LIMIT, type ReplayStore } from "./store.js";
import { defined } from "../plugin.js";

export const DEFAULT_ADMIN_PATH = "/admin/replays";

/** What the list route answers per record (the full record is one GET away). */
export interface ReplaySummary {
  id: string;
  recorded_at: string;
  method: string;
  path: string;
  route: string;
  status: number;
  duration_ms: number;
}

export function summarize(r: ReplayRecord): ReplaySummary {
  return { id: r.id, recorded_at: r.recorded_at, method: r.request.method, path: r.request.path, route: r.meta.route, status: r.response.status, duration_ms: r.meta.duration_ms };
}

const ListQuery = t.object({
  route: t.optional(t.string({ minLength: 1, maxLength: 2048 })),
  status: t.optional(t.integer({ minimum: 100, maximum: 599 })),
  since: t.optional(t.string({ format: "date-time" })),
  limit: t.optional(t.integer({ minimum: 1, maximum: MAX_LIST_LIMIT })),
});

/** `/admin/replays/` -> `/admin/replays`; refuses what is not a plain absolute path. */
export function normalizeAdminPath(value: string): string {
  const trimmed = value.length > 1 && value.endsWith("/") ? value.slice(0, -1) : value;
  if (!trimmed.startsWith("/") || trimmed === "/" || /[{}:*?#\s]/.test(trimmed)) {
    throw new TypeError(`replay: adminPath must be an absolute path without parameters, got ${JSON.stringify(value)}`);
  }
  return trimmed;
}

export function adminRoutes(store: ReplayStore, base: string, layers: readonly Layer[]): RouteDefinition[] {
  const meta = { hidden: true, tag: "replay", layers, config: { audit: "admin" } };
  const notFound = (id: string): ApiError => ApiError.notFound(`No recording with id ${JSON.stringify(id)}`);
  return [
    route.get(base, { ...meta, summary: "List recorded requests, newest first" }, [query(ListQuery)], async (q) => {
      const records = await store.list({
        ...defined({ route: q.route, status: q.status }),
        ...(q.since === undefined ? {} : { since: new Date(q.since) }),
        ...defined({ limit: q.limit }),
      });
      return { records: records.map(summarize) };
    }),
    route.get(`${base}/{id}`, { ...meta, summary: "One recorded request and its response" }, [path("id")], async (id) => {
      const found = await store.get(id);
      if (found === null) throw notFound(id);
      return found;
    }),
    route.delete(`${base}/{id}`, { ...meta, summary: "Delete a recording" }, [path("id")], async (id) => {
      if (!(await store.delete(id))) throw notFound(id);
      return noContent();
    }),
  ];
}
