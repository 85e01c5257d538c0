// The accounting behind idempotency()'s promise that one caller cannot push another caller's
// answers out of the store within their TTL, whatever it sends.
//
// The ledger knows every answer this process kept (by store key, in insertion order, which is
// expiry order since one TTL applies to all), grouped by caller ("bucket"), and the claims in
// flight. The store itself is never left to evict: the ledger decides what goes, by these rules:
// - a caller keeps at most `maxKeysPerCaller` answers and `maxBytesPerCaller` bytes: past
//   either, its own oldest answer is dropped;
// - when the whole ledger is full (`maxKeys` answers and claims, or `maxBytes`), room is made
//   max-min fairly: the requesting caller gives up its own oldest answer if it holds as many as
//   anyone (less one), otherwise the caller holding the most gives up its oldest, but only when
//   it holds at least two more than the requester. So a caller's only answer is never taken
//   by someone else, and filling the store takes `maxKeys` different callers;
// - when no room can be made fairly, a new key is refused (503 + Retry-After, the caller's
//   choice to retry) and an answer too big for the bytes left is kept as a stub without its
//   body (a duplicate then gets 409, never a second execution).
// With a shared store the ledger is this process's view: each process applies the caps to what
// it stored itself.

export interface LedgerLimits {
  readonly maxKeys: number;
  readonly maxKeysPerCaller: number;
  readonly maxBytes: number;
  readonly maxBytesPerCaller: number;
  readonly ttlMs: number;
  readonly now: () => number;
}

/** Bytes counted for an answer kept without its body. */
export const STUB_BYTES = 256;

interface Entry {
  readonly bucket: Bucket;
  readonly expiresAt: number;
  readonly size: number;
}

/** One caller's share: its kept answers (oldest first), their bytes, its claims in flight. */
export interface Bucket {
  readonly id: string;
  readonly keys: Map<string, Entry>;
  bytes: number;
  pending: number;
}

export type Reservation = Bucket | "busy" | "full";

export class IdempotencyLedger {
  private readonly entries = new Map<string, Entry>();
  private readonly buckets = new Map<string, Bucket>();
  /** Buckets by how many answers they keep (index 1..maxKeysPerCaller), to find the largest in O(1). */
  private readonly bySize: Array<Set<Bucket>>;
  private largest = 0;
  private bytes = 0;
  private pending = 0;

  constructor(
    private readonly limits: LedgerLimits,
    /** Remove a key from the store (the ledger decided it goes). */
    private readonly drop: (key: string) => void,
  ) {
    this.bySize = Array.from({ length: limits.maxKeysPerCaller + 2 }, () => new Set<Bucket>());
  }

  /** Answers kept and claims in flight. */
  get size(): number {
    return this.entries.size + this.pending;
  }

  /**
   * Forget answers past their TTL, oldest first, and remove them from the store too: a store
   * that only drops expired entries when they are read would otherwise fill up with them.
   */
  sweep(): void {
    const now = this.limits.now();
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt > now) return;
      this.forget(key, entry);
      this.drop(key);
    }
  }

  /** Stop counting `key` (claimed anew: whatever was kept under it is gone from the store). */
  discard(key: string): void {
    const entry = this.entries.get(key);
    if (entry !== undefined) this.forget(key, entry);
  }

  /**
   * Take a slot for a new claim by caller `id`: its bucket, "busy" when the caller already has
   * `maxKeysPerCaller` claims in flight, or "full" when no room can be made fairly.
   */
  reserve(id: string): Reservation {
    let bucket = this.buckets.get(id);
    if (bucket !== undefined && bucket.pending >= this.limits.maxKeysPerCaller) return "busy";
    if (this.size >= this.limits.maxKeys) {
      if (!this.makeRoom(bucket)) return "full";
      bucket = this.buckets.get(id); // giving up its last answer may have emptied it
    }
    if (bucket === undefined) {
      bucket = { id, keys: new Map(), bytes: 0, pending: 0 };
      this.buckets.set(id, bucket);
    }
    bucket.pending++;
    this.pending++;
    return bucket;
  }

  /** The claim is over (kept or not). */
  release(bucket: Bucket): void {
    bucket.pending--;
    this.pending--;
    this.dropIfEmpty(bucket);
  }

  /**
   * Count an answer of `size` bytes kept under `key`, making room within the caller's own
   * budget first. False when it cannot be kept whole: it is then counted as a stub
   * (STUB_BYTES) and the caller must store it without its body.
   */
  keep(bucket: Bucket, key: string, size: number): boolean {
    const existing = this.entries.get(key);
    if (existing !== undefined) this.forget(key, existing);
    const { maxKeysPerCaller, maxBytesPerCaller, maxBytes } = this.limits;
    while (bucket.keys.size > 0 && (bucket.keys.size >= maxKeysPerCaller || bucket.bytes + size > maxBytesPerCaller)) this.evictOldest(bucket);
    if (size <= maxBytesPerCaller) while (this.bytes + size > maxBytes && this.makeRoom(bucket));
    const whole = size <= maxBytesPerCaller && this.bytes + size <= maxBytes;
    const counted = whole ? size : STUB_BYTES;
    const entry: Entry = { bucket, expiresAt: this.limits.now() + this.limits.ttlMs, size: counted };
    this.entries.set(key, entry);
    this.resize(bucket, 1);
    bucket.keys.set(key, entry);
    bucket.bytes += counted;
    this.bytes += counted;
    return whole;
  }

  /** Seconds until the oldest kept answer expires (at least 1): a Retry-After for "full". */
  retryAfterSeconds(): number {
    for (const entry of this.entries.values()) return Math.max(1, Math.ceil((entry.expiresAt - this.limits.now()) / 1000));
    return 1;
  }

  /** Drop one answer to make room for `requester` (undefined: a caller with nothing kept), max-min fairly. */
  private makeRoom(requester: Bucket | undefined): boolean {
    while (this.largest > 0 && this.bySize[this.largest]!.size === 0) this.largest--;
    const own = requester?.keys.size ?? 0;
    if (requester !== undefined && own > 0 && own >= this.largest - 1) {
      this.evictOldest(requester);
      return true;
    }
    if (this.largest < own + 2) return false;
    for (const victim of this.bySize[this.largest]!) {
      this.evictOldest(victim);
      return true;
    }
    return false;
  }

  private evictOldest(bucket: Bucket): void {
    for (const [key, entry] of bucket.keys) {
      this.forget(key, entry);
      this.drop(key);
      return;
    }
  }

  private forget(key: string, entry: Entry): void {
    const bucket = entry.bucket;
    this.entries.delete(key);
    this.resize(bucket, -1);
    bucket.keys.delete(key);
    bucket.bytes -= entry.size;
    this.bytes -= entry.size;
    this.dropIfEmpty(bucket);
  }

  /** Move `bucket` in the by-size index before its count changes by `delta`. */
  private resize(bucket: Bucket, delta: 1 | -1): void {
    const from = bucket.keys.size;
    const to = from + delta;
    if (from > 0) this.bySize[from]!.delete(bucket);
    if (to > 0) {
      this.bySize[to]!.add(bucket);
      if (to > this.largest) this.largest = to;
    }
  }

  private dropIfEmpty(bucket: Bucket): void {
    if (bucket.keys.size === 0 && bucket.pending === 0 && this.buckets.get(bucket.id) === bucket) this.buckets.delete(bucket.id);
  }
}
