// The job queue's own errors. Reasons a job's AbortSignal fires (signal.reason), so handlers can
// tell them apart, and why `enqueue` refuses a job. The two refusals know their HTTP answer
// (keel/plugin's asApiError), so a handler that enqueues needs no try/catch in any app: a bad
// payload is a 422 validation_error with the fields, a closed (draining) queue a 503.
import { ApiError } from "../index.js";
import { asApiError, type FieldError } from "../plugin.js";

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

  [asApiError](): ApiError {
    return new ApiError(422, "validation_error", this.message, { fields: this.fields, cause: this });
  }
}

/** `enqueue` (or a dead-letter retry) was refused because the queue is draining or stopped. */
export class JobQueueClosedError extends Error {
  constructor() {
    super("The job queue is shutting down");
    this.name = "JobQueueClosedError";
  }

  [asApiError](): ApiError {
    return ApiError.serviceUnavailable(this.message, { cause: this });
  }
}
