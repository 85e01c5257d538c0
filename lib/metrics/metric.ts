// What counters, gauges and histograms share: a checked name, help text, optional unit, label
// names fixed at registration, and a bounded table of series, one per label set. Past the limit
// a new label set is refused (a stand-in series records nothing) and the refusal is counted in
// keel_metrics_label_overflow_total, so an unbounded label value (a raw path, a user id) cannot
// grow the process's memory or the scrape without bound.
import { labelText } from "./escape.js";
import { checkLabelNames, checkMetricName, checkUnit } from "./names.js";
import type { Series } from "./series.js";

export type MetricType = "counter" | "gauge" | "histogram";

/** Label values by label name; numbers are written as `String(n)`. */
export type LabelValues = Readonly<Record<string, string | number>>;

export const DEFAULT_MAX_SERIES = 1000;

export interface MetricOptions {
  name: string;
  help: string;
  labelNames?: readonly string[];
  /** OpenMetrics unit (`seconds`, `bytes`); the name must end in `_<unit>`. */
  unit?: string;
  /** Most label sets this metric keeps (default: the registry's, 1000). */
  maxSeries?: number;
}

/** Called with the metric's name when a new label set is refused. */
export type OverflowHook = (metric: string) => void;

const NO_LABELS: readonly string[] = Object.freeze([]);

export abstract class Metric<S extends Series> {
  abstract readonly type: MetricType;
  /** The family name (a counter's without `_total`). */
  readonly name: string;
  readonly help: string;
  readonly unit: string | null;
  readonly labelNames: readonly string[];
  readonly maxSeries: number;
  private readonly table = new Map<string, S>();
  private standIn: S | null = null;
  private readonly onOverflow: OverflowHook;

  protected constructor(options: MetricOptions, familyName: string, reservedLabels: readonly string[], defaultMaxSeries: number, onOverflow: OverflowHook) {
    checkMetricName(options.name);
    if (typeof options.help !== "string" || options.help === "") throw new TypeError(`metrics: ${options.name}: help text is required`);
    this.name = familyName;
    this.help = options.help;
    this.unit = null;
    if (options.unit !== undefined) {
      checkUnit(familyName, options.unit);
      this.unit = options.unit;
    }
    this.labelNames = checkLabelNames(options.name, options.labelNames ?? [], reservedLabels);
    const max = options.maxSeries ?? defaultMaxSeries;
    if (!(max >= 1) || (max !== Infinity && !Number.isInteger(max))) throw new TypeError(`metrics: ${options.name}: maxSeries must be a positive integer`);
    this.maxSeries = max;
    this.onOverflow = onOverflow;
  }

  protected abstract createSeries(labelText: string, labelValues: readonly string[], attached: boolean): S;

  /** The series of one label set (every label name given, no other); created on first use. */
  labels(values: LabelValues): S {
    const names = this.labelNames;
    let key = "";
    for (let i = 0; i < names.length; i++) {
      const v = Object.hasOwn(values, names[i]!) ? values[names[i]!] : undefined;
      const s = typeof v === "string" ? v : typeof v === "number" ? String(v) : this.missingLabel(names[i]!);
      // Length-prefixed, so no label value can make two label sets share a key.
      key += s.length + ":" + s;
    }
    let given = 0;
    for (const k in values) if (Object.hasOwn(values, k)) given++;
    if (given !== names.length) this.extraLabel(values);
    const found = this.table.get(key);
    if (found !== undefined) return found;
    if (this.table.size >= this.maxSeries) {
      this.onOverflow(this.name);
      return (this.standIn ??= this.createSeries("", NO_LABELS, false));
    }
    const labelValues = names.map((n) => String(values[n]));
    const series = this.createSeries(labelText(names, labelValues), labelValues, true);
    this.table.set(key, series);
    return series;
  }

  /** Every series, in the order their label sets were first used. */
  series(): IterableIterator<S> {
    return this.table.values();
  }

  /** Forget every series (a collector whose label sets come and go). */
  clear(): void {
    this.table.clear();
  }

  /** The one series of a metric without labels. */
  protected unlabeled(): S {
    if (this.labelNames.length !== 0) throw new TypeError(`metrics: ${this.name} has labels (${this.labelNames.join(", ")}): use .labels({...})`);
    return this.labels({});
  }

  private missingLabel(name: string): never {
    throw new TypeError(`metrics: ${this.name}: label "${name}" needs a string or number value`);
  }

  private extraLabel(values: LabelValues): never {
    const extra = Object.keys(values).filter((k) => !this.labelNames.includes(k));
    throw new TypeError(`metrics: ${this.name}: unknown label ${JSON.stringify(extra[0])} (labels: ${this.labelNames.join(", ") || "none"})`);
  }
}
