// The time source of the job queue. Everything time-dependent (run-at times, backoff, timeouts,
// drain deadlines) goes through a JobClock, so tests can drive time by hand (ManualJobClock)
// instead of sleeping.

export interface JobClock {
  /** Current time, epoch ms. */
  now(): number;
  /** Call `fn` once after `ms` milliseconds; returns a handle for clearTimer. */
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/** Date.now and setTimeout. Delays are clamped to setTimeout's 2^31-1 ms range (the queue re-arms). */
export const systemJobClock: JobClock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => setTimeout(fn, Math.min(Math.max(0, ms), 2_147_483_647)),
  clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
