// Job refusals as HTTP answers, through the kernel's error-mapper registry: a bad payload is a
// 422 validation_error with the fields, a closed (draining) queue a 503 service_unavailable.
// Every JobQueue registers it (registration is idempotent), so a handler that enqueues needs no
// try/catch; register it yourself if you throw these errors without constructing a queue.
import { ApiError, registerErrorMapper } from "../index.js";
import { JobPayloadError, JobQueueClosedError } from "./job-errors.js";

export function jobErrorMapper(err: unknown): ApiError | undefined {
  if (err instanceof JobPayloadError) return new ApiError(422, "validation_error", err.message, { fields: err.fields, cause: err });
  if (err instanceof JobQueueClosedError) return ApiError.serviceUnavailable(err.message, { cause: err });
  return undefined;
}

export function registerJobErrorMapper(): void {
  registerErrorMapper(jobErrorMapper);
}
