// A JobStore on Redis: at-least-once delivery across processes and machines. Each state change
// is one Lua script (job-scripts.ts), atomic across every process sharing the Redis. A claim hands
// a job out under a lease with a token: the worker renews it while the job runs, and a claim by
// any process takes back the jobs whose lease lapsed (their worker died) as the in-process stores
// recover running jobs on open. complete/fail/release need the token of the claim, so a worker
// whose lease was taken over cannot finish someone else's run.
//
// Leases are deadlines computed from the `now` each process passes (Date.now in production):
// the processes' clocks must agree to well within leaseMs.
//
// A reply of the wrong shape (JobReplyError: the stream is out of step) resets the client's
// connections, so later replies are matched to their commands again; it is a 503, like a lost
// connection.
import { randomUUID } from "node:crypto";
import {
  DEFAULT_KEEP_DEAD,
  DEFAULT_KEEP_SUCCEEDED,
  DEFAULT_RETAINED_BYTES,
  INTERRUPTED_MESSAGE,
  JOB_STATES,
  type JobCounts,
  type JobRecord,
  type JobRetention,
  type JobState,
  type JobStore,
  type JobTableOptions,
} from "../../jobs/index.js";
import type { RedisClient, RedisReply, RedisScript } from "../client/index.js";
import { baseSize, decodeRecord, decodeRetention, errorsSize, JobReplyError, type RetentionCaps } from "./job-codec.js";
import * as lua from "./job-scripts.js";

export interface RedisJobStoreOptions {
  /** The connection (the store does not close it). */
  client: RedisClient;
  /** Prefix of every key (default "keel:jobs:"). Stores with the same prefix share their jobs. On Redis Cluster, put a hash tag in it ("{keel:jobs}:"). */
  prefix?: string;
  /** How long a claim holds a job without renewal, ms (default 30000). Much longer than the clock skew between processes. */
  leaseMs?: number;
  /** Caps on kept succeeded jobs and dead letters, as for the in-process stores (same defaults). Every process sharing the prefix should use the same. */
  retention?: JobTableOptions;
}

export const DEFAULT_JOB_PREFIX = "keel:jobs:";
export const DEFAULT_JOB_LEASE_MS = 30_000;
/** Lapsed leases taken back per claim (the next claim takes the rest): bounds a script's run time. */
const MAX_RECOVERED_PER_CLAIM = 100;

const NOT_CONNECTED = new Error("not connected to Redis");

function cap(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!(Number.isInteger(v) && v >= 0)) throw new RangeError(`RedisJobStore: retention.${name} must be an integer >= 0`);
  return v;
}

function isTrue(reply: RedisReply | undefined): boolean {
  return reply === 1 || reply === 1n || reply === "1" || reply === true;
}

interface Scripts {
  add: RedisScript;
  claim: RedisScript;
  complete: RedisScript;
  fail: RedisScript;
  release: RedisScript;
  renew: RedisScript;
  retryDead: RedisScript;
  deleteDead: RedisScript;
  list: RedisScript;
  counts: RedisScript;
  get: RedisScript;
}

/**
 * keel/jobs' JobStore in Redis: one queue shared by several processes, at least once, with leases.
 *
 * @example
 * const jobs = new JobQueue({ store: new RedisJobStore({ client: redis, prefix: "myapp:jobs:" }) });
 * @see docs/features/redis.md
 */
export class RedisJobStore implements JobStore {
  readonly leaseMs: number;
  readonly prefix: string;
  private readonly client: RedisClient;
  private readonly caps: RetentionCaps;
  private readonly scripts: Scripts;
  /** KEYS of every script: due, leases, in:<state> x4, keys, meta. */
  private readonly keys: readonly string[];
  /** First ARGV of every script: job-hash prefix, wake channel, the four caps. */
  private readonly header: readonly (string | number)[];
  private readonly wakeChannel: string;
  /** This instance's lease tokens are `<instance>:<claim number>`. */
  private readonly instance = randomUUID();
  private claimCount = 0;
  /** The lease token of each job this instance claimed and has not finished. */
  private readonly tokens = new Map<string, string>();
  /** Evictions counted in Redis before this instance opened (retention() reports the ones since). */
  private evictedBefore = { succeeded: 0, dead: 0 };
  private lastRetention: JobRetention;
  private readonly wakeListeners = new Set<() => void>();
  private subscription: Promise<(() => Promise<void>) | null> | null = null;
  private stopStatusWatch: (() => void) | null = null;
  private closed = false;

