// The state behind the traffic layers (token buckets, idempotency records, cached responses,
// breaker state) sits behind `Store`, so a shared store (Redis, a database) can replace the
// in-memory default when one process is not enough. Every method may answer synchronously (the
// in-memory store does, and the layers take that fast path) or with a promise.
// A store may also offer the optional capabilities in capabilities.ts (a token bucket in one
// step, tag invalidation); layers use them when present (redisStore in keel/redis has both).
//
// `MemoryStore` is a bounded LRU: a Map in recency order (a read moves the entry to the end),
// evicting from the front when either `maxEntries` or `maxBytes` (sum of the `size` given to
// `set`) would be exceeded. Entries past their TTL are dropped when read and skipped by scans;
// nothing runs in the background.

export type MaybePromise<T> = T | Promise<T>;

export interface StoreSetOptions {
  /** Time to live in ms from now (default: the store's own default, or forever). */
  ttlMs?: number;
  /** Bytes to count against the store's byte budget (default 0). */
  size?: number;
  /**
   * Tags for `deleteTagged` on stores that keep them (a `TaggedStore`); stores without tag
   * support ignore them (the response cache then finds tagged entries with `deleteWhere`).
   */
  tags?: readonly string[];
}

/** Called with the current value (undefined when absent or expired); returns the new value, or undefined to delete. */
export type StoreUpdater<V> = (current: V | undefined) => V | undefined;

export interface Store<V> {
  get(key: string): MaybePromise<V | undefined>;
  set(key: string, value: V, options?: StoreSetOptions): MaybePromise<void>;
  /** Insert only when the key is absent (or expired). True when inserted. Must be atomic. */
  add(key: string, value: V, options?: StoreSetOptions): MaybePromise<boolean>;
  /**
   * Atomic read-modify-write of one key (a shared store implements it with compare-and-set).
   * Returns what `fn` returned. `fn` may mutate and return the value it was given. `options` are
   * read after `fn` returns, so `fn` may adjust `size` to the value it built.
   */
  update(key: string, fn: StoreUpdater<V>, options?: StoreSetOptions): MaybePromise<V | undefined>;
  delete(key: string): MaybePromise<boolean>;
  /** Delete every live entry for which `test` is true; returns how many. A scan: not for the hot path. */
  deleteWhere(test: (key: string, value: V) => boolean): MaybePromise<number>;
  clear(): MaybePromise<void>;
}

export interface MemoryStoreOptions {
  /** Most entries kept (default 10 000); the least recently used go first. */
  maxEntries?: number;
  /** Most bytes kept, counted from each entry's `size` (default: unbounded). */
  maxBytes?: number;
  /** TTL for `set`/`add`/`update` calls that give none (default: none). */
  defaultTtlMs?: number;
  /** Clock in ms (default Date.now); tests pass a controllable one. */
  now?: () => number;
}

export const DEFAULT_STORE_MAX_ENTRIES = 10_000;

interface MemoryEntry<V> {
  value: V;
  /** Absolute expiry (ms), Infinity for none. */
  expiresAt: number;
  size: number;
}


/**
 * The in-memory `Store`: a bounded LRU (`maxEntries`, `maxBytes`) with TTLs, the default of every
 * layer that keeps state.
 *
 * @example
 * ```ts
 * const buckets = new MemoryStore<TokenBucketState>({ maxEntries: 50_000, defaultTtlMs: 600_000 });
 * app.layer(rateLimit({ capacity: 20, refillPerSecond: 5, store: buckets }));
 * ```
 * @see docs/features/stores.md
 */
export class MemoryStore<V> implements Store<V> {
  readonly maxEntries: number;
  readonly maxBytes: number;
  private readonly defaultTtlMs: number;
  private readonly now: () => number;
  private readonly map = new Map<string, MemoryEntry<V>>();
  private bytes = 0;
  /**
   * The key inserted last. Every insertion sets it, so when it is in the map it is the last entry
   * (the most recently used); a deleted one is harmless, as `live` finds no entry for it.
   */
  private newest: string | undefined = undefined;
  /** Entries evicted to respect the bounds (not counting expiry). */
  evictions = 0;

