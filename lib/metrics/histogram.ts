// A histogram: observations counted into buckets fixed at registration, exposed cumulatively
// (`_bucket{le="..."}` up to `+Inf`) with `_sum` and `_count`.
import { Metric, type MetricOptions, type OverflowHook } from "./metric.js";
import { HistogramSeries } from "./series.js";
import { checkNotCounterLike } from "./names.js";

export interface HistogramOptions extends MetricOptions {
  /** Upper bounds, strictly increasing and finite (+Inf is always added). Default: the OTel seconds boundaries. */
  buckets?: readonly number[];
}

/** OpenTelemetry's default explicit bucket boundaries for durations in seconds. */
export const DEFAULT_SECONDS_BUCKETS: readonly number[] = Object.freeze([0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]);

export class Histogram extends Metric<HistogramSeries> {
  readonly type = "histogram" as const;
  readonly bounds: Float64Array;

  constructor(options: HistogramOptions, defaultMaxSeries: number, onOverflow: OverflowHook) {
    super(options, options.name, ["le"], defaultMaxSeries, onOverflow);
    checkNotCounterLike(this.name);
    this.bounds = checkBuckets(this.name, options.buckets ?? DEFAULT_SECONDS_BUCKETS);
    if (this.labelNames.length === 0) this.labels({});
  }

  protected createSeries(labelText: string, labelValues: readonly string[], attached: boolean): HistogramSeries {
    return new HistogramSeries(this.bounds, labelText, labelValues, attached);
  }

  observe(value: number): void {
    this.unlabeled().observe(value);
  }
}

function checkBuckets(name: string, buckets: readonly number[]): Float64Array {
  if (!Array.isArray(buckets)) throw new TypeError(`metrics: ${name}: buckets must be a list of numbers`);
  // A trailing +Inf is implied; accept it when given.
  const list = buckets.length > 0 && buckets[buckets.length - 1] === Infinity ? buckets.slice(0, -1) : buckets;
  for (let i = 0; i < list.length; i++) {
    const b = list[i];
    if (typeof b !== "number" || !Number.isFinite(b)) throw new TypeError(`metrics: ${name}: bucket bound ${String(b)} is not a finite number`);
    if (i > 0 && !(b > list[i - 1]!)) throw new TypeError(`metrics: ${name}: bucket bounds must be strictly increasing (${list[i - 1]} then ${b})`);
  }
  return Float64Array.from(list);
}
