// redisStore: keel's `Store` in Redis, so several processes share token buckets, idempotency
// records, cached responses, sessions and breaker state. One command per operation:
//   get = GET, set = SET [PX], add = SET NX [PX], delete = DEL,
//   update = GET, then a compare-and-set script that writes (or deletes) only if the entry is
//   still what was read; on a conflict the script answers the new value and `fn` runs again
//   on it, at most `maxUpdateAttempts` times (then a 503 ApiError). Calls to `update` on one key
//   from this store are queued behind each other, so they never conflict among themselves:
//   only other processes (or other store objects) compete.
// Plus the optional capabilities of lib/stores: `takeToken` (a token bucket in one script, on the
// Redis server's clock) and `deleteTagged` (a set per tag, kept by the writing scripts; a key
// rewritten without a tag stays in that tag's set until the set expires or the tag is
// invalidated, which for a cache costs one needless miss at worst). One server or a primary with
// replicas: the scripts touch keys they find in tag sets, which Redis Cluster does not allow.
// `deleteWhere` and `clear` are scans (SCAN MATCH prefix*, in batches): not for the hot path.
// `clear` deletes this prefix's keys only, never the database.
//
// TTLs: without `now`, Redis expires entries (PX) and reads need no check. With `now` (a clock,
// for tests that drive time), each value also carries its expiry instant on that clock, which
// reads and scripts check; PX still bounds the key's real life. Every process sharing a prefix
// must use the same mode. Values go through `codec` (default: JSON with bytes, codec.ts).
// A reply of the wrong shape (the stream out of step) resets the client and is a 503; so are the
// error replies that mean "not now" (OOM, READONLY, LOADING, BUSY...: RedisUnavailableError).
import { ApiError } from "../../index.js";
import type { Store, StoreSetOptions, StoreUpdater, TaggedStore, TokenBucketState, TokenBucketStore } from "../../stores/index.js";
import { RedisError, type RedisArg, type RedisClient, type RedisReply, type RedisScript } from "../client/index.js";
import { jsonBytesCodec, type StoreCodec } from "./codec.js";
import { KeySpace } from "./key-space.js";
import { DELETE_SCRIPT, DELETE_TAGGED_SCRIPT, TAKE_TOKEN_SCRIPT, WRITE_SCRIPT } from "./scripts.js";

export interface RedisStoreOptions<V> {
  /** Prepended to every key (default "keel:store:"); give each store its own, none a prefix of another's (clear and scans match by prefix). */
  prefix?: string;
  /** Values to and from Redis strings (default: JSON that also carries Uint8Array/Buffer). */
  codec?: StoreCodec<V>;
  /** TTL for writes that give none, ms (default: none). */
  defaultTtlMs?: number;
  /** A clock in ms whose expiry instants are stored with the values (see above). Default: Redis expires entries. */
  now?: () => number;
  /** Compare-and-set attempts of one `update` before it gives up with a 503 (default 32). */
  maxUpdateAttempts?: number;
  /** Keys per SCAN batch of `deleteWhere` and `clear` (default 500). */
  scanCount?: number;
}

/** Disjoint from RedisJobStore's "keel:jobs:": a default store's clear() or scans never reach the job queue. */
const DEFAULT_PREFIX = "keel:store:";
const ignore = (): void => {};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function ttlArg(ttlMs: number | undefined, where: string): string {
  if (ttlMs === undefined || ttlMs === Infinity) return "";
  if (!(ttlMs > 0) || !Number.isFinite(ttlMs)) throw new RangeError(`redisStore.${where}: ttlMs must be a positive number of ms`);
  return String(Math.ceil(ttlMs));
}

export class RedisStore<V> implements Store<V>, TokenBucketStore, TaggedStore {
  readonly prefix: string;
  private readonly keys: KeySpace;
  private readonly codec: StoreCodec<V>;
  private readonly defaultTtlMs: number | undefined;
  private readonly clock: (() => number) | undefined;
  private readonly maxAttempts: number;
  private readonly scanCount: number;
  private readonly writeScript: RedisScript;
  private readonly deleteScript: RedisScript;
  private readonly deleteTaggedScript: RedisScript;
  private readonly takeTokenScript: RedisScript;
  /** The last `update` queued per key (settled, never rejecting), so this store's updates of one key run one at a time. */
  private readonly updating = new Map<string, Promise<void>>();

  constructor(
    readonly client: RedisClient,
    options: RedisStoreOptions<V> = {},
  ) {
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.keys = new KeySpace(this.prefix);
    this.codec = options.codec ?? (jsonBytesCodec as StoreCodec<V>);
    const ttl = options.defaultTtlMs;
    if (ttl !== undefined) ttlArg(ttl, "defaultTtlMs");
    this.defaultTtlMs = ttl;
    this.clock = options.now;
    this.maxAttempts = options.maxUpdateAttempts ?? 32;
    if (!Number.isInteger(this.maxAttempts) || this.maxAttempts < 1) throw new TypeError("redisStore: maxUpdateAttempts must be a positive integer");
    this.scanCount = options.scanCount ?? 500;
    if (!Number.isInteger(this.scanCount) || this.scanCount < 1) throw new TypeError("redisStore: scanCount must be a positive integer");
    this.writeScript = client.script(WRITE_SCRIPT);
    this.deleteScript = client.script(DELETE_SCRIPT);
    this.deleteTaggedScript = client.script(DELETE_TAGGED_SCRIPT);
    this.takeTokenScript = client.script(TAKE_TOKEN_SCRIPT);
  }

