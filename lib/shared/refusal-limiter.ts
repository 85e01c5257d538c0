// How many refusals (401/403) one client may earn on the admin endpoints: a token bucket per
// client key, refilled continuously. Only refusals take from it, so a caller with valid
// credentials is never slowed, even from an address an attacker shares (behind one proxy): the
// limit bounds what refusals cost (audit records, log lines), the token's length bounds guessing.
// Bounded: at most `maxClients` buckets; when full, idle buckets (refilled to the brim, so
// forgetting them changes nothing) are dropped, at most once a second, and new clients past the
// bound share one overflow bucket.

export interface RefusalLimitOptions {
  /** Refusals a client may have in a row before 429 (default 20). */
  burst?: number;
  /** Refusals a client regains per minute (default 10). */
  perMinute?: number;
  /** Clients tracked at once (default 10,000); past it, new clients share one bucket. */
  maxClients?: number;
}

export const DEFAULT_REFUSAL_BURST = 20;
export const DEFAULT_REFUSALS_PER_MINUTE = 10;
export const DEFAULT_REFUSAL_CLIENTS = 10_000;
const OVERFLOW_KEY = "\u0000overflow";

interface Bucket {
  tokens: number;
  updated: number;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) throw new TypeError(`refusalLimit.${name} must be a positive number`);
  return v;
}

export class RefusalLimiter {
  private readonly burst: number;
  /** Tokens per millisecond. */
  private readonly rate: number;
  private readonly maxClients: number;
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep = 0;

  constructor(options: RefusalLimitOptions = {}, private readonly now: () => number = Date.now) {
    this.burst = positive(options.burst, DEFAULT_REFUSAL_BURST, "burst");
    this.rate = positive(options.perMinute, DEFAULT_REFUSALS_PER_MINUTE, "perMinute") / 60_000;
    this.maxClients = Math.floor(positive(options.maxClients, DEFAULT_REFUSAL_CLIENTS, "maxClients"));
  }

  /** Count one refusal for `key`: 0 when it may be answered as usual, else seconds until it may. */
  take(key: string): number {
    const now = this.now();
    const bucket = this.bucketFor(key, now);
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.updated) * this.rate);
    bucket.updated = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate / 1000));
  }

  private bucketFor(key: string, now: number): Bucket {
    let bucket = this.buckets.get(key);
    if (bucket !== undefined) return bucket;
    if (this.buckets.size >= this.maxClients) this.sweep(now);
    if (this.buckets.size >= this.maxClients) {
      bucket = this.buckets.get(OVERFLOW_KEY);
      if (bucket !== undefined) return bucket;
      key = OVERFLOW_KEY; // one bucket past the bound
    }
    bucket = { tokens: this.burst, updated: now };
    this.buckets.set(key, bucket);
    return bucket;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    const full = this.burst / this.rate;
    for (const [key, b] of this.buckets) if (now - b.updated >= full) this.buckets.delete(key);
  }
}
