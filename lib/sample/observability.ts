// The sample's observability beyond the production baseline (issue 19): Prometheus metrics at
// GET /metrics (HTTP by route pattern, the process, the job queue), traffic insight and request
// replay behind the admin token (KEEL_ADMIN_TOKEN; without it they have no admin routes), and
// the audit log (401s, 403s and admin requests; to KEEL_AUDIT_DIR as hash-chained JSONL files,
// in memory when unset). Span export (OpenTelemetry) is the baseline's, configured from OTEL_*.
import type { App } from "../index.js";
import { audit, auditLog, fileAuditSink, memoryAuditSink } from "../audit/index.js";
import { insight } from "../insight/index.js";
import type { JobQueue } from "../jobs/index.js";
import { jobQueueMetrics, metrics, MetricsRegistry, type Collector } from "../metrics/index.js";
import { FileReplayStore, MemoryReplayStore, replay, type ReplayPlugin } from "../replay/index.js";
import { defined } from "../plugin.js";

export interface SampleObservabilityOptions {
  /** Bearer token of the admin endpoints (at least 16 characters); none: no admin endpoints. */
  adminToken?: string;
  /** Directory of the audit log files; none: an in-memory audit log. */
  auditDir?: string;
  /** JSONL file of recorded requests (what `replay <id>` reads); none: kept in memory. */
  replayFile?: string;
  /** Share of requests recorded for replay (default 0.1). */
  replaySampleRate?: number;
  /** More collectors for GET /metrics (the OTLP exporter's). */
  collectors?: readonly Collector[];
}

/** Fields of JSON and form bodies that never reach a replay record (the built-in secret names cover them too). */
export const SAMPLE_REDACTED_FIELDS = ["password", "token", "secret", "csrf_token", "_csrf"];

/**
 * What the sample's routes take that is not secret, so `replay <id>` re-sends a working request:
 * the user list's paging, the report and user bodies (not the password), the form's message, the
 * tenant header and the idempotency key. Everything else a client sends is recorded redacted.
 */
export const SAMPLE_REPLAY_ALLOW = {
  query: ["limit", "cursor"],
  fields: ["email", "kind", "month", "message"],
  headers: ["x-tenant-id", "idempotency-key"],
} as const;

/**
 * Request recording for replay: one request in ten by default, secrets redacted, bodies capped
 * at 16 KiB and at most 200 records in memory (a few MiB at most) unless a file is configured.
 * Registered inside compression (by the caller) so bodies are recorded as the handler made them.
 */
export function sampleReplay(options: SampleObservabilityOptions): ReplayPlugin {
  return replay({
    sampleRate: options.replaySampleRate ?? 0.1,
    redactFields: SAMPLE_REDACTED_FIELDS,
    // The text echo answers with what the client sent: its answer would carry an unredacted body.
    routes: (method, pattern) => pattern !== "/echo-text",
    allowQuery: SAMPLE_REPLAY_ALLOW.query,
    allowFields: SAMPLE_REPLAY_ALLOW.fields,
    allowHeaders: SAMPLE_REPLAY_ALLOW.headers,
    maxRequestBody: 16 * 1024,
    maxResponseBody: 16 * 1024,
    store: options.replayFile === undefined ? new MemoryReplayStore({ capacity: 200 }) : new FileReplayStore({ path: options.replayFile }),
    adminPath: "/admin/replays",
    ...defined({ adminToken: options.adminToken }),
  });
}

export function registerSampleObservability(app: App, jobs: JobQueue, options: SampleObservabilityOptions): MetricsRegistry {
  const registry = new MetricsRegistry();
  app.onShutdown(registry.addCollector(jobQueueMetrics(jobs, { queue: "reports" })));
  for (const collector of options.collectors ?? []) app.onShutdown(registry.addCollector(collector));
  app.register(metrics({ registry, path: "/metrics" }));
  const admin = defined({ adminToken: options.adminToken });
  app.register(insight({ ...admin, adminPath: "/admin/insight" }));
  // In memory (no KEEL_AUDIT_DIR): the newest 1,000 records, so refused requests cannot grow it.
  const log = auditLog({ sink: options.auditDir === undefined ? memoryAuditSink({ maxLines: 1000 }) : fileAuditSink({ dir: options.auditDir }) });
  app.register(audit({ log }));
  app.onShutdown(() => log.close());
  return registry;
}
