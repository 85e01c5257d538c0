// Small statistics helpers for the benchmark tables.

export function median(values) {
  const xs = values.filter((v) => typeof v === "number" && Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return null;
  const m = xs.length >> 1;
  return xs.length % 2 === 1 ? xs[m] : (xs[m - 1] + xs[m]) / 2;
}

/** min/max spread of `values` around their median, as a fraction (0.05 = ±5 %-ish range). */
export function spread(values) {
  const xs = values.filter((v) => typeof v === "number" && Number.isFinite(v));
  const m = median(xs);
  if (m === null || m === 0 || xs.length < 2) return null;
  return (Math.max(...xs) - Math.min(...xs)) / m;
}
