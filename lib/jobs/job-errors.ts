// The job queue's own errors. Reasons a job's AbortSignal fires (signal.reason), so handlers can
// tell them apart, and why `enqueue` refuses a job. None of them knows about HTTP: the
// jobErrorMapper (job-error-mapper.ts) turns the refusals into the uniform error answers.
import type { FieldError } from "../plugin.js";

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

/** A shared store's lease on the running job was taken over: another worker runs it now, and this run's outcome will not be recorded. */
export class JobLeaseLostError extends Error {
  constructor() {
    super("the job's lease was taken over by another worker: this run's outcome will not be recorded");
    this.name = "JobLeaseLostError";
  }
}

/** `enqueue` refused a payload that does not match its job type's schema; nothing was stored. */
export class JobPayloadError extends Error {
  /** The failed rules, one per field (the shape of a validation error's `fields`). */
  readonly fields: FieldError[];

  constructor(readonly jobType: string, fields: FieldError[]) {
    super(`Invalid payload for job ${jobType}`);
    this.name = "JobPayloadError";
    this.fields = fields;
  }
}

/** `enqueue` (or a dead-letter retry) was refused because the queue is draining or stopped. */
export class JobQueueClosedError extends Error {
  constructor() {
    super("The job queue is shutting down");
    this.name = "JobQueueClosedError";
  }
}
