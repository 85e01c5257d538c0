// A job type: a unique constant name, a payload schema (checked at enqueue time, so a bad payload
// fails at the call site instead of becoming a poison job) and a handler, either an async function
// in this process or a module export run in a worker thread.
import type { JsonSchema, Static } from "../index.js";
import { compileSchema, type FieldError } from "../plugin.js";
import type { JobBackoffPolicy } from "./job-backoff.js";
import { threadModuleUrl, type JobThreadTarget } from "./thread-pool.js";

export type JobHandler<P> = (payload: P, signal: AbortSignal) => unknown;

export interface JobDefinition<S extends JsonSchema> {
  /** Unique, constant: it is stored with every job. 1-128 characters of [A-Za-z0-9_.:-]. */
  name: string;
  /** JSON Schema (a `t` schema or raw) of the payload. */
  payload: S;
  /** Runs in this process. The signal aborts on timeout and at the drain deadline. */
  handler?: JobHandler<Static<S>>;
  /** Runs `module[export](payload)` in the queue's worker-thread pool instead (CPU-bound work). */
  thread?: JobThreadTarget;
  /** Defaults for this type (the queue's otherwise). */
  maxAttempts?: number;
  timeoutMs?: number;
  backoff?: Partial<JobBackoffPolicy>;
}

export interface JobType<P = unknown> {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly handler: JobHandler<P> | null;
  readonly thread: { readonly module: string; readonly export: string } | null;
  readonly maxAttempts: number | undefined;
  readonly timeoutMs: number | undefined;
  readonly backoff: Partial<JobBackoffPolicy> | undefined;
  /** Payload check: null when valid. */
  readonly validate: (payload: unknown) => FieldError[] | null;
}

/** Any job type, whatever its payload (what a queue registers). */
export type AnyJobType = JobType<never>;

const JOB_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
export const MAX_JOB_ATTEMPTS = 1000;

export function checkMaxAttempts(value: number, what: string): number {
  if (!(Number.isInteger(value) && value >= 1 && value <= MAX_JOB_ATTEMPTS)) throw new RangeError(`${what}: maxAttempts must be an integer from 1 to ${MAX_JOB_ATTEMPTS}`);
  return value;
}

export function checkTimeout(value: number, what: string): number {
  if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`${what}: timeoutMs must be a positive number`);
  return value;
}

export function defineJob<S extends JsonSchema>(definition: JobDefinition<S>): JobType<Static<S>> {
  const { name } = definition;
  if (typeof name !== "string" || !JOB_NAME.test(name)) throw new TypeError(`job name ${JSON.stringify(name)} must match ${JOB_NAME.source}`);
  const hasHandler = typeof definition.handler === "function";
  const hasThread = definition.thread !== undefined;
  if (hasHandler === hasThread) throw new TypeError(`job ${name}: give exactly one of handler or thread`);
  const what = `job ${name}`;
  if (definition.maxAttempts !== undefined) checkMaxAttempts(definition.maxAttempts, what);
  if (definition.timeoutMs !== undefined) checkTimeout(definition.timeoutMs, what);
  const compiled = compileSchema(definition.payload);
  const thread = definition.thread === undefined ? null : { module: threadModuleUrl(definition.thread.module), export: definition.thread.export ?? "default" };
  return Object.freeze({
    name,
    schema: definition.payload,
    handler: definition.handler ?? null,
    thread,
    maxAttempts: definition.maxAttempts,
    timeoutMs: definition.timeoutMs,
    backoff: definition.backoff,
    validate: (payload: unknown) => compiled.validate(payload),
  });
}