  constructor(options: MemoryStoreOptions = {}) {
    const maxEntries = options.maxEntries ?? DEFAULT_STORE_MAX_ENTRIES;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError("MemoryStore: maxEntries must be a positive integer");
    const maxBytes = options.maxBytes ?? Infinity;
    if (!(maxBytes > 0)) throw new TypeError("MemoryStore: maxBytes must be positive");
    const ttl = options.defaultTtlMs ?? Infinity;
    if (!(ttl > 0)) throw new TypeError("MemoryStore: defaultTtlMs must be positive");
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.defaultTtlMs = ttl;
    this.now = options.now ?? Date.now;
  }

  /** Live and not-yet-swept expired entries. */
  get size(): number {
    return this.map.size;
  }

  /** Bytes currently counted. */
  get byteSize(): number {
    return this.bytes;
  }

  /** The live entry (moved to most recently used), or undefined; drops it if expired. */
  private live(key: string): MemoryEntry<V> | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt <= this.now()) {
      this.map.delete(key);
      this.bytes -= e.size;
      return undefined;
    }
    // Already the most recently used (one client's burst, a rate limit's usual case): moving it
    // to the end would change nothing but cost a delete and an insert.
    if (key !== this.newest) {
      this.map.delete(key);
      this.map.set(key, e);
      this.newest = key;
    }
    return e;
  }

  private write(key: string, value: V, options: StoreSetOptions | undefined, previous: MemoryEntry<V> | undefined): void {
    const ttl = options?.ttlMs ?? this.defaultTtlMs;
    const size = options?.size ?? 0;
    if (size > this.maxBytes) {
      // Can never fit: do not evict everything else for it.
      if (previous !== undefined) this.remove(key, previous);
      return;
    }
    if (previous !== undefined) {
      this.bytes -= previous.size;
      previous.value = value;
      previous.expiresAt = this.now() + ttl;
      previous.size = size;
    } else {
      this.map.set(key, { value, expiresAt: this.now() + ttl, size });
      this.newest = key;
    }
    this.bytes += size;
    this.evict(key);
  }

  private remove(key: string, e: MemoryEntry<V>): void {
    this.map.delete(key);
    this.bytes -= e.size;
  }

  /** Evict least recently used entries (never `keep`, the one just written) until within bounds. */
  private evict(keep: string): void {
    if (this.map.size <= this.maxEntries && this.bytes <= this.maxBytes) return;
    for (const [k, e] of this.map) {
      if (this.map.size <= this.maxEntries && this.bytes <= this.maxBytes) return;
      if (k === keep) continue;
      this.remove(k, e);
      this.evictions++;
    }
  }

  get(key: string): V | undefined {
    return this.live(key)?.value;
  }

  set(key: string, value: V, options?: StoreSetOptions): void {
    this.write(key, value, options, this.live(key));
  }

  add(key: string, value: V, options?: StoreSetOptions): boolean {
    if (this.live(key) !== undefined) return false;
    this.write(key, value, options, undefined);
    return this.map.has(key);
  }

  update(key: string, fn: StoreUpdater<V>, options?: StoreSetOptions): V | undefined {
    const e = this.live(key);
    const next = fn(e?.value);
    if (next === undefined) {
      if (e !== undefined) this.remove(key, e);
      return undefined;
    }
    this.write(key, next, options, e);
    return next;
  }

  delete(key: string): boolean {
    const e = this.map.get(key);
    if (e === undefined) return false;
    this.remove(key, e);
    return e.expiresAt > this.now();
  }

  deleteWhere(test: (key: string, value: V) => boolean): number {
    const now = this.now();
    let n = 0;
    for (const [k, e] of this.map) {
      if (e.expiresAt <= now) {
        this.remove(k, e);
      } else if (test(k, e.value)) {
        this.remove(k, e);
        n++;
      }
    }
    return n;
  }

  /** Drop expired entries now (optional housekeeping; reads drop them anyway). Returns how many. */
  sweep(): number {
    const now = this.now();
    let n = 0;
    for (const [k, e] of this.map) {
      if (e.expiresAt <= now) {
        this.remove(k, e);
        n++;
      }
    }
    return n;
  }

  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }
}