  /** The value as stored: the codec's text, behind its expiry instant when the store has a clock. */
  private pack(value: V, ttl: string): string {
    const text = this.codec.encode(value);
    if (this.clock === undefined) return text;
    return (ttl === "" ? "" : String(this.clock() + Number(ttl))) + "|" + text;
  }

  /** The live value of a stored string (undefined when expired on the store's clock). */
  private unpack(raw: string): V | undefined {
    if (this.clock === undefined) return this.codec.decode(raw);
    const bar = raw.indexOf("|");
    if (bar === -1) return undefined; // not written by a store with a clock
    if (bar > 0 && Number(raw.slice(0, bar)) <= this.clock()) return undefined;
    return this.codec.decode(raw.slice(bar + 1));
  }

  private nowArg(): string {
    return this.clock === undefined ? "" : String(this.clock());
  }

  private ttlOf(options: StoreSetOptions | undefined, where: string): string {
    return ttlArg(options?.ttlMs ?? this.defaultTtlMs, where);
  }

  private tagKeys(options: StoreSetOptions | undefined): string[] {
    const tags = options?.tags;
    if (tags === undefined || tags.length === 0) return [];
    return [...new Set(tags)].map((t) => this.keys.tag(t));
  }

  async get(key: string): Promise<V | undefined> {
    const raw = await this.client.command(["GET", this.keys.entry(key)]);
    return typeof raw === "string" ? this.unpack(raw) : undefined;
  }

  async set(key: string, value: V, options?: StoreSetOptions): Promise<void> {
    const name = this.keys.entry(key);
    const ttl = this.ttlOf(options, "set");
    const raw = this.pack(value, ttl);
    const tags = this.tagKeys(options);
    if (tags.length > 0) {
      await this.client.run(this.writeScript, [name, ...tags], ["set", raw, ttl, this.nowArg(), ""]);
    } else {
      await this.client.command(ttl === "" ? ["SET", name, raw] : ["SET", name, raw, "PX", ttl]);
    }
  }

  async add(key: string, value: V, options?: StoreSetOptions): Promise<boolean> {
    const name = this.keys.entry(key);
    const ttl = this.ttlOf(options, "add");
    const raw = this.pack(value, ttl);
    const tags = this.tagKeys(options);
    // SET NX would see an entry expired on the store's own clock as present: the script checks.
    if (tags.length > 0 || this.clock !== undefined) {
      return (await this.client.run(this.writeScript, [name, ...tags], ["add", raw, ttl, this.nowArg(), ""])) === 1;
    }
    const reply = await this.client.command(ttl === "" ? ["SET", name, raw, "NX"] : ["SET", name, raw, "NX", "PX", ttl]);
    return reply !== null;
  }

  /** Atomic read-modify-write by compare-and-set (see the top of the file). `fn` may run more than once. */
  update(key: string, fn: StoreUpdater<V>, options?: StoreSetOptions): Promise<V | undefined> {
    let name: string;
    try {
      name = this.keys.entry(key);
    } catch (err) {
      return Promise.reject(err);
    }
    const before = this.updating.get(name);
    const run = before === undefined ? this.compareAndSet(name, key, fn, options) : before.then(() => this.compareAndSet(name, key, fn, options));
    const settled = run.then(ignore, ignore);
    this.updating.set(name, settled);
    void settled.then(() => {
      if (this.updating.get(name) === settled) this.updating.delete(name);
    });
    return run;
  }

  private async compareAndSet(name: string, key: string, fn: StoreUpdater<V>, options: StoreSetOptions | undefined): Promise<V | undefined> {
    let raw = await this.client.command(["GET", name]);
    for (let attempt = 1; ; attempt++) {
      const stored = typeof raw === "string" ? raw : null;
      const next = fn(stored === null ? undefined : this.unpack(stored));
      if (next === undefined && stored === null) return undefined; // absent stays absent
      // Options are read after fn: it may adjust them (size, tags) to the value it built.
      const ttl = next === undefined ? "" : this.ttlOf(options, "update");
      const args: RedisArg[] = ["cas", next === undefined ? "" : this.pack(next, ttl), ttl, this.nowArg(), stored ?? ""];
      const reply = await this.client.run(this.writeScript, next === undefined ? [name] : [name, ...this.tagKeys(options)], args);
      if (Array.isArray(reply) && reply[0] === 1) return next;
      if (attempt >= this.maxAttempts) {
        throw ApiError.serviceUnavailable("The shared store is busy; retry", {
          detail: `redisStore.update: the entry ${JSON.stringify(key)} changed under ${attempt} compare-and-set attempts in a row`,
          headers: { "retry-after": "1" },
        });
      }
      raw = Array.isArray(reply) ? (reply[1] ?? null) : await this.client.command(["GET", name]);
      // Past a few conflicts, competing writers are spread out (full jitter, at most 50 ms).
      if (attempt >= 3) await sleep(Math.floor(Math.random() * Math.min(50, 2 ** attempt)));
    }
  }

