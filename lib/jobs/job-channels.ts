// diagnostics_channel events of job runs (public names, listed in docs/features/tracing.md): one
// object per run, published on `keel.job.start` when the run begins (the handler runs inside
// `runStores`, so a subscriber's AsyncLocalStorage context reaches the job's own I/O) and again
// on `keel.job.end` when it settles. Nothing is built while nobody subscribes.
import { channel } from "node:diagnostics_channel";

/** The message of `keel.job.start` and `keel.job.end` (the same object for one run). */
export interface JobRunTrace {
  /** The queue running the job. */
  readonly queue: unknown;
  readonly id: string;
  /** The job type's name. */
  readonly type: string;
  /** This run's attempt number (1 = first). */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** "running" at start; at end "succeeded", "retry" (failed, will run again) or "dead" (dead-letter queue). */
  outcome: "running" | "succeeded" | "retry" | "dead";
  /** What the run failed with (a timeout is a JobTimeoutError). */
  error: unknown;
}

export const jobStartChannel = channel("keel.job.start");
export const jobEndChannel = channel("keel.job.end");

/** Whether a run needs a trace object. */
export function jobsTraced(): boolean {
  return jobStartChannel.hasSubscribers || jobEndChannel.hasSubscribers;
}
