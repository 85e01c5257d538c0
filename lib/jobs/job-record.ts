// What the queue stores per job, and the read-only view handed to callers.

/** pending: waiting for its run-at time or a worker; running: claimed by a worker;
 *  succeeded: finished (kept for status queries up to a retention count); dead: in the dead-letter queue. */
export type JobState = "pending" | "running" | "succeeded" | "dead";

export const JOB_STATES: readonly JobState[] = ["pending", "running", "succeeded", "dead"];

/** One failed attempt. */
export interface JobErrorEntry {
  attempt: number;
  /** Epoch ms of the failure. */
  at: number;
  message: string;
}

/** A job as the store keeps it. Stores own these objects; callers get copies (JobInfo). */
export interface JobRecord {
  id: string;
  type: string;
  payload: unknown;
  state: JobState;
  /** Attempts started so far (a DLQ retry resets it to 0). */
  attempts: number;
  maxAttempts: number;
  /** Epoch ms when the job may run (next). */
  runAt: number;
  createdAt: number;
  updatedAt: number;
  /** De-duplication key, or null. */
  key: string | null;
  /** The most recent failures, oldest first (at most MAX_ERROR_HISTORY). */
  errors: JobErrorEntry[];
}

export interface JobCounts {
  pending: number;
  running: number;
  succeeded: number;
  dead: number;
}

/** Read-only view of a job (status endpoints, dead-letter inspection). */
export interface JobInfo {
  id: string;
  type: string;
  state: JobState;
  attempts: number;
  maxAttempts: number;
  runAt: string;
  createdAt: string;
  updatedAt: string;
  key: string | null;
  lastError: string | null;
  errors: JobErrorEntry[];
  payload: unknown;
}

export const MAX_ERROR_HISTORY = 20;
export const MAX_ERROR_MESSAGE = 1000;

export function toJobInfo(record: JobRecord): JobInfo {
  const last = record.errors[record.errors.length - 1];
  return {
    id: record.id,
    type: record.type,
    state: record.state,
    attempts: record.attempts,
    maxAttempts: record.maxAttempts,
    runAt: new Date(record.runAt).toISOString(),
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
    key: record.key,
    lastError: last === undefined ? null : last.message,
    errors: record.errors.map((e) => ({ attempt: e.attempt, at: e.at, message: e.message })),
    payload: record.payload,
  };
}

/** The text kept for a failure: the error's message (or its string form), bounded. */
export function describeJobError(err: unknown): string {
  let text: string;
  if (err instanceof Error) text = err.message === "" ? err.name : `${err.name === "Error" ? "" : err.name + ": "}${err.message}`;
  else if (typeof err === "string") text = err;
  else {
    try {
      text = JSON.stringify(err) ?? String(err);
    } catch {
      text = String(err);
    }
  }
  if (text === "") text = "job failed";
  return text.length > MAX_ERROR_MESSAGE ? text.slice(0, MAX_ERROR_MESSAGE - 3) + "..." : text;
}
