// What one kind of soak traffic saw: named counts, unexpected outcomes (each fails the run, the
// first few kept as samples) and a latency sample. Everything here is bounded whatever the
// duration: counts are numbers, samples are capped, latencies are a fixed-size reservoir.
const MAX_SAMPLES = 10;
const RESERVOIR = 20_000;

export class Tally {
  constructor(kind) {
    this.kind = kind;
    this.counts = {};
    this.unexpected = 0;
    this.samples = [];
    this.latencies = [];
    this.seen = 0;
  }

  count(key, n = 1) {
    this.counts[key] = (this.counts[key] ?? 0) + n;
  }

  /** An outcome a correct server never gives a well-behaved client: fails the run. */
  fail(what) {
    this.unexpected++;
    if (this.samples.length < MAX_SAMPLES) this.samples.push(what);
  }

  /** One latency in ms (reservoir sampling: every observation equally likely to be kept). */
  latency(ms) {
    this.seen++;
    if (this.latencies.length < RESERVOIR) this.latencies.push(ms);
    else {
      const j = Math.floor(Math.random() * this.seen);
      if (j < RESERVOIR) this.latencies[j] = ms;
    }
  }

  percentile(p) {
    if (this.latencies.length === 0) return 0;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  }

  report() {
    const out = { ...this.counts, unexpected: this.unexpected };
    if (this.samples.length > 0) out.unexpected_samples = this.samples;
    if (this.latencies.length > 0) out.latency_ms = { p50: +this.percentile(50).toFixed(2), p99: +this.percentile(99).toFixed(2) };
    return out;
  }
}
