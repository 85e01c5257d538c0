// A job type: a unique constant name, a payload schema (checked at enqueue time, so a bad payload
// fails at the call site instead of becoming a poison job) and a handler, either an async function
// in this process or a module export run in a worker thread. The schema is keel's (`t`, JSON
// Schema) or any Standard Schema (zod, valibot, arktype), whose validated value is what is stored.
import type { Static, StaticInput } from "../index.js";
import { compileSchema, foreignSchema, isPromise, issueFields, schemaProblem, type AnySchema, type FieldError, type JsonSchema, type StandardSchemaV1 } from "../plugin.js";
import { JobPayloadError } from "./job-errors.js";
import type { JobBackoffPolicy } from "./job-backoff.js";
import { threadModuleUrl, type JobThreadTarget } from "./thread-pool.js";

export type JobHandler<P> = (payload: P, signal: AbortSignal) => unknown;

export interface JobDefinition<S extends AnySchema> {
  /** Unique, constant: it is stored with every job. 1-128 characters of [A-Za-z0-9_.:-]. */
  name: string;
  /**
   * The payload's schema: JSON Schema (a `t` schema or raw) or any Standard Schema (its validated
   * value, coerced or stripped, is what is stored, as JSON).
   */
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

/** `P`: what the handler gets; `I`: what `enqueue` takes (a Standard Schema's input type). */
export interface JobType<P = unknown, I = P> {
  readonly name: string;
  readonly schema: AnySchema;
  readonly handler: JobHandler<P> | null;
  readonly thread: { readonly module: string; readonly export: string } | null;
  readonly maxAttempts: number | undefined;
  readonly timeoutMs: number | undefined;
  readonly backoff: Partial<JobBackoffPolicy> | undefined;
  /** Payload check: null when valid. */
  readonly validate: (payload: unknown) => FieldError[] | null | Promise<FieldError[] | null>;
  /**
   * The payload to store: the validated value (a Standard Schema's output; the payload itself
   * for keel's schemas). Rejects or throws JobPayloadError when invalid.
   */
  readonly check: (payload: unknown) => unknown;
  /** Type-only (never set): what `enqueue` takes, in a parameter so any job type is an AnyJobType. */
  readonly "~input"?: (payload: I) => void;
}

/** Any job type, whatever its payload (what a queue registers). */
export type AnyJobType = JobType<never, never>;

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

/** The checks of a Standard Schema payload: validated by the schema itself, sync or async. */
function foreignChecks(name: string, schema: StandardSchemaV1): Pick<AnyJobType, "validate" | "check"> {
  const std = schema["~standard"];
  const fieldsOf = (r: StandardSchemaV1.Result<unknown>): FieldError[] | null => (r.issues === undefined ? null : issueFields(r.issues));
  const valueOf = (r: StandardSchemaV1.Result<unknown>): unknown => {
    if (r.issues !== undefined) throw new JobPayloadError(name, issueFields(r.issues));
    return r.value;
  };
  return {
    validate: (payload) => {
      const r = std.validate(payload);
      return isPromise(r) ? r.then(fieldsOf) : fieldsOf(r);
    },
    check: (payload) => {
      const r = std.validate(payload);
      return isPromise(r) ? r.then(valueOf) : valueOf(r);
    },
  };
}

/**
 * Declares a job type: a constant name, a payload schema checked at enqueue time, and a handler
 * (in this process) or a thread target (in the queue's worker pool).
 *
 * @example
 * const sendWelcome = defineJob({
 *   name: "email.welcome",
 *   payload: t.object({ to: t.string() }),
 *   handler: async ({ to }, signal) => { await mailer.send(to, { signal }); },
 * });
 *
 * @see docs/features/jobs.md
 */
export function defineJob<S extends AnySchema>(definition: JobDefinition<S>): JobType<Static<S>, StaticInput<S>> {
  const { name } = definition;
  if (typeof name !== "string" || !JOB_NAME.test(name)) throw new TypeError(`job name ${JSON.stringify(name)} must match ${JOB_NAME.source}`);
  const hasHandler = typeof definition.handler === "function";
  const hasThread = definition.thread !== undefined;
  if (hasHandler === hasThread) throw new TypeError(`job ${name}: give exactly one of handler or thread`);
  const what = `job ${name}`;
  if (definition.maxAttempts !== undefined) checkMaxAttempts(definition.maxAttempts, what);
  if (definition.timeoutMs !== undefined) checkTimeout(definition.timeoutMs, what);
  const problem = schemaProblem(definition.payload);
  if (problem !== undefined) throw new TypeError(`${what}: the payload schema ${problem}`);
  const foreign = foreignSchema(definition.payload);
  const checks = foreign !== null ? foreignChecks(name, foreign) : keelChecks(name, compileSchema(definition.payload as JsonSchema));
  const thread = definition.thread === undefined ? null : { module: threadModuleUrl(definition.thread.module), export: definition.thread.export ?? "default" };
  return Object.freeze({
    name,
    schema: definition.payload,
    handler: definition.handler ?? null,
    thread,
    maxAttempts: definition.maxAttempts,
    timeoutMs: definition.timeoutMs,
    backoff: definition.backoff,
    validate: checks.validate,
    check: checks.check,
  });
}

function keelChecks(name: string, compiled: { validate(value: unknown): FieldError[] | null }): Pick<AnyJobType, "validate" | "check"> {
  return {
    validate: (payload) => compiled.validate(payload),
    check: (payload) => {
      const fields = compiled.validate(payload);
      if (fields !== null) throw new JobPayloadError(name, fields);
      return payload;
    },
  };
}
