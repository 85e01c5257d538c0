// Exponential backoff with "full jitter": the delay is a uniform draw between 0 and an
// exponential ceiling, so clients (or jobs) that failed together do not retry together.
// The one implementation behind the retry layer and the job queue.

export interface BackoffPolicy {
  /** Ceiling of the first delay, ms. */
  baseMs: number;
  /** Growth of the ceiling per attempt. */
  factor: number;
  /** Largest ceiling, ms. */
  maxMs: number;
}

/** The upper bound of the delay after failed attempt `attempt` (1-based): min(maxMs, baseMs * factor^(attempt-1)). */
export function backoffCeiling(attempt: number, policy: Readonly<BackoffPolicy>): number {
  const exp = Math.max(0, attempt - 1);
  return Math.min(policy.maxMs, policy.baseMs * policy.factor ** exp);
}

/** The delay after failed attempt `attempt`: uniform in [0, ceiling), whole ms. A `random` outside [0, 1) counts as 0. */
export function fullJitterDelay(attempt: number, policy: Readonly<BackoffPolicy>, random: () => number = Math.random): number {
  const r = random();
  const unit = r >= 0 && r < 1 ? r : 0;
  return Math.floor(unit * backoffCeiling(attempt, policy));
}
