// A registry: the metrics of one exposition, in registration order, and the collectors that
// update some of them when a scrape comes. Names are checked at registration, including the names
// a family's samples take (`x_total`, `x_bucket`, `x_sum`, `x_count`), so two families can never
// write the same sample name. Registering the same definition twice returns the first metric
// (two layers, or two apps, can share a registry); the same name with another definition throws.
import { Counter, counterFamilyName } from "./counter.js";
import { exposition, type AnyMetric, type ExpositionFormat } from "./exposition.js";
import { Gauge } from "./gauge.js";
import { Histogram, type HistogramOptions } from "./histogram.js";
import { DEFAULT_MAX_SERIES, type MetricOptions } from "./metric.js";

/** What a collector's `attach` returns: the update run at every scrape, and how to stop it. */
export interface AttachedCollector {
  /** Bring the collector's metrics up to date; may be async (a job store's counts). */
  collect(): void | Promise<void>;
  /** Stop any background measurement (event-loop delay, GC observer). */
  close?(): void;
}

/** Something that reports at scrape time (process figures, a job queue). */
export interface Collector {
  /** Names the collector in keel_metrics_collector_errors_total. */
  readonly name: string;
  /** Register the metrics it reports in `registry` (once) and return its scrape-time update. */
  attach(registry: MetricsRegistry): AttachedCollector;
}

export interface MetricsRegistryOptions {
  /** Default label-set limit of each metric (1000). */
  maxSeriesPerMetric?: number;
  /** How long a scrape waits for one collector, ms (default 5000); a late one counts as an error. */
  collectTimeout?: number;
}

interface AttachedEntry {
  readonly name: string;
  readonly handle: AttachedCollector;
}

export class MetricsRegistry {
  private readonly families = new Map<string, AnyMetric>();
  /** Every family and sample name in use, with the family that uses it. */
  private readonly taken = new Map<string, string>();
  private readonly collectors: AttachedEntry[] = [];
  private readonly maxSeries: number;
  private readonly collectTimeout: number;
  private readonly overflow: Counter;
  private readonly collectErrors: Counter;
  private readonly onOverflow = (metric: string): void => {
    this.overflow.labels({ metric }).inc();
  };

  constructor(options: MetricsRegistryOptions = {}) {
    this.maxSeries = options.maxSeriesPerMetric ?? DEFAULT_MAX_SERIES;
    this.collectTimeout = options.collectTimeout ?? 5000;
    if (!(this.collectTimeout > 0)) throw new TypeError("metrics: collectTimeout must be a positive number of ms");
    // Their label values are metric and collector names: bounded by what is registered.
    this.overflow = this.counter({
      name: "keel_metrics_label_overflow_total",
      help: "Label sets refused because their metric reached its series limit.",
      labelNames: ["metric"],
      maxSeries: Infinity,
    });
    this.collectErrors = this.counter({
      name: "keel_metrics_collector_errors_total",
      help: "Collectors that failed or timed out during a scrape.",
      labelNames: ["collector"],
      maxSeries: Infinity,
    });
  }

  counter(options: MetricOptions): Counter {
    return this.add(new Counter(options, this.maxSeries, this.onOverflow), [counterFamilyName(options.name) + "_total", counterFamilyName(options.name) + "_created"]);
  }

  gauge(options: MetricOptions): Gauge {
    return this.add(new Gauge(options, this.maxSeries, this.onOverflow), []);
  }

  histogram(options: HistogramOptions): Histogram {
    const n = options.name;
    return this.add(new Histogram(options, this.maxSeries, this.onOverflow), [n + "_bucket", n + "_sum", n + "_count", n + "_created"]);
  }

  /** The metric registered under this family name (a counter's without `_total`). */
  get(name: string): AnyMetric | undefined {
    return this.families.get(name) ?? this.families.get(counterFamilyName(name));
  }

  /** Every metric, in registration order. */
  metrics(): IterableIterator<AnyMetric> {
    return this.families.values();
  }

  /**
   * Attach a collector; returns the function that detaches (and closes) it. A collector whose name
   * is already attached is not attached again (two apps registering `metrics()` on one registry
   * must not count each GC twice): the returned function then does nothing.
   */
  addCollector(collector: Collector): () => void {
    if (this.collectors.some((c) => c.name === collector.name)) return () => {};
    const entry: AttachedEntry = { name: collector.name, handle: collector.attach(this) };
    this.collectors.push(entry);
    return () => {
      const i = this.collectors.indexOf(entry);
      if (i === -1) return;
      this.collectors.splice(i, 1);
      entry.handle.close?.();
    };
  }

  /** Run every collector (concurrently); one that throws or is late is counted, not fatal. */
  async collect(): Promise<void> {
    if (this.collectors.length === 0) return;
    await Promise.all(this.collectors.map((c) => this.runCollector(c)));
  }

  /** Collect, then write every metric in the given format. */
  async expose(format: ExpositionFormat = "prometheus"): Promise<string> {
    await this.collect();
    return exposition(this.families.values(), format);
  }

  /** Detach and close every collector. */
  close(): void {
    for (const c of this.collectors.splice(0)) c.handle.close?.();
  }

  private async runCollector(c: AttachedEntry): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("collector timed out")), this.collectTimeout);
      });
      await Promise.race([Promise.resolve().then(() => c.handle.collect()), late]);
    } catch {
      this.collectErrors.labels({ collector: c.name }).inc();
    } finally {
      clearTimeout(timer);
    }
  }

  private add<M extends AnyMetric>(metric: M, sampleNames: readonly string[]): M {
    const existing = this.families.get(metric.name);
    if (existing !== undefined) {
      if (sameDefinition(existing, metric)) return existing as M;
      throw new TypeError(`metrics: ${metric.name} is already registered with another definition`);
    }
    for (const n of [metric.name, ...sampleNames]) {
      const owner = this.taken.get(n);
      if (owner !== undefined) throw new TypeError(`metrics: ${metric.name} would write samples named ${n}, which ${owner} already writes`);
    }
    for (const n of [metric.name, ...sampleNames]) this.taken.set(n, metric.name);
    this.families.set(metric.name, metric);
    return metric;
  }
}

function sameDefinition(a: AnyMetric, b: AnyMetric): boolean {
  if (a.type !== b.type || a.help !== b.help || a.unit !== b.unit || a.maxSeries !== b.maxSeries) return false;
  if (a.labelNames.length !== b.labelNames.length || a.labelNames.some((n, i) => n !== b.labelNames[i])) return false;
  if (a.type === "histogram" && b.type === "histogram") {
    return a.bounds.length === b.bounds.length && a.bounds.every((x, i) => x === b.bounds[i]);
  }
  return true;
}

let shared: MetricsRegistry | null = null;

/** The process-wide registry used when none is given (created on first use). */
export function defaultMetricsRegistry(): MetricsRegistry {
  return (shared ??= new MetricsRegistry());
}