  constructor(options: RedisJobStoreOptions) {
    if (options === null || typeof options !== "object" || options.client === undefined) throw new TypeError("RedisJobStore: client is required");
    this.client = options.client;
    this.prefix = options.prefix ?? DEFAULT_JOB_PREFIX;
    if (typeof this.prefix !== "string") throw new TypeError("RedisJobStore: prefix must be a string");
    this.leaseMs = options.leaseMs ?? DEFAULT_JOB_LEASE_MS;
    if (!(Number.isInteger(this.leaseMs) && this.leaseMs >= 1)) throw new RangeError("RedisJobStore: leaseMs must be a positive integer");
    const r = options.retention ?? {};
    this.caps = {
      keepSucceeded: cap("keepSucceeded", r.keepSucceeded, DEFAULT_KEEP_SUCCEEDED),
      maxSucceededBytes: cap("maxSucceededBytes", r.maxSucceededBytes, DEFAULT_RETAINED_BYTES),
      keepDead: cap("keepDead", r.keepDead, DEFAULT_KEEP_DEAD),
      maxDeadBytes: cap("maxDeadBytes", r.maxDeadBytes, DEFAULT_RETAINED_BYTES),
    };
    const p = this.prefix;
    this.keys = [p + "due", p + "leases", p + "in:pending", p + "in:running", p + "in:succeeded", p + "in:dead", p + "keys", p + "meta"];
    this.wakeChannel = p + "wake";
    this.header = [p + "job:", this.wakeChannel, this.caps.keepSucceeded, this.caps.maxSucceededBytes, this.caps.keepDead, this.caps.maxDeadBytes];
    const c = this.client;
    this.scripts = {
      add: c.script(lua.ADD),
      claim: c.script(lua.CLAIM),
      complete: c.script(lua.COMPLETE),
      fail: c.script(lua.FAIL),
      release: c.script(lua.RELEASE),
      renew: c.script(lua.RENEW),
      retryDead: c.script(lua.RETRY_DEAD),
      deleteDead: c.script(lua.DELETE_DEAD),
      list: c.script(lua.LIST),
      counts: c.script(lua.COUNTS),
      get: c.script(lua.GET),
    };
    const empty = { count: 0, bytes: 0, evicted: 0 };
    this.lastRetention = {
      succeeded: { ...empty, maxCount: this.caps.keepSucceeded, maxBytes: this.caps.maxSucceededBytes },
      dead: { ...empty, maxCount: this.caps.keepDead, maxBytes: this.caps.maxDeadBytes },
    };
  }

  /** Not connected to Redis right now (the client reconnects in the background), or null. */
  get failure(): Error | null {
    return this.client.ready ? null : NOT_CONNECTED;
  }

  /** Connects, and notes the evictions counted so far. Nothing to recover: claims take back lapsed leases. */
  async open(): Promise<void> {
    await this.client.connect();
    const reply = await this.run(this.scripts.counts, []);
    if (!Array.isArray(reply)) throw this.outOfStep(new JobReplyError("counts"));
    const raw = this.retentionOf(reply[4], { succeeded: 0, dead: 0 });
    this.evictedBefore = { succeeded: raw.succeeded.evicted, dead: raw.dead.evicted };
    this.lastRetention = this.retentionOf(reply[4], this.evictedBefore);
  }

