// A gauge: a value that goes up and down (requests in flight, memory in use).
import { Metric, type MetricOptions, type OverflowHook } from "./metric.js";
import { GaugeSeries } from "./series.js";
import { checkNotCounterLike } from "./names.js";

export class Gauge extends Metric<GaugeSeries> {
  readonly type = "gauge" as const;

  constructor(options: MetricOptions, defaultMaxSeries: number, onOverflow: OverflowHook) {
    super(options, options.name, [], defaultMaxSeries, onOverflow);
    checkNotCounterLike(this.name);
    if (this.labelNames.length === 0) this.labels({});
  }

  protected createSeries(labelText: string, labelValues: readonly string[], attached: boolean): GaugeSeries {
    return new GaugeSeries(labelText, labelValues, attached);
  }

  set(value: number): void {
    this.unlabeled().set(value);
  }

  inc(amount = 1): void {
    this.unlabeled().inc(amount);
  }

  dec(amount = 1): void {
    this.unlabeled().dec(amount);
  }
}
