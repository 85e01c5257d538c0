// The background job queue: `concurrency` async workers pulling due jobs from a store, retries
// with exponential backoff and full jitter, a dead-letter queue, per-attempt timeouts, optional
// worker threads, and a graceful drain for shutdown. Delivery is at least once: a job leaves the
// store only after its handler finished, so a crash makes it run again (with a durable store).
// With a shared store (leaseMs set) the queue also renews the leases of the jobs it runs, polls
// for work (other processes' jobs, lapsed leases) and listens for the store's wake-ups. A store
// error never stops the queue: looking for work backs off and retries, and a job whose completion
// could not be written stays running in the store until its lease (or a restart) hands it out again.
import { randomUUID } from "node:crypto";
import { fullJitterDelay, type BackoffPolicy } from "../shared/backoff.js";
import { createJsonLogger, type Logger } from "../index.js";
import { LOG_LEVELS } from "../plugin.js";
import { jobBackoffDelay, resolveJobBackoff, type JobBackoffPolicy } from "./job-backoff.js";
import { systemJobClock, type JobClock } from "./clock.js";
import { JobDrainError, JobLeaseLostError, JobQueueClosedError, JobTimeoutError } from "./job-errors.js";
import { describeJobError, toJobInfo, type JobCounts, type JobInfo, type JobRecord } from "./job-record.js";
import type { JobStore } from "./job-store.js";
import { checkMaxAttempts, checkTimeout, type AnyJobType, type JobType } from "./job-type.js";
import { MemoryJobStore } from "./memory-store.js";
import { assessQueueHealth, enqueueKey, enqueueRunAt } from "./queue-checks.js";
import type {
  EnqueueOptions,
  JobDrainResult,
  JobQueueHealth,
  JobQueueHealthOptions,
  JobQueueOptions,
  JobQueuePhase,
  JobQueueStats,
  JobQueueTotals,
  JobChange,
} from "./queue-types.js";
import { JobThreadPool, type JobThreadPoolOptions } from "./thread-pool.js";
import { jobEndChannel, jobStartChannel, jobsTraced, type JobRunTrace } from "./job-channels.js";

export const DEFAULT_JOB_CONCURRENCY = 4;
export const DEFAULT_JOB_MAX_ATTEMPTS = 5;
export const DEFAULT_JOB_TIMEOUT_MS = 30_000;
export const DEFAULT_DRAIN_MS = 10_000;
/** After store errors while looking for work, retry with this backoff (full jitter, at least STORE_RETRY_MIN_MS). */
const STORE_RETRY: BackoffPolicy = { baseMs: 1000, factor: 2, maxMs: 10_000 };
const STORE_RETRY_MIN_MS = 100;
const MAX_LIST = 1000;

interface ActiveRun {
  readonly record: JobRecord;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly controller: AbortController;
  timer: unknown;
  settled: boolean;
  /** A leased store reported the lease taken over: aborted, and no longer renewed. */
  leaseLost: boolean;
  /** The diagnostics_channel message of this run (null when nobody subscribed as it began). */
  trace: JobRunTrace | null;
}

const EVICTION_LOG_INTERVAL_MS = 10_000;

/** The poll interval: the one asked for, and with a leased store at most half the lease (to take back the jobs of dead workers). */
function pollInterval(asked: number, leaseMs: number | undefined): number {
  if (leaseMs === undefined) return asked;
  const lease = Math.max(1, Math.floor(leaseMs / 2));
  return asked > 0 ? Math.min(asked, lease) : lease;
}

function newJobId(): string {
  return "job_" + randomUUID().replace(/-/g, "");
}

/**
 * A background job queue: runs registered job types with concurrency, timeouts, retries with
 * backoff and a dead-letter queue, over a memory, file or Redis store.
 *
 * @example
 * const queue = new JobQueue({ concurrency: 4, jobs: [sendWelcome] });
 * await queue.start();
 * const id = await queue.enqueue(sendWelcome, { to: "a@example.com" });
 * app.onShutdown(() => queue.drain(10_000));
 *
 * @see docs/features/jobs.md
 */
