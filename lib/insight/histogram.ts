// A fixed-size log-linear latency histogram (the HdrHistogram idea, in one small array).
// Values are whole microseconds. Below 32 µs each value has its own bucket (exact). Above, each
// power of two [2^e, 2^(e+1)) is cut into 32 equal buckets, so a bucket is at most 1/32 of its
// lower bound wide; a percentile is reported as its bucket's midpoint, which is within 1/64
// (1.6 %) of the true nearest-rank percentile (plus the ±0.5 µs of rounding to microseconds).
// Values from 2^31 µs (about 35.8 minutes) up are counted in the last bucket.
// 864 buckets of float64 counts (exact to 2^53, so no wrap-around on a long-lived process):
// 6.75 KiB per histogram, whatever the traffic.

const SUB_BITS = 5;
const SUB_COUNT = 1 << SUB_BITS; // 32 buckets per power of two
/** The largest microsecond value with a bucket of its own range; longer ones are clamped to it. */
const MAX_MICROS = 0x7fffffff;
const BUCKETS = (31 - SUB_BITS + 1) * SUB_COUNT; // 864

/** The largest relative error of a reported percentile (above 32 µs; exact below). */
export const HISTOGRAM_RELATIVE_ERROR = 1 / (2 * SUB_COUNT);

function bucketOf(micros: number): number {
  if (micros < SUB_COUNT) return micros;
  const e = 31 - Math.clz32(micros); // SUB_BITS..30
  return (e - SUB_BITS) * SUB_COUNT + (micros >>> (e - SUB_BITS));
}

/** The value a bucket stands for: itself below 32 µs, else the midpoint of its range. */
function bucketValue(index: number): number {
  if (index < SUB_COUNT) return index;
  const shift = (index >>> SUB_BITS) - 1; // e - SUB_BITS
  const low = ((index & (SUB_COUNT - 1)) + SUB_COUNT) * 2 ** shift;
  return low + (2 ** shift - 1) / 2;
}

/** Nearest rank of percentile p among n values (tolerant of 0.07 * 100 = 7.000000000000001). */
function rank(p: number, n: number): number {
  return Math.max(1, Math.ceil(p * n - 1e-9));
}

export class LatencyHistogram {
  private readonly counts = new Float64Array(BUCKETS);
  private total = 0;

  /** Record one duration in milliseconds (negative and NaN count as 0). */
  recordMs(ms: number): void {
    let micros = Math.round(ms * 1000);
    if (!(micros > 0)) micros = 0;
    else if (micros > MAX_MICROS) micros = MAX_MICROS;
    this.counts[bucketOf(micros)]!++;
    this.total++;
  }

  /** How many durations were recorded. */
  get count(): number {
    return this.total;
  }

  /**
   * Nearest-rank percentiles in milliseconds (microsecond precision), one pass over the buckets:
   * `ps` ascending, each in (0, 1]. Null for each when nothing was recorded.
   */
  percentilesMs(ps: readonly number[]): Array<number | null> {
    const out: Array<number | null> = new Array<number | null>(ps.length).fill(null);
    const n = this.total;
    if (n === 0) return out;
    let seen = 0;
    let next = 0;
    for (let i = 0; i < BUCKETS && next < ps.length; i++) {
      seen += this.counts[i]!;
      while (next < ps.length && seen >= rank(ps[next]!, n)) {
        out[next] = Math.round(bucketValue(i)) / 1000;
        next++;
      }
    }
    return out;
  }

  clear(): void {
    this.counts.fill(0);
    this.total = 0;
  }
}
