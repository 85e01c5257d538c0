// The job queue's retry policy: defaults and checks around the shared full-jitter backoff.
import { backoffCeiling, fullJitterDelay, type BackoffPolicy } from "../shared/backoff.js";

/** baseMs: first ceiling (default 1000); factor: growth per attempt (default 2); maxMs: largest ceiling (default 300000 = 5 minutes). */
export type JobBackoffPolicy = BackoffPolicy;

export const DEFAULT_JOB_BACKOFF: Readonly<JobBackoffPolicy> = Object.freeze({ baseMs: 1000, factor: 2, maxMs: 300_000 });

/** Fill in and check a partial policy. */
export function resolveJobBackoff(partial: Partial<JobBackoffPolicy> | undefined, fallback: Readonly<JobBackoffPolicy> = DEFAULT_JOB_BACKOFF): JobBackoffPolicy {
  const policy: JobBackoffPolicy = {
    baseMs: partial?.baseMs ?? fallback.baseMs,
    factor: partial?.factor ?? fallback.factor,
    maxMs: partial?.maxMs ?? fallback.maxMs,
  };
  if (!(Number.isFinite(policy.baseMs) && policy.baseMs >= 0)) throw new RangeError("backoff.baseMs must be a finite number >= 0");
  if (!(Number.isFinite(policy.factor) && policy.factor >= 1)) throw new RangeError("backoff.factor must be a finite number >= 1");
  if (!(Number.isFinite(policy.maxMs) && policy.maxMs >= policy.baseMs)) throw new RangeError("backoff.maxMs must be a finite number >= baseMs");
  return policy;
}

/** The upper bound of the delay after failed attempt `attempt` (1-based): min(maxMs, baseMs * factor^(attempt-1)). */
export const jobBackoffCeiling: (attempt: number, policy: Readonly<JobBackoffPolicy>) => number = backoffCeiling;

/** Delay before the retry that follows failed attempt `attempt`: uniform in [0, ceiling). */
export const jobBackoffDelay: (attempt: number, policy: Readonly<JobBackoffPolicy>, random?: () => number) => number = fullJitterDelay;