export class JobQueue {
  private readonly store: JobStore;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly timeoutMs: number;
  private readonly backoff: JobBackoffPolicy;
  private readonly clock: JobClock;
  private readonly random: () => number;
  private readonly logger: Logger;
  private readonly pollIntervalMs: number;
  private readonly threadOptions: JobThreadPoolOptions;
  private readonly types = new Map<string, AnyJobType>();
  private readonly policies = new Map<string, JobBackoffPolicy>();
  private readonly active = new Map<string, ActiveRun>();
  private readonly idleWaiters = new Set<() => void>();
  private readonly totals: JobQueueTotals = {
    enqueued: 0, deduplicated: 0, started: 0, succeeded: 0, failed: 0, retried: 0, deadLettered: 0, timedOut: 0, deadRetried: 0, released: 0,
    evictedSucceeded: 0, evictedDead: 0,
  };
  /** Evictions already logged, and when the last eviction line was written. */
  private evictionsLogged = { succeeded: 0, dead: 0 };
  private lastEvictionLog = -Infinity;
  private phase: JobQueuePhase = "idle";
  private opening: Promise<void> | null = null;
  private pool: JobThreadPool | null = null;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private wakeTimer: unknown = null;
  private wakeAt = Infinity;
  private draining: Promise<JobDrainResult> | null = null;
  /** Consecutive failures to look for work (the backoff's attempt number). */
  private storeFailures = 0;
  private renewTimer: unknown = null;
  private stopWake: (() => void) | null = null;
  private finishedWhileDraining = 0;
  private readonly changeListeners = new Set<(change: JobChange) => void>();

