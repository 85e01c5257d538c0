// The job-queue collector: a keel JobQueue's `stats()` (async: the store is asked for its counts)
// as gauges for what is now (jobs by state, running here, concurrency, phase) and counters for
// its running totals. The queue is described by the shape of its stats, not imported, so this
// feature does not depend on keel/jobs. Several queues share the families under a `queue` label.
import type { Counter } from "./counter.js";
import type { Gauge } from "./gauge.js";
import type { AttachedCollector, Collector, MetricsRegistry } from "./registry.js";

const STATES = ["pending", "running", "succeeded", "dead"] as const;
const PHASES = ["idle", "running", "draining", "stopped"] as const;

/** The JobQueueTotals fields reported, their counter names and help. */
const TOTALS = [
  ["enqueued", "keel_jobs_enqueued_total", "Jobs enqueued."],
  ["deduplicated", "keel_jobs_deduplicated_total", "Enqueues answered with an existing job (same dedup key)."],
  ["started", "keel_jobs_started_total", "Job attempts started."],
  ["succeeded", "keel_jobs_succeeded_total", "Jobs that succeeded."],
  ["failed", "keel_jobs_failed_total", "Failed job attempts (throw, rejection, timeout)."],
  ["retried", "keel_jobs_retried_total", "Failed attempts scheduled for another try."],
  ["deadLettered", "keel_jobs_dead_lettered_total", "Jobs moved to the dead-letter queue."],
  ["timedOut", "keel_jobs_timed_out_total", "Job attempts that timed out."],
  ["deadRetried", "keel_jobs_dead_retried_total", "Dead letters put back to pending."],
  ["released", "keel_jobs_released_total", "Running jobs put back to pending at the drain deadline."],
  ["evictedSucceeded", "keel_jobs_evicted_succeeded_total", "Succeeded jobs dropped by the store's retention caps."],
  ["evictedDead", "keel_jobs_evicted_dead_total", "Dead letters dropped by the store's retention caps."],
] as const;

type TotalField = (typeof TOTALS)[number][0];

/** What the collector reads from `queue.stats()` (a JobQueueStats of keel/jobs fits). */
export interface JobQueueStatsSource {
  stats(): Promise<{
    readonly phase: string;
    readonly concurrency: number;
    readonly active: number;
    readonly counts: { readonly [S in (typeof STATES)[number]]?: number };
    readonly totals: { readonly [F in TotalField]?: number };
  }>;
}

export interface JobQueueMetricsOptions {
  /** The `queue` label value (default "default"). */
  queue?: string;
}

class JobQueueCollector implements AttachedCollector {
  private readonly jobs: Gauge;
  private readonly active: Gauge;
  private readonly concurrency: Gauge;
  private readonly phase: Gauge;
  private readonly totals: ReadonlyArray<readonly [field: TotalField, counter: Counter]>;

  constructor(registry: MetricsRegistry, private readonly source: JobQueueStatsSource, private readonly queue: string) {
    const byQueue = ["queue"];
    this.jobs = registry.gauge({ name: "keel_jobs", help: "Jobs in the store, by state.", labelNames: ["queue", "state"] });
    this.active = registry.gauge({ name: "keel_jobs_active", help: "Jobs running in this process.", labelNames: byQueue });
    this.concurrency = registry.gauge({ name: "keel_jobs_concurrency", help: "Jobs this process runs at once.", labelNames: byQueue });
    this.phase = registry.gauge({ name: "keel_job_queue_phase", help: "The queue's phase: 1 for the current one, 0 for the others.", labelNames: ["queue", "phase"] });
    this.totals = TOTALS.map(([field, name, help]) => [field, registry.counter({ name, help, labelNames: byQueue })] as const);
  }

  async collect(): Promise<void> {
    const stats = await this.source.stats();
    const queue = this.queue;
    for (const state of STATES) {
      const n = stats.counts[state];
      if (typeof n === "number") this.jobs.labels({ queue, state }).set(n);
    }
    this.active.labels({ queue }).set(stats.active);
    this.concurrency.labels({ queue }).set(stats.concurrency);
    for (const phase of PHASES) this.phase.labels({ queue, phase }).set(stats.phase === phase ? 1 : 0);
    for (const [field, counter] of this.totals) {
      const total = stats.totals[field];
      if (typeof total === "number") counter.labels({ queue }).advanceTo(total);
    }
  }
}

/** A collector for one job queue: `registry.addCollector(jobQueueMetrics(queue))`. */
export function jobQueueMetrics(queue: JobQueueStatsSource, options: JobQueueMetricsOptions = {}): Collector {
  const name = options.queue ?? "default";
  return { name: `jobs:${name}`, attach: (registry) => new JobQueueCollector(registry, queue, name) };
}
