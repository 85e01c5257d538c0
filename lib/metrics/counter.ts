// A counter: a total that only goes up. Its family is named without `_total` and its samples
// with it, in both formats (`http_requests` and `http_requests_total` name the same counter).
import { Metric, type MetricOptions, type OverflowHook } from "./metric.js";
import { CounterSeries } from "./series.js";

export class Counter extends Metric<CounterSeries> {
  readonly type = "counter" as const;

  constructor(options: MetricOptions, defaultMaxSeries: number, onOverflow: OverflowHook) {
    super(options, counterFamilyName(options.name), [], defaultMaxSeries, onOverflow);
    if (this.labelNames.length === 0) this.labels({});
  }

  protected createSeries(labelText: string, labelValues: readonly string[], attached: boolean): CounterSeries {
    return new CounterSeries(labelText, labelValues, attached);
  }

  /** Add to the counter of a metric without labels. */
  inc(amount = 1): void {
    this.unlabeled().inc(amount);
  }

  /** See CounterSeries.advanceTo. */
  advanceTo(total: number): void {
    this.unlabeled().advanceTo(total);
  }
}

export function counterFamilyName(name: string): string {
  return typeof name === "string" && name.endsWith("_total") ? name.slice(0, -"_total".length) : name;
}