  constructor(options: JobQueueOptions = {}) {
    this.store = options.store ?? new MemoryJobStore();
    this.concurrency = options.concurrency ?? DEFAULT_JOB_CONCURRENCY;
    if (!(Number.isInteger(this.concurrency) && this.concurrency >= 1 && this.concurrency <= 10_000)) throw new RangeError("job queue: concurrency must be an integer from 1 to 10000");
    this.maxAttempts = checkMaxAttempts(options.maxAttempts ?? DEFAULT_JOB_MAX_ATTEMPTS, "job queue");
    this.timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_JOB_TIMEOUT_MS, "job queue");
    this.backoff = resolveJobBackoff(options.backoff);
    this.clock = options.clock ?? systemJobClock;
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? createJsonLogger();
    const poll = options.pollIntervalMs ?? 0;
    if (!(poll >= 0)) throw new RangeError("job queue: pollIntervalMs must be >= 0");
    this.pollIntervalMs = pollInterval(poll, this.store.leaseMs);
    this.threadOptions = options.threads ?? {};
    for (const job of options.jobs ?? []) this.register(job);
  }

  /**
   * Call `listener` on every state change this queue makes (see JobChange); returns the function
   * that unsubscribes. A listener that throws is logged and kept; it cannot stop a job.
   */
  onChange(listener: (change: JobChange) => void): () => void {
    this.changeListeners.add(listener);
    return () => void this.changeListeners.delete(listener);
  }

  private changed(change: JobChange): void {
    for (const listener of this.changeListeners) {
      try {
        listener(change);
      } catch (err) {
        this.log(LOG_LEVELS.warn, "job queue: a change listener failed", { error: describeJobError(err) });
      }
    }
  }

  /** Register job types. A name can belong to one type only. */
  register(...jobs: AnyJobType[]): this {
    for (const job of jobs) {
      const existing = this.types.get(job.name);
      if (existing === job) continue;
      if (existing !== undefined) throw new TypeError(`job queue: another job type is already registered as ${JSON.stringify(job.name)}`);
      this.policies.set(job.name, resolveJobBackoff(job.backoff, this.backoff));
      this.types.set(job.name, job);
    }
    return this;
  }

  /** Open the store (recovering after a crash) and start the workers. */
  async start(): Promise<this> {
    if (this.phase === "draining" || this.phase === "stopped") throw new Error("job queue: cannot start after drain");
    await this.open();
    if (this.phase === "idle") {
      this.phase = "running";
      this.stopWake = this.store.onWake?.(() => this.pump()) ?? null;
      this.pump();
    }
    return this;
  }

  /**
   * Add a job; resolves to its id once the store has it. The payload is checked against the job
   * type's schema first: a bad payload rejects with JobPayloadError (an HTTP 422 validation_error
   * when it reaches the app) and is not stored. Rejects with JobQueueClosedError (503) once the
   * queue is draining.
   */
  async enqueue<P, I>(job: JobType<P, I>, payload: NoInfer<I>, options: EnqueueOptions = {}): Promise<string> {
    this.refuseWhenStopping();
    if (this.types.get(job.name) !== (job as unknown)) throw new TypeError(`job queue: job type ${JSON.stringify(job.name)} is not registered with this queue`);
    const checked = await job.check(payload);
    let copy: unknown;
    try {
      const json = JSON.stringify(checked);
      copy = json === undefined ? null : JSON.parse(json);
    } catch (err) {
      throw new TypeError(`job ${job.name}: the payload is not JSON-serializable (${describeJobError(err)})`);
    }
    const now = this.clock.now();
    const runAt = enqueueRunAt(options, now);
    const maxAttempts = checkMaxAttempts(options.maxAttempts ?? job.maxAttempts ?? this.maxAttempts, `job ${job.name}`);
    const key = enqueueKey(options, job.name);
    await this.open();
    this.refuseWhenStopping();
    const record: JobRecord = { id: newJobId(), type: job.name, payload: copy, state: "pending", attempts: 0, maxAttempts, runAt, createdAt: now, updatedAt: now, key, errors: [] };
    const result = await this.store.add(record);
    if (result.created) {
      this.totals.enqueued++;
      if (this.changeListeners.size > 0) this.changed({ id: record.id, type: record.type, state: "pending", attempt: 0, at: now });
    } else this.totals.deduplicated++;
    this.pump();
    return result.id;
  }

  /**
   * Stop taking jobs, let running ones finish until `deadlineMs` (default 10000) has passed, then
   * abort the rest (signal reason JobDrainError) and put them back to pending; close the store.
   * Pending jobs stay in the store. Safe to call more than once (same result).
   */
  drain(deadlineMs: number = DEFAULT_DRAIN_MS): Promise<JobDrainResult> {
    if (this.draining !== null) return this.draining;
    this.phase = "draining";
    this.clearWake();
    this.stopWake?.();
    this.stopWake = null;
    this.draining = this.finishDrain(Math.max(0, deadlineMs));
    return this.draining;
  }

  // --- inspection --------------------------------------------------------------------------------

  async getJob(id: string): Promise<JobInfo | undefined> {
    if (typeof id !== "string") return undefined;
    await this.open();
    const record = await this.store.get(id);
    return record === undefined ? undefined : toJobInfo(record);
  }

  async stats(): Promise<JobQueueStats> {
    await this.open();
    this.noteEvictions();
    return { phase: this.phase, concurrency: this.concurrency, active: this.active.size, counts: await this.store.counts(), totals: { ...this.totals } };
  }

  /** Queue health: fail when the store stopped accepting writes or the queue is not running; degraded over the given limits. */
  async health(options: JobQueueHealthOptions = {}): Promise<JobQueueHealth> {
    let counts: JobCounts;
    try {
      await this.open();
      counts = await this.store.counts();
    } catch (err) {
      // An unreachable store is a failed check, not a failed probe.
      const failure = err instanceof Error ? err : new Error(describeJobError(err));
      return assessQueueHealth({ pending: 0, running: 0, succeeded: 0, dead: 0 }, this.phase, failure, options);
    }
    this.noteEvictions();
    return assessQueueHealth(counts, this.phase, this.store.failure ?? null, options, this.store.retention?.());
  }

  /** A health check for the probes' HealthChecks registry (`checks.add("jobs", queue.healthCheck())`). */
  healthCheck(options: JobQueueHealthOptions = {}): (signal?: AbortSignal) => Promise<JobQueueHealth> {
    return () => this.health(options);
  }

  // --- dead-letter queue -------------------------------------------------------------------------

  /** Dead jobs, oldest first, with their error history. */
  async listDead(limit = 100): Promise<JobInfo[]> {
    await this.open();
    const records = await this.store.list("dead", Math.min(Math.max(0, Math.floor(limit)), MAX_LIST));
    return records.map(toJobInfo);
  }

  async getDead(id: string): Promise<JobInfo | undefined> {
    const info = await this.getJob(id);
    return info?.state === "dead" ? info : undefined;
  }

  /** Move a dead job back to pending with its attempts reset; false when no such dead job. */
  async retryDead(id: string): Promise<boolean> {
    this.refuseWhenStopping();
    await this.open();
    const ok = typeof id === "string" && (await this.store.retryDead(id, this.clock.now()));
    if (ok) {
      this.totals.deadRetried++;
      this.pump();
    }
    return ok;
  }

  async deleteDead(id: string): Promise<boolean> {
    await this.open();
    return typeof id === "string" && this.store.deleteDead(id);
  }

  // --- workers -----------------------------------------------------------------------------------

  private open(): Promise<void> {
    // A failed open (the store unreachable) is tried again by the next call.
    return (this.opening ??= this.store.open(this.clock.now()).catch((err: unknown) => {
      this.opening = null;
      throw err;
    }));
  }

  private refuseWhenStopping(): void {
    if (this.phase === "draining" || this.phase === "stopped") throw new JobQueueClosedError();
  }

  /** Look for work; coalesces calls made while a look is in progress. */
  private pump(): void {
    if (this.phase !== "running") return;
    if (this.pumping !== null) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pumpLoop().finally(() => {
      this.pumping = null;
      // A job may have finished after the loop's last look and before this point.
      if (this.pumpAgain) this.pump();
    });
  }

  private async pumpLoop(): Promise<void> {
    try {
      do {
        this.pumpAgain = false;
        if (this.phase !== "running") return;
        const free = this.concurrency - this.active.size;
        if (free <= 0) return; // a finishing job pumps again
        const now = this.clock.now();
        const jobs = await this.store.claim(now, free);
        for (const record of jobs) this.execute(record);
        if (jobs.length < free) {
          const next = await this.store.nextRunAt();
          let at = next ?? Infinity;
          if (this.pollIntervalMs > 0) at = Math.min(at, now + this.pollIntervalMs);
          if (at !== Infinity) this.armWake(at);
        } else this.pumpAgain = true;
        if (this.storeFailures > 0) {
          this.log(LOG_LEVELS.info, "job queue: the job store answers again", { failures: this.storeFailures });
          this.storeFailures = 0;
        }
      } while (this.pumpAgain);
    } catch (err) {
      this.pumpAgain = false; // retry on the timer below, not in a tight loop
      this.storeFailures++;
      // Never back off past the poll interval: a shared store's leases must still be watched.
      const policy = this.pollIntervalMs > 0 ? { ...STORE_RETRY, maxMs: Math.min(STORE_RETRY.maxMs, Math.max(STORE_RETRY_MIN_MS, this.pollIntervalMs)) } : STORE_RETRY;
      const delay = Math.max(STORE_RETRY_MIN_MS, fullJitterDelay(this.storeFailures, policy, this.random));
      this.log(LOG_LEVELS.error, "job queue: cannot read the job store", { error: describeJobError(err), failures: this.storeFailures, retry_in_ms: delay });
      this.armWake(this.clock.now() + delay);
    }
  }

  private armWake(at: number): void {
    if (this.phase !== "running") return;
    if (this.wakeTimer !== null && this.wakeAt <= at) return;
    this.clearWake();
    this.wakeAt = at;
    this.wakeTimer = this.clock.setTimer(() => {
      this.wakeTimer = null;
      this.wakeAt = Infinity;
      this.pump();
    }, Math.max(0, at - this.clock.now()));
  }

  private clearWake(): void {
    if (this.wakeTimer !== null) this.clock.clearTimer(this.wakeTimer);
    this.wakeTimer = null;
    this.wakeAt = Infinity;
  }

  private execute(record: JobRecord): void {
    const trace: JobRunTrace | null = jobsTraced() ? { queue: this, id: record.id, type: record.type, attempt: record.attempts, maxAttempts: record.maxAttempts, outcome: "running", error: undefined } : null;
    const run: ActiveRun = { record, attempt: record.attempts, maxAttempts: record.maxAttempts, controller: new AbortController(), timer: null, settled: false, leaseLost: false, trace };
    this.active.set(record.id, run);
    this.armRenewal();
    this.totals.started++;
    if (this.changeListeners.size > 0) this.changed({ id: record.id, type: record.type, state: "running", attempt: record.attempts, at: this.clock.now() });
    const type = this.types.get(record.type);
    if (type === undefined) {
      if (trace !== null) jobStartChannel.publish(trace);
      this.settle(run, true, new Error(`no job type ${JSON.stringify(record.type)} is registered with this queue`));
      return;
    }
    const timeoutMs = type.timeoutMs ?? this.timeoutMs;
    run.timer = this.clock.setTimer(() => this.timeout(run, timeoutMs), timeoutMs);
    const start = (): Promise<unknown> => {
      try {
        const signal = run.controller.signal;
        return type.thread !== null ? this.threadPool().run(type.thread, record.payload, signal) : Promise.resolve(type.handler!(record.payload as never, signal));
      } catch (err) {
        return Promise.reject(err);
      }
    };
    const outcome = trace === null ? start() : jobStartChannel.runStores(trace, start);
    outcome.then(
      () => this.settle(run, false, null),
      (err: unknown) => this.settle(run, true, err),
    );
  }

  /** With a leased store: renew the running jobs' leases every third of the lease while any run. */
  private armRenewal(): void {
    const leaseMs = this.store.leaseMs;
    if (this.renewTimer !== null || leaseMs === undefined || this.store.renew === undefined) return;
    this.renewTimer = this.clock.setTimer(() => void this.renewLeases(), Math.max(1, Math.floor(leaseMs / 3)));
  }

  private async renewLeases(): Promise<void> {
    this.renewTimer = null;
    const held: string[] = [];
    for (const run of this.active.values()) if (!run.leaseLost) held.push(run.record.id);
    if (held.length === 0) return;
    try {
      const lost = await this.store.renew!(held, this.clock.now());
      for (const id of lost) {
        const run = this.active.get(id);
        if (run === undefined || run.leaseLost) continue;
        // Another worker runs the job now: tell the handler to stop its duplicate work, once.
        run.leaseLost = true;
        run.controller.abort(new JobLeaseLostError());
        this.log(LOG_LEVELS.warn, "job lease lost: another worker may run this job too; its result here will not be recorded", { job_id: id, job_type: run.record.type, attempt: run.attempt });
      }
    } catch (err) {
      // Not fatal: the next renewal may get through before the lease lapses.
      this.log(LOG_LEVELS.warn, "job queue: cannot renew job leases", { error: describeJobError(err), jobs: this.active.size });
    }
    if (this.active.size > 0) this.armRenewal(); // the drain empties `active` before it stops
  }

  private clearRenewal(): void {
    if (this.renewTimer !== null) this.clock.clearTimer(this.renewTimer);
    this.renewTimer = null;
  }

  private threadPool(): JobThreadPool {
    return (this.pool ??= new JobThreadPool(this.threadOptions));
  }

  private timeout(run: ActiveRun, timeoutMs: number): void {
    if (run.settled) return;
    run.timer = null;
    const err = new JobTimeoutError(timeoutMs);
    this.totals.timedOut++;
    run.controller.abort(err);
    this.settle(run, true, err);
  }

  private settle(run: ActiveRun, failed: boolean, error: unknown): void {
    if (run.settled) return;
    run.settled = true;
    if (run.timer !== null) this.clock.clearTimer(run.timer);
    const id = run.record.id;
    this.active.delete(id);
    if (this.phase === "draining") this.finishedWhileDraining++;
    const now = this.clock.now();
    if (!failed) {
      this.totals.succeeded++;
      this.track(this.store.complete(id, now), id);
      if (this.changeListeners.size > 0) this.changed({ id, type: run.record.type, state: "succeeded", attempt: run.attempt, at: now });
    } else this.recordFailure(run, error, now);
    const trace = run.trace;
    if (trace !== null) {
      trace.outcome = !failed ? "succeeded" : run.attempt >= run.maxAttempts ? "dead" : "retry";
      trace.error = failed ? error : undefined;
      jobEndChannel.publish(trace);
    }
    this.noteEvictions();
    if (this.active.size === 0) for (const wake of [...this.idleWaiters]) wake();
    this.pump();
  }

  /**
   * Count the store's evictions in the totals, and log them: at most one line every 10 s, with
   * how many were evicted since the last line, so a flood of failing jobs cannot flood the log.
   */
  private noteEvictions(): void {
    const retention = this.store.retention?.();
    if (retention === undefined) return;
    this.totals.evictedSucceeded = retention.succeeded.evicted;
    this.totals.evictedDead = retention.dead.evicted;
    const newSucceeded = retention.succeeded.evicted - this.evictionsLogged.succeeded;
    const newDead = retention.dead.evicted - this.evictionsLogged.dead;
    if (newSucceeded + newDead === 0) return;
    const now = this.clock.now();
    if (now - this.lastEvictionLog < EVICTION_LOG_INTERVAL_MS) return;
    this.lastEvictionLog = now;
    this.evictionsLogged = { succeeded: retention.succeeded.evicted, dead: retention.dead.evicted };
    this.log(LOG_LEVELS.warn, "job store at its retention cap; oldest finished jobs evicted", {
      evicted_dead: newDead,
      evicted_succeeded: newSucceeded,
      dead: retention.dead.count,
      dead_bytes: retention.dead.bytes,
      max_dead: retention.dead.maxCount,
      max_dead_bytes: retention.dead.maxBytes,
      succeeded: retention.succeeded.count,
      succeeded_bytes: retention.succeeded.bytes,
    });
  }

  /** One log line per failure; then retry with backoff, or the dead-letter queue after the last attempt. */
  private recordFailure(run: ActiveRun, error: unknown, now: number): void {
    this.totals.failed++;
    const message = describeJobError(error);
    const { id, type } = run.record;
    const fields: Record<string, unknown> = { job_id: id, job_type: type, attempt: run.attempt, max_attempts: run.maxAttempts, error: message };
    if (run.attempt >= run.maxAttempts) {
      this.totals.deadLettered++;
      this.track(this.store.fail(id, now, message, null), id);
      if (this.changeListeners.size > 0) this.changed({ id, type, state: "dead", attempt: run.attempt, at: now, error: message });
      fields["dead_letter"] = true;
      this.log(LOG_LEVELS.error, "job failed; moved to the dead-letter queue", fields);
      return;
    }
    const delay = jobBackoffDelay(run.attempt, this.policies.get(type) ?? this.backoff, this.random);
    this.totals.retried++;
    this.track(this.store.fail(id, now, message, now + delay), id);
    if (this.changeListeners.size > 0) this.changed({ id, type, state: "pending", attempt: run.attempt, at: now, retryAt: now + delay, error: message });
    fields["retry_in_ms"] = delay;
    this.log(LOG_LEVELS.warn, "job failed; will retry", fields);
    this.armWake(now + delay);
  }

  private async finishDrain(deadlineMs: number): Promise<JobDrainResult> {
    if (this.opening !== null) await this.opening.catch(() => undefined);
    if (this.pumping !== null) await this.pumping;
    if (this.active.size > 0) await this.waitIdle(deadlineMs);
    const now = this.clock.now();
    let released = 0;
    for (const run of [...this.active.values()]) {
      run.settled = true;
      if (run.timer !== null) this.clock.clearTimer(run.timer);
      this.active.delete(run.record.id);
      run.controller.abort(new JobDrainError());
      await this.store.release(run.record.id, now).catch((err: unknown) => this.storeWriteFailed(err, run.record.id));
      released++;
    }
    this.totals.released += released;
    this.clearRenewal();
    if (this.pool !== null) await this.pool.close();
    let pending = 0;
    if (this.opening !== null) {
      pending = (await this.store.counts().catch(() => ({ pending: 0 }))).pending;
      await this.store.close().catch((err: unknown) => this.storeWriteFailed(err));
    }
    this.phase = "stopped";
    return { finished: this.finishedWhileDraining, released, pending };
  }

  private waitIdle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.idleWaiters.delete(done);
        this.clock.clearTimer(timer);
        resolve();
      };
      const timer = this.clock.setTimer(done, ms);
      this.idleWaiters.add(done);
    });
  }

  /**
   * A job's outcome, written in the background. If the write fails the job stays running in the
   * store: a leased store hands it out again once the lease lapses, an in-process one on restart.
   * False from a leased store: the lease had been taken over, so this run's outcome is dropped.
   */
  private track(write: Promise<boolean>, id: string): void {
    write.then(
      (ok) => {
        if (!ok && this.store.leaseMs !== undefined) this.log(LOG_LEVELS.warn, "job queue: the job's lease was taken over before it finished; its outcome here is dropped", { job_id: id });
      },
      (err: unknown) => this.storeWriteFailed(err, id),
    );
  }

  private storeWriteFailed(err: unknown, id?: string): void {
    const fields: Record<string, unknown> = { error: describeJobError(err) };
    if (id !== undefined) fields["job_id"] = id;
    this.log(LOG_LEVELS.error, "job queue: job store write failed", fields);
  }

  private log(level: number, msg: string, fields: Record<string, unknown>): void {
    if (level >= this.logger.level) this.logger.log(level, msg, fields);
  }
}
