// Reasons a job's AbortSignal fires (signal.reason), so handlers can tell them apart.

/** The attempt ran longer than its timeout; it counts as a failure. */
export class JobTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`job timed out after ${timeoutMs} ms`);
    this.name = "JobTimeoutError";
  }
}

/** The queue's drain deadline passed while the job was running; it goes back to pending. */
export class JobDrainError extends Error {
  constructor() {
    super("the job queue is shutting down: the job was put back to pending");
    this.name = "JobDrainError";
  }
}
