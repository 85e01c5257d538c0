// The service's memory over the soak, from the sampler's one-a-second lines, judged after the
// warm-up in two parts that together make up RSS, each compared between the first and the last
// WINDOW of the samples after warm-up:
// - the V8 heap by its floor: heapUsed saw-tooths with every collection, so the lowest heapUsed
//   of each window (what survived a collection then and now) is compared;
// - RSS outside the V8 heap (rss - heapTotal: buffers, sockets, native allocations) by its
//   median. Raw RSS is no measure on its own: V8 grows its heap reservation (heapTotal) between
//   major collections and gives it back after them, a saw-tooth of 30 MiB and more with a period
//   of one to two minutes under the full mix, so one sample against another says mostly where in
//   the tooth each fell. Raw RSS growth and slopes are reported beside them.
// Also reported, not judged: how far RSS outside the heap rose at its peak over its level in
// the first seconds of load (FIRST_SECONDS). Growth after warm-up cannot see memory that non-readers
// pin for as long as they live when they are replaced every --recycle s (or cut by the heartbeat):
// that reaches a plateau within a lifetime, and the rise is its height.
const MiB = (n) => n / 1048576;
const WINDOW = 0.25;
const FIRST_SECONDS = [2, 10];
const round = (n) => +n.toFixed(1);

export function slopePerMinute(points, key) {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, p) => a + p.t, 0) / n;
  const my = points.reduce((a, p) => a + MiB(p[key]), 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mx) * (MiB(p[key]) - my);
    den += (p.t - mx) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60;
}

export function percentile(arr, p) {
  if (arr.length === 0) return 0;
  const sorted = [...arr].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Memory figures of `samples` (sorted by t) for a run of `duration` s with `warmup` s of warm-up. */
export function memoryReport(samples, warmup, duration) {
  const after = samples.filter((s) => s.t >= warmup && s.t <= duration);
  const first = samples[0];
  const atWarmup = after[0];
  const last = after[after.length - 1];
  const window = Math.max(3, Math.floor(after.length * WINDOW));
  const floor = (points) => Math.min(...points.map((s) => s.heapUsed));
  const heapFloorStart = floor(after.slice(0, window));
  const heapFloorEnd = floor(after.slice(-window));
  const outside = (points) => percentile(points.map((s) => s.rss - s.heapTotal), 50);
  const outsideStart = outside(after.slice(0, window));
  const outsideEnd = outside(after.slice(-window));
  const early = samples.filter((s) => s.t >= FIRST_SECONDS[0] && s.t <= FIRST_SECONDS[1]);
  const outsideFirst = outside(early.length > 0 ? early : samples.slice(0, 1));
  const outsidePeak = Math.max(...samples.map((s) => s.rss - s.heapTotal));
  return {
    rss_mib: { start: round(MiB(first.rss)), after_warmup: round(MiB(atWarmup.rss)), end: round(MiB(last.rss)), max: round(MiB(Math.max(...samples.map((s) => s.rss)))) },
    rss_outside_heap_mib: { first_seconds: round(MiB(outsideFirst)), after_warmup: round(MiB(outsideStart)), end: round(MiB(outsideEnd)), peak: round(MiB(outsidePeak)) },
    rss_outside_heap_rise_mib: round(MiB(outsidePeak - outsideFirst)),
    heap_used_mib: { after_warmup: round(MiB(atWarmup.heapUsed)), end: round(MiB(last.heapUsed)), floor_after_warmup: round(MiB(heapFloorStart)), floor_end: round(MiB(heapFloorEnd)), max: round(MiB(Math.max(...samples.map((s) => s.heapUsed)))) },
    // One sample a minute: where the memory is (rss, V8 heap reserved/used, external).
    by_minute: samples.filter((s, i) => i === 0 || Math.floor(s.t / 60) !== Math.floor(samples[i - 1].t / 60)).map((s) => ({
      t: Math.round(s.t),
      rss: round(MiB(s.rss)),
      heapTotal: round(MiB(s.heapTotal)),
      heapUsed: round(MiB(s.heapUsed)),
      external: round(MiB(s.external)),
    })),
    rss_growth_after_warmup_mib: round(MiB(last.rss - atWarmup.rss)),
    rss_outside_heap_growth_mib: round(MiB(outsideEnd - outsideStart)),
    heap_growth_after_warmup_mib: round(MiB(heapFloorEnd - heapFloorStart)),
    rss_slope_mib_per_min: +slopePerMinute(after, "rss").toFixed(2),
    heap_used_slope_mib_per_min: +slopePerMinute(after, "heapUsed").toFixed(2),
    event_loop_delay_p99_ms: { median_second: round(percentile(after.map((s) => s.eldP99Ms), 50)), worst_second: round(Math.max(...after.map((s) => s.eldP99Ms))) },
  };
}
