// One audit record and its line. A record is written as one JSON object per line with a fixed
// key order; `prev` is the hex SHA-256 of the previous record's line (its exact bytes, without
// the "\n"), so editing, removing or reordering any record breaks the chain at that point.
// The first record of a fresh log chains to GENESIS_HASH (64 zeros).
import { createHash } from "node:crypto";

export type AuditOutcome = "success" | "failure" | "denied";

/** Who acted: the authentication scheme and the principal's subject (null when the claims have none). */
export interface AuditActor {
  readonly scheme: string;
  readonly id: string | null;
}

/** What a caller records; the log adds seq, time and prev. */
export interface AuditEvent {
  /** What happened, e.g. "user.delete", "auth.failed". */
  readonly action: string;
  readonly outcome: AuditOutcome;
  readonly actor?: AuditActor | null;
  /** What it happened to, e.g. "user:42". */
  readonly target?: string | null;
  readonly requestId?: string | null;
  /** The route pattern (`/users/{id}`), never the raw URL with its query. */
  readonly route?: string | null;
  readonly method?: string | null;
  readonly clientAddress?: string | null;
  /** Extra JSON details; keys that name secrets are redacted (see redact.ts). */
  readonly metadata?: Readonly<Record<string, unknown>> | null;
  /** When it happened (default: the log's clock when `record()` is called). */
  readonly time?: Date;
}

/** A record as written (field names as in the file). */
export interface AuditRecord {
  readonly seq: number;
  readonly time: string;
  readonly action: string;
  readonly outcome: AuditOutcome;
  readonly actor: AuditActor | null;
  readonly target: string | null;
  readonly request_id: string | null;
  readonly route: string | null;
  readonly method: string | null;
  readonly client_address: string | null;
  readonly metadata: Readonly<Record<string, unknown>> | null;
  readonly prev: string;
}

export const GENESIS_HASH = "0".repeat(64);

const OUTCOMES: ReadonlySet<string> = new Set(["success", "failure", "denied"]);

export function isAuditOutcome(value: unknown): value is AuditOutcome {
  return typeof value === "string" && OUTCOMES.has(value);
}

/** Hex SHA-256 of a line's bytes (a string is hashed as UTF-8, as it is written). */
export function lineHash(line: string | Uint8Array): string {
  return createHash("sha256").update(line).digest("hex");
}

/** True for 64 lowercase hex digits. */
export function isHashText(value: unknown): value is string {
  if (typeof value !== "string" || value.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = value.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** The record's line (no "\n"), keys in the documented order. */
export function formatRecordLine(record: AuditRecord): string {
  return JSON.stringify({
    seq: record.seq,
    time: record.time,
    action: record.action,
    outcome: record.outcome,
    actor: record.actor,
    target: record.target,
    request_id: record.request_id,
    route: record.route,
    method: record.method,
    client_address: record.client_address,
    metadata: record.metadata,
    prev: record.prev,
  });
}

/** The seq of a parsed line when it looks like a record (an integer >= 1 and a hash in `prev`), else null. */
export function recordSeq(value: unknown): number | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const seq = (value as { seq?: unknown }).seq;
  const prev = (value as { prev?: unknown }).prev;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1 || !isHashText(prev)) return null;
  return seq;
}
