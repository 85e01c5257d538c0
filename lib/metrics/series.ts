// One time series of a metric: the values behind one label set. A series is created once per
// label set and kept, so recording is a field update; its label text is escaped once, at creation.

/** What every series has: its label text (`a="x",b="y"`) and whether its metric keeps it. */
export interface Series {
  readonly labelText: string;
  /** The label values in the metric's label-name order. */
  readonly labelValues: readonly string[];
  /**
   * False for the stand-in a metric hands out once its label sets reached their limit: recording
   * on it is harmless and never exposed.
   */
  readonly attached: boolean;
}

export class CounterSeries implements Series {
  value = 0;
  constructor(readonly labelText: string, readonly labelValues: readonly string[], readonly attached: boolean) {}

  /** Add `amount` (default 1); a counter only goes up, so a negative or NaN amount is a TypeError. */
  inc(amount = 1): void {
    if (!(amount >= 0)) throw new TypeError(`metrics: a counter cannot be increased by ${amount}`);
    this.value += amount;
  }

  /**
   * Follow a monotonic total kept elsewhere (CPU seconds, a queue's totals): the counter becomes
   * `total` if that is higher, and never goes back (a source that restarted from 0 is ignored
   * until it passes the last value).
   */
  advanceTo(total: number): void {
    if (total > this.value) this.value = total;
  }
}

export class GaugeSeries implements Series {
  value = 0;
  constructor(readonly labelText: string, readonly labelValues: readonly string[], readonly attached: boolean) {}

  set(value: number): void {
    this.value = value;
  }

  inc(amount = 1): void {
    this.value += amount;
  }

  dec(amount = 1): void {
    this.value -= amount;
  }
}

export class HistogramSeries implements Series {
  /** Observations per bucket, not cumulative; the last slot is the +Inf bucket. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly bounds: Float64Array, readonly labelText: string, readonly labelValues: readonly string[], readonly attached: boolean) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  /** Record one value (`le` semantics: a value equal to a bound falls in that bound's bucket). NaN is ignored. */
  observe(value: number): void {
    if (value !== value) return;
    const bounds = this.bounds;
    const n = bounds.length;
    let i = 0;
    while (i < n && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}
