// Metric and label names, checked when a metric is registered (never at scrape time): the
// Prometheus data model's character sets, the reserved `__` label prefix, the labels a histogram
// writes itself (`le`) and the unit suffix OpenMetrics requires of a metric that declares a unit.

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const UNIT = /^[a-zA-Z0-9_]+$/;

export function checkMetricName(name: unknown): asserts name is string {
  if (typeof name !== "string" || !METRIC_NAME.test(name)) {
    throw new TypeError(`metrics: invalid metric name ${JSON.stringify(name)} (letters, digits, "_" and ":", not starting with a digit)`);
  }
}

/** Label names of one metric: valid, not reserved, no duplicates; `reserved` lists names the type writes itself. */
export function checkLabelNames(metric: string, names: readonly unknown[], reserved: readonly string[]): readonly string[] {
  const seen = new Set<string>();
  for (const n of names) {
    if (typeof n !== "string" || !LABEL_NAME.test(n)) throw new TypeError(`metrics: ${metric}: invalid label name ${JSON.stringify(n)}`);
    if (n.startsWith("__")) throw new TypeError(`metrics: ${metric}: label names starting with "__" are reserved (${n})`);
    if (reserved.includes(n)) throw new TypeError(`metrics: ${metric}: the label "${n}" is written by the metric type itself`);
    if (seen.has(n)) throw new TypeError(`metrics: ${metric}: label "${n}" listed twice`);
    seen.add(n);
  }
  return [...seen];
}

/** OpenMetrics: a metric with a unit has a name that ends in `_<unit>` (before any `_total`). */
export function checkUnit(name: string, unit: unknown): asserts unit is string {
  if (typeof unit !== "string" || !UNIT.test(unit)) throw new TypeError(`metrics: ${name}: invalid unit ${JSON.stringify(unit)}`);
  if (!name.endsWith("_" + unit)) throw new TypeError(`metrics: ${name}: a metric with unit "${unit}" must have a name ending in "_${unit}"`);
}

/** `_total` and `_created` name a counter's samples: another type ending in them would read as one. */
export function checkNotCounterLike(name: string): void {
  if (name.endsWith("_total") || name.endsWith("_created")) {
    throw new TypeError(`metrics: ${name}: only a counter's name may end in "_total" or "_created"`);
  }
}
