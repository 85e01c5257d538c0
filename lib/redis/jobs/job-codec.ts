// Jobs between JobRecord and the replies of the scripts (job-scripts.ts): a record comes back as
// [id, type, payload, state, attempts, max, runAt, createdAt, updatedAt, key, errors], with the
// payload and errors as JSON text and an absent key as null.
import { JOB_STATES, type JobErrorEntry, type JobRecord, type JobRetention, type JobState } from "../../jobs/index.js";
import { RedisDesyncError, type RedisReply } from "../client/index.js";

/** A script's reply of the wrong shape: the stream is out of step (the store resets the client); a 503. */
export class JobReplyError extends RedisDesyncError {
  constructor(what: string) {
    super(`redis job store: unexpected reply (${what})`);
    this.name = "JobReplyError";
  }
}

function text(value: RedisReply | undefined, what: string): string {
  if (typeof value === "string") return value;
  if (Buffer.isBuffer(value)) return value.toString("utf8");
  throw new JobReplyError(what);
}

function integer(value: RedisReply | undefined, what: string): number {
  const n = typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : Number(text(value, what));
  if (!Number.isFinite(n)) throw new JobReplyError(what);
  return n;
}

function isState(value: string): value is JobState {
  return (JOB_STATES as readonly string[]).includes(value);
}

export function decodeRecord(reply: RedisReply | undefined): JobRecord {
  if (!Array.isArray(reply) || reply.length !== 11) throw new JobReplyError("job record");
  const state = text(reply[3], "state");
  if (!isState(state)) throw new JobReplyError("state");
  const key = reply[9];
  return {
    id: text(reply[0], "id"),
    type: text(reply[1], "type"),
    payload: JSON.parse(text(reply[2], "payload")) as unknown,
    state,
    attempts: integer(reply[4], "attempts"),
    maxAttempts: integer(reply[5], "maxAttempts"),
    runAt: integer(reply[6], "runAt"),
    createdAt: integer(reply[7], "createdAt"),
    updatedAt: integer(reply[8], "updatedAt"),
    key: key === null || key === undefined || key === false ? null : text(key, "key"),
    errors: decodeErrors(text(reply[10], "errors")),
  };
}

function decodeErrors(json: string): JobErrorEntry[] {
  const parsed = JSON.parse(json) as unknown;
  // Lua's cjson writes an empty table as {} (it cannot tell an empty array from an empty object).
  if (!Array.isArray(parsed)) return [];
  return parsed.map((e: { attempt: number; at: number; message: string }) => ({ attempt: e.attempt, at: e.at, message: e.message }));
}

/** What a record costs to keep once finished, without its errors: as the in-process table counts it. */
export function baseSize(record: JobRecord, payloadJson: string): number {
  return 64 + record.type.length + (record.key?.length ?? 0) + payloadJson.length;
}

export function errorsSize(errors: readonly JobErrorEntry[]): number {
  let size = 0;
  for (const e of errors) size += Buffer.byteLength(e.message) + 32;
  return size;
}

export interface RetentionCaps {
  keepSucceeded: number;
  maxSucceededBytes: number;
  keepDead: number;
  maxDeadBytes: number;
}

/** [count, bytes, evicted] of succeeded then dead, as the scripts' retention() answers. */
export function decodeRetention(reply: RedisReply | undefined, caps: RetentionCaps, evictedBefore: { succeeded: number; dead: number }): JobRetention {
  if (!Array.isArray(reply) || reply.length !== 6) throw new JobReplyError("retention");
  const n = (i: number): number => integer(reply[i], "retention");
  return {
    succeeded: { count: n(0), bytes: n(1), maxCount: caps.keepSucceeded, maxBytes: caps.maxSucceededBytes, evicted: Math.max(0, n(2) - evictedBefore.succeeded) },
    dead: { count: n(3), bytes: n(4), maxCount: caps.keepDead, maxBytes: caps.maxDeadBytes, evicted: Math.max(0, n(5) - evictedBefore.dead) },
  };
}