  async add(record: JobRecord): Promise<{ id: string; created: boolean }> {
    const payload = JSON.stringify(record.payload) ?? "null";
    const reply = await this.run(this.scripts.add, [
      record.id, record.type, payload, record.maxAttempts, record.runAt, record.createdAt, record.updatedAt, record.attempts,
      JSON.stringify(record.errors), errorsSize(record.errors), baseSize(record, payload), record.key === null ? "0" : "1", record.key ?? "",
    ]);
    if (!Array.isArray(reply) || reply.length !== 2) throw this.outOfStep(new JobReplyError("add"));
    const id = reply[0];
    return { id: typeof id === "string" ? id : String(id), created: isTrue(reply[1]) };
  }

  async claim(now: number, limit: number): Promise<JobRecord[]> {
    const token = `${this.instance}:${++this.claimCount}`;
    const reply = await this.run(this.scripts.claim, [now, Math.max(0, Math.floor(limit)), now + this.leaseMs, token, INTERRUPTED_MESSAGE, MAX_RECOVERED_PER_CLAIM]);
    if (!Array.isArray(reply) || reply.length === 0) throw this.outOfStep(new JobReplyError("claim"));
    this.noteRetention(reply[0]);
    const out: JobRecord[] = [];
    for (let i = 1; i < reply.length; i++) {
      const record = this.record(reply[i]);
      this.tokens.set(record.id, token);
      out.push(record);
    }
    return out;
  }

  async nextRunAt(): Promise<number | null> {
    const reply = await this.client.command(["ZRANGE", this.keys[0]!, 0, 0, "WITHSCORES"]);
    if (!Array.isArray(reply) || reply.length === 0) return null;
    // RESP2: [member, score]; RESP3: [[member, score]].
    const first = reply[0];
    const score = Array.isArray(first) ? first[1] : reply[1];
    const n = Number(typeof score === "string" || typeof score === "number" ? score : NaN);
    if (!Number.isFinite(n)) throw this.outOfStep(new JobReplyError("nextRunAt"));
    return n;
  }

  complete(id: string, now: number): Promise<boolean> {
    return this.finish(id, (token) => this.run(this.scripts.complete, [id, now, token]));
  }

  fail(id: string, now: number, message: string, retryAt: number | null): Promise<boolean> {
    return this.finish(id, (token) => this.run(this.scripts.fail, [id, now, token, message, retryAt === null ? "" : retryAt]));
  }

  release(id: string, now: number): Promise<boolean> {
    return this.finish(id, (token) => this.run(this.scripts.release, [id, now, token]));
  }

  /** Extends the leases of these running jobs to now + leaseMs; answers the ids whose lease this instance no longer holds. */
  async renew(ids: readonly string[], now: number): Promise<string[]> {
    const lost: string[] = [];
    const args: (string | number)[] = [now + this.leaseMs];
    for (const id of ids) {
      const token = this.tokens.get(id);
      if (token === undefined) lost.push(id);
      else args.push(id, token);
    }
    if (args.length === 1) return lost;
    const reply = await this.run(this.scripts.renew, args);
    if (!Array.isArray(reply)) throw this.outOfStep(new JobReplyError("renew"));
    for (const id of reply) lost.push(typeof id === "string" ? id : String(id));
    return lost;
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const reply = await this.run(this.scripts.get, [id]);
    return reply === null ? undefined : this.record(reply);
  }

  async list(state: JobState, limit: number): Promise<JobRecord[]> {
    if (!JOB_STATES.includes(state)) throw new TypeError(`RedisJobStore: unknown state ${String(state)}`);
    const reply = await this.run(this.scripts.list, [state, Math.max(0, Math.floor(limit))]);
    if (!Array.isArray(reply)) throw this.outOfStep(new JobReplyError("list"));
    const out: JobRecord[] = [];
    for (const item of reply) out.push(this.record(item));
    return out;
  }

  async counts(): Promise<JobCounts> {
    const reply = await this.run(this.scripts.counts, []);
    if (!Array.isArray(reply) || reply.length !== 5) throw this.outOfStep(new JobReplyError("counts"));
    this.noteRetention(reply[4]);
    const n = (i: number): number => Number(reply[i]);
    return { pending: n(0), running: n(1), succeeded: n(2), dead: n(3) };
  }

