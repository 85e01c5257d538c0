// The OTLP exporter collector: a keel/otel exporter's `stats()` as counters of its running totals
// (spans exported, dropped, failed, rejected; failed export requests and retries) and a gauge of
// the spans waiting. The exporter is described by the shape of its stats, not imported, so this
// feature does not depend on keel/otel (as the job-queue collector does not on keel/jobs).
import type { Counter } from "./counter.js";
import type { Gauge } from "./gauge.js";
import type { AttachedCollector, Collector, MetricsRegistry } from "./registry.js";

/** The OtlpExporterStats fields reported, their counter names and help. */
const TOTALS = [
  ["exported", "keel_otlp_exported_spans_total", "Spans the collector accepted."],
  ["dropped", "keel_otlp_dropped_spans_total", "Spans dropped: the queue was full, the exporter was shut down, or the shutdown deadline passed before they were sent."],
  ["failedSpans", "keel_otlp_failed_spans_total", "Spans in batches given up on (a non-retryable answer, out of tries, or past a flush's deadline)."],
  ["rejected", "keel_otlp_rejected_spans_total", "Spans the collector rejected in a partial success."],
  ["failedExports", "keel_otlp_export_failures_total", "Export requests that failed: no answer (refused, reset, timed out) or an error status."],
  ["retries", "keel_otlp_export_retries_total", "Export requests that were tries after the first."],
] as const;

type TotalField = (typeof TOTALS)[number][0];

/** What the collector reads from `exporter.stats()` (an OtlpExporter of keel/otel fits). */
export interface OtlpExportStatsSource {
  stats(): { readonly queued: number } & { readonly [F in TotalField]?: number };
}

class OtlpExportCollector implements AttachedCollector {
  private readonly queued: Gauge;
  private readonly totals: ReadonlyArray<readonly [field: TotalField, counter: Counter]>;

  constructor(registry: MetricsRegistry, private readonly source: OtlpExportStatsSource) {
    this.queued = registry.gauge({ name: "keel_otlp_queued_spans", help: "Spans waiting to be exported." });
    this.totals = TOTALS.map(([field, name, help]) => [field, registry.counter({ name, help })] as const);
  }

  collect(): void {
    const stats = this.source.stats();
    this.queued.set(stats.queued);
    for (const [field, counter] of this.totals) {
      const total = stats[field];
      if (typeof total === "number") counter.advanceTo(total);
    }
  }
}

/** A collector for an OTLP exporter: `registry.addCollector(otlpExportMetrics(exporter))`. */
export function otlpExportMetrics(exporter: OtlpExportStatsSource): Collector {
  return { name: "otlp", attach: (registry) => new OtlpExportCollector(registry, exporter) };
}
