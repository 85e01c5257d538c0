// Retry delays: exponential growth with "full jitter" (a uniform draw between 0 and the
// exponential ceiling), so jobs that failed together do not retry together.

export interface JobBackoffPolicy {
  /** Ceiling of the first retry delay, ms (default 1000). */
  baseMs: number;
  /** Growth of the ceiling per attempt (default 2). */
  factor: number;
  /** Largest ceiling, ms (default 300000 = 5 minutes). */
  maxMs: number;
}

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
export function jobBackoffCeiling(attempt: number, policy: JobBackoffPolicy): number {
  const exp = Math.max(0, attempt - 1);
  return Math.min(policy.maxMs, policy.baseMs * policy.factor ** exp);
}

/** Delay before the retry that follows failed attempt `attempt`: uniform in [0, ceiling). */
export function jobBackoffDelay(attempt: number, policy: JobBackoffPolicy, random: () => number = Math.random): number {
  const r = random();
  const unit = r >= 0 && r < 1 ? r : 0;
  return Math.floor(unit * jobBackoffCeiling(attempt, policy));
}
