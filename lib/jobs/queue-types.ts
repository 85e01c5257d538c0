// Options, statistics and health shapes of JobQueue.
import type { Logger } from "../index.js";
import type { JobBackoffPolicy } from "./job-backoff.js";
import type { JobClock } from "./clock.js";
import type { JobRetention } from "./job-table.js";
import type { JobCounts } from "./job-record.js";
import type { JobStore } from "./job-store.js";
import type { AnyJobType } from "./job-type.js";
import type { JobThreadPoolOptions } from "./thread-pool.js";

export interface JobQueueOptions {
  /** Where jobs live (default: a new MemoryJobStore; FileJobStore for durability). */
  store?: JobStore;
  /** Jobs running at once (default 4). Thread jobs count too, while they run in their thread. */
  concurrency?: number;
  /** Attempts before a job goes to the dead-letter queue (default 5; per type and per enqueue too). */
  maxAttempts?: number;
  /** Per-attempt timeout, ms (default 30000; per type too). Aborts the signal; counts as a failure. */
  timeoutMs?: number;
  /** Retry delays (defaults: baseMs 1000, factor 2, maxMs 300000), with full jitter. */
  backoff?: Partial<JobBackoffPolicy>;
  /** Job types to register now (or call `register`). */
  jobs?: readonly AnyJobType[];
  /** Pool for job types with a `thread` handler (created on first use). */
  threads?: JobThreadPoolOptions;
  /** Time source (default: Date.now / setTimeout); tests pass a ManualJobClock. */
  clock?: JobClock;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: () => number;
  /** Failure lines and store errors (default: JSON lines on stdout at info). */
  logger?: Logger;
  /**
   * Also look for due jobs this often, ms (default 0: off). For stores other processes write to.
   * With a leased store (`store.leaseMs`, e.g. RedisJobStore) at most `leaseMs / 2` either way, so
   * the jobs of a worker that died are taken back soon after their lease lapses.
   */
  pollIntervalMs?: number;
}

export interface EnqueueOptions {
  /** Run no earlier than this many ms from now. */
  delay?: number;
  /** Run no earlier than this time (Date or epoch ms). Not together with delay. */
  runAt?: Date | number;
  maxAttempts?: number;
  /** De-duplication: while a pending job has this key, enqueueing it again returns that job's id. 1-256 characters. */
  key?: string;
}

/** idle: constructed, not started; running; draining: no new jobs, finishing; stopped. */
export type JobQueuePhase = "idle" | "running" | "draining" | "stopped";

/** Counters since the queue was created (this process). */
export interface JobQueueTotals {
  enqueued: number;
  deduplicated: number;
  started: number;
  succeeded: number;
  /** Failed attempts (throw, reject, timeout). */
  failed: number;
  /** Failed attempts scheduled for another try. */
  retried: number;
  /** Jobs moved to the dead-letter queue. */
  deadLettered: number;
  timedOut: number;
  /** Dead letters put back to pending. */
  deadRetried: number;
  /** Running jobs put back to pending at the drain deadline. */
  released: number;
  /** Succeeded jobs the store dropped (oldest first) to stay within its retention caps. */
  evictedSucceeded: number;
  /** Dead letters the store dropped (oldest first) to stay within its retention caps. */
  evictedDead: number;
}

export interface JobQueueStats {
  phase: JobQueuePhase;
  concurrency: number;
  /** Jobs running in this process now. */
  active: number;
  /** Jobs by state in the store. */
  counts: JobCounts;
  totals: JobQueueTotals;
}

export interface JobQueueHealthOptions {
  /** Report "degraded" when more jobs than this are pending. */
  maxBacklog?: number;
  /** Report "degraded" when the dead-letter queue holds more than this. */
  maxDeadLetters?: number;
  /** Report "degraded" when dead letters or kept results fill this share of a cap (count or bytes; default 0.9). */
  retentionPressure?: number;
}

/** What `queue.healthCheck()` resolves to: readable by the probes' HealthChecks (status + error). */
export interface JobQueueHealth {
  status: "ok" | "degraded" | "fail";
  error?: string;
  phase: JobQueuePhase;
  /** Pending jobs (due now or later). */
  backlog: number;
  running: number;
  /** Dead-letter queue size. */
  dead: number;
  /** Finished jobs kept against the store's caps (when the store reports them). */
  retention?: JobRetention;
}

export interface JobDrainResult {
  /** Jobs that finished (succeeded or failed) while draining. */
  finished: number;
  /** Jobs still running at the deadline, aborted and put back to pending. */
  released: number;
  /** Pending jobs left in the store. */
  pending: number;
}

/**
 * A job's state change as this queue made it (`queue.onChange`): enqueued (pending), started
 * (running, `attempt` counts from 1), succeeded, failed and to be retried (pending again, with
 * `retryAt`), or dead-lettered. Changes made by other processes sharing a store are not seen.
 */
export interface JobChange {
  readonly id: string;
  readonly type: string;
  readonly state: "pending" | "running" | "succeeded" | "dead";
  readonly attempt: number;
  /** Epoch ms of the change. */
  readonly at: number;
  /** Set when a failed attempt will be retried: when, epoch ms. */
  readonly retryAt?: number;
  /** The failure's message, on a failed attempt. */
  readonly error?: string;
}
