// Where jobs live. The queue talks to its store only through this interface, so a shared store
// (a database, Redis, ...) can replace the in-process ones when one process is not enough.
import type { JobCounts, JobRecord, JobState } from "./job-record.js";
import type { JobRetention } from "./job-table.js";

/**
 * A job store. Records returned by `claim`, `get` and `list` are the store's own objects or
 * copies; the queue treats them as read-only.
 *
 * Contract:
 * - `add` is acknowledged (resolves) only once the job is as durable as the store promises.
 *   Adding with the key of a *pending* job returns that job's id with `created: false`.
 * - `claim` moves due pending jobs to running and counts the attempt. A store shared by several
 *   processes must make this atomic across them and must hand out again the jobs of a claimant
 *   that died (for example with a lease longer than the job timeout), so delivery stays at least once.
 * - A job that was running when its process stopped runs again (at-least-once), or goes to the
 *   dead-letter queue when that was its last attempt. The in-process stores do this in `open`.
 * - `complete`, `fail`, `release` act only on running jobs, `retryDead`/`deleteDead` only on dead
 *   ones; otherwise they resolve false. A store with leases also answers false when the run's
 *   lease was taken over (the job is someone else's run now).
 * - A shared store hands out jobs under a lease (`leaseMs`): the queue renews the leases of the
 *   jobs it runs (`renew`) and looks for work at least every `leaseMs / 2`, and the store's
 *   `claim` first takes back the jobs whose lease lapsed. Lease deadlines come from the `now`
 *   each process passes, so the processes' clocks must agree to well within `leaseMs`.
 */
export interface JobStore {
  /** Load state (and recover after a crash). Called once, before anything else. */
  open(now: number): Promise<void>;
  add(record: JobRecord): Promise<{ id: string; created: boolean }>;
  claim(now: number, limit: number): Promise<JobRecord[]>;
  /** Run-at of the earliest pending job (to arm the wake-up timer), or null when none is pending. */
  nextRunAt(): Promise<number | null>;
  complete(id: string, now: number): Promise<boolean>;
  /** `retryAt` null: the job is dead (dead-letter queue) with its error history. */
  fail(id: string, now: number, message: string, retryAt: number | null): Promise<boolean>;
  /** Put a running job back to pending without using up its attempt (drain deadline). */
  release(id: string, now: number): Promise<boolean>;
  get(id: string): Promise<JobRecord | undefined>;
  /** Up to `limit` jobs in `state`, oldest entry into that state first. */
  list(state: JobState, limit: number): Promise<JobRecord[]>;
  counts(): Promise<JobCounts>;
  /** Dead -> pending now, attempts reset to 0 (error history kept). */
  retryDead(id: string, now: number): Promise<boolean>;
  deleteDead(id: string): Promise<boolean>;
  /** Flush and release resources. */
  close(): Promise<void>;
  /** Why the store cannot accept writes any more (disk full, ...), or null when healthy. */
  readonly failure?: Error | null;
  /**
   * Finished jobs kept against the store's caps and evictions so far (optional: a shared store
   * may bound retention its own way). A store must bound what it keeps of succeeded and dead jobs.
   */
  retention?(): JobRetention;
  /**
   * Stores shared by several processes: how long (ms) a claim holds a job without renewal before
   * another claimant may take it back. Set, the queue renews its running jobs' leases every
   * `leaseMs / 3` and polls for work at least every `leaseMs / 2`.
   */
  readonly leaseMs?: number;
  /** Extend the leases of these running jobs to `now + leaseMs`; resolves to the ids whose lease is no longer this store's (taken over, or gone). */
  renew?(ids: readonly string[], now: number): Promise<string[]>;
  /** Call `listener` when another process may have made a job due (a new job, a retry); returns the function that stops it. */
  onWake?(listener: () => void): () => void;
}
