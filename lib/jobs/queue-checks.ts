// Pure helpers of JobQueue: enqueue-option checks and the health verdict.
import type { JobCounts } from "./job-record.js";
import type { JobRetention, RetainedJobs } from "./job-table.js";
import type { EnqueueOptions, JobQueueHealth, JobQueueHealthOptions, JobQueuePhase } from "./queue-types.js";

const MAX_KEY_LENGTH = 256;

/** The run-at time an enqueue asks for (now, now + delay, or runAt). */
export function enqueueRunAt(options: EnqueueOptions, now: number): number {
  if (options.delay !== undefined && options.runAt !== undefined) throw new TypeError("job queue: give delay or runAt, not both");
  if (options.delay !== undefined) {
    if (!(Number.isFinite(options.delay) && options.delay >= 0)) throw new RangeError("job queue: delay must be a finite number >= 0");
    return now + options.delay;
  }
  if (options.runAt !== undefined) {
    const at = options.runAt instanceof Date ? options.runAt.getTime() : options.runAt;
    if (!Number.isFinite(at)) throw new RangeError("job queue: runAt must be a valid date");
    return at;
  }
  return now;
}

/** The de-duplication key, checked (1-256 characters), or null. */
export function enqueueKey(options: EnqueueOptions, jobName: string): string | null {
  const key = options.key ?? null;
  if (key !== null && (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH)) {
    throw new TypeError(`job ${jobName}: key must be a string of 1 to ${MAX_KEY_LENGTH} characters`);
  }
  return key;
}

/** fail: the store refuses writes, or the queue is not running; degraded: over a configured limit. */
/** The fuller of a retained set's two caps, 0..1 (0 when a cap is 0: nothing is kept). */
function fill(r: RetainedJobs): number {
  return Math.max(r.maxCount === 0 ? 0 : r.count / r.maxCount, r.maxBytes === 0 ? 0 : r.bytes / r.maxBytes);
}

export function assessQueueHealth(
  counts: JobCounts,
  phase: JobQueuePhase,
  storeFailure: Error | null,
  options: JobQueueHealthOptions,
  retention?: JobRetention,
): JobQueueHealth {
  const problems: string[] = [];
  if (storeFailure !== null) problems.push(`job store failed: ${storeFailure.message}`);
  else if (phase === "stopped") problems.push("job queue is stopped");
  else if (phase === "idle") problems.push("job queue is not started");
  const failed = problems.length > 0;
  if (options.maxBacklog !== undefined && counts.pending > options.maxBacklog) problems.push(`backlog ${counts.pending} is over ${options.maxBacklog}`);
  if (options.maxDeadLetters !== undefined && counts.dead > options.maxDeadLetters) problems.push(`${counts.dead} dead letters (over ${options.maxDeadLetters})`);
  if (retention !== undefined) {
    const threshold = options.retentionPressure ?? 0.9;
    for (const [name, r] of [["dead letters", retention.dead], ["kept results", retention.succeeded]] as const) {
      const used = fill(r);
      if (used >= threshold) problems.push(`${name} at ${Math.round(used * 100)}% of their cap (${r.count}/${r.maxCount}, ${r.bytes}/${r.maxBytes} bytes; ${r.evicted} evicted)`);
    }
  }
  const status: JobQueueHealth["status"] = failed ? "fail" : problems.length > 0 ? "degraded" : "ok";
  const out: JobQueueHealth = { status, phase, backlog: counts.pending, running: counts.running, dead: counts.dead };
  if (retention !== undefined) out.retention = retention;
  if (problems.length > 0) out.error = problems.join("; ");
  return out;
}
