// keel/middleware: retry() for idempotent methods, full-jitter backoff within a total budget.
export { retry, type RetryOptions } from "./retry.js";
export { backoffDelay } from "./retry.js";