  async retryDead(id: string, now: number): Promise<boolean> {
    return isTrue(await this.run(this.scripts.retryDead, [id, now]));
  }

  async deleteDead(id: string): Promise<boolean> {
    return isTrue(await this.run(this.scripts.deleteDead, [id]));
  }

  /** Kept finished jobs (as of the last claim, complete, fail or counts) and evictions since open, by any process. */
  retention(): JobRetention {
    return this.lastRetention;
  }

  /**
   * Calls `listener` whenever a job becomes pending in any process sharing the prefix (pub/sub on
   * `<prefix>wake`). A queue then looks for work at once instead of at its next poll.
   */
  onWake(listener: () => void): () => void {
    this.wakeListeners.add(listener);
    this.subscribe();
    return () => {
      this.wakeListeners.delete(listener);
      if (this.wakeListeners.size === 0) this.unsubscribe();
    };
  }

  /** Stops the wake-ups; the client stays open (it is the caller's). */
  async close(): Promise<void> {
    this.closed = true;
    this.wakeListeners.clear();
    await this.unsubscribe();
  }

  // --- internals -----------------------------------------------------------------------------------

  private run(script: RedisScript, args: readonly (string | number)[]): Promise<RedisReply> {
    return this.client.run(script, this.keys, [...this.header, ...args]);
  }

  /** A finishing transition: needs this instance's lease token; the token is spent either way. */
  private async finish(id: string, transition: (token: string) => Promise<RedisReply>): Promise<boolean> {
    const token = this.tokens.get(id);
    if (token === undefined) return false;
    try {
      const reply = await transition(token);
      if (Array.isArray(reply)) {
        this.noteRetention(reply[0]);
        return isTrue(reply[1]);
      }
      return isTrue(reply);
    } finally {
      // On a connection error the outcome is unknown; the lease settles it (the job is recovered when it lapses).
      if (this.tokens.get(id) === token) this.tokens.delete(id);
    }
  }

  private noteRetention(reply: RedisReply | undefined): void {
    this.lastRetention = this.retentionOf(reply, this.evictedBefore);
  }

  /** A JobReplyError resets the client's connections (the stream is out of step); any error is given back to throw. */
  private outOfStep(err: unknown): unknown {
    if (err instanceof JobReplyError) this.client.reset(err);
    return err;
  }

  private record(reply: RedisReply | undefined): JobRecord {
    try {
      return decodeRecord(reply);
    } catch (err) {
      throw this.outOfStep(err);
    }
  }

  private retentionOf(reply: RedisReply | undefined, evictedBefore: { succeeded: number; dead: number }): JobRetention {
    try {
      return decodeRetention(reply, this.caps, evictedBefore);
    } catch (err) {
      throw this.outOfStep(err);
    }
  }

  private dispatchWake = (): void => {
    for (const listener of this.wakeListeners) {
      try {
        listener();
      } catch {
        // A listener's failure is its own; the others still hear the wake-up.
      }
    }
  };

  /**
   * Subscribes once. When the client is ready again after an outage the listeners are woken too
   * (work may have piled up), and a subscription that failed while Redis was down is retried.
   */
  private subscribe(): void {
    if (this.closed) return;
    this.stopStatusWatch ??= this.client.onStatus((status) => {
      if (status !== "ready" || this.wakeListeners.size === 0) return;
      this.subscribe();
      this.dispatchWake();
    });
    if (this.subscription !== null) return;
    const attempt = this.client.subscribe(this.wakeChannel, this.dispatchWake).then(
      (stop) => stop,
      () => {
        if (this.subscription === attempt) this.subscription = null;
        return null;
      },
    );
    this.subscription = attempt;
  }

  private async unsubscribe(): Promise<void> {
    this.stopStatusWatch?.();
    this.stopStatusWatch = null;
    const pending = this.subscription;
    this.subscription = null;
    const stop = pending === null ? null : await pending;
    if (stop !== null) await stop().catch(() => undefined);
  }
}