  async delete(key: string): Promise<boolean> {
    const name = this.keys.entry(key);
    if (this.clock !== undefined) return (await this.client.run(this.deleteScript, [name], [this.nowArg()])) === 1;
    return (await this.client.command(["DEL", name])) === 1;
  }

  /** A scan of the prefix: every live entry for which `test` is true is deleted (unless it changed meanwhile). */
  async deleteWhere(test: (key: string, value: V) => boolean): Promise<number> {
    let deleted = 0;
    await this.scan(async (names) => {
      const found = await Promise.all(names.map((n) => this.readForScan(n)));
      const doomed: Array<Promise<RedisReply>> = [];
      for (const f of found) {
        if (f === undefined) continue;
        // Expired on the store's clock: dropped like a MemoryStore drops it, not counted.
        if (f.value === undefined || test(f.key, f.value)) {
          const counted = f.value !== undefined;
          doomed.push(
            this.client.run(this.writeScript, [f.name], ["cas", "", "", "", f.raw]).then((r) => {
              if (counted && Array.isArray(r) && r[0] === 1) deleted++;
              return r;
            }),
          );
        }
      }
      await Promise.all(doomed);
    });
    return deleted;
  }

  /** An entry found by a scan, or undefined for a tag set, a bucket, a foreign name or a value the codec cannot read. */
  private async readForScan(name: Buffer): Promise<{ name: string; key: string; raw: string; value: V | undefined } | undefined> {
    const text = name.toString("utf8");
    if (!Buffer.from(text, "utf8").equals(name)) return undefined; // not UTF-8: not a name this store wrote
    const key = this.keys.keyOf(text);
    if (key === undefined) return undefined;
    let raw: RedisReply;
    try {
      raw = await this.client.command(["GET", text]);
    } catch (err) {
      if (err instanceof RedisError && err.code === "WRONGTYPE") return undefined; // a token bucket
      throw err;
    }
    if (typeof raw !== "string") return undefined;
    try {
      return { name: text, key, raw, value: this.unpack(raw) };
    } catch {
      return undefined;
    }
  }

  /** Delete every key under the prefix (entries, buckets, tag sets), by SCAN + UNLINK. */
  async clear(): Promise<void> {
    await this.scan(async (names) => {
      await this.client.commandBuffer(["UNLINK", ...names]);
    });
  }

  /** Calls `batch` with each non-empty SCAN batch of names under the prefix (as sent by Redis, binary). */
  private async scan(batch: (names: Buffer[]) => Promise<void>): Promise<void> {
    let cursor = "0";
    do {
      const reply = await this.client.commandBuffer(["SCAN", cursor, "MATCH", this.keys.pattern, "COUNT", this.scanCount]);
      if (!Array.isArray(reply) || reply.length !== 2 || !Array.isArray(reply[1])) throw this.client.desynchronised("redisStore SCAN");
      cursor = String(reply[0]);
      const names = (reply[1] as RedisReply[]).filter((n): n is Buffer => Buffer.isBuffer(n));
      if (names.length > 0) await batch(names);
    } while (cursor !== "0");
  }

  /** A token bucket in one script on the Redis server's clock (lib/stores TokenBucketStore). */
  async takeToken(key: string, capacity: number, refillPerSecond: number, ttlMs: number): Promise<TokenBucketState> {
    const reply = await this.client.run(this.takeTokenScript, [this.keys.entry(key)], [capacity, refillPerSecond, ttlArg(ttlMs, "takeToken")]);
    if (!Array.isArray(reply) || reply.length !== 3) throw this.client.desynchronised("redisStore.takeToken");
    return { ok: reply[0] === 1, tokens: Number(reply[1]), at: Number(reply[2]) };
  }

  /** Delete the entries written with `tag` (and the tag's set) in one script; how many were live. */
  async deleteTagged(tag: string): Promise<number> {
    const n = await this.client.run(this.deleteTaggedScript, [this.keys.tag(tag)], [this.nowArg()]);
    return typeof n === "number" ? n : Number(n);
  }
}

/**
 * A `Store<V>` in Redis (see RedisStore), shared by every process using the same prefix.
 *
 * @example
 * const limit = rateLimit({ capacity: 100, refillPerSecond: 20, store: redisStore<TokenBucketState>(redis, { prefix: "myapp:rl:" }) });
 * @see docs/features/redis.md
 */
export function redisStore<V>(client: RedisClient, options?: RedisStoreOptions<V>): RedisStore<V> {
  return new RedisStore<V>(client, options);
}
