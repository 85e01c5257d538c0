// Job refusals as HTTP answers. The refusals carry their answer themselves (job-errors.ts,
// keel/plugin's asApiError), so every app maps them with no registration; this function gives
// the same answer to code that maps errors by hand (a gRPC service, a test).
import type { ApiError } from "../index.js";
import { asApiError } from "../plugin.js";
import { JobPayloadError, JobQueueClosedError } from "./job-errors.js";

export function jobErrorMapper(err: unknown): ApiError | undefined {
  if (err instanceof JobPayloadError || err instanceof JobQueueClosedError) return err[asApiError]();
  return undefined;
}
