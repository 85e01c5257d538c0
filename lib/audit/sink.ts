// Where an audit log's lines go. The log (audit-log.ts) owns the chain: it numbers records,
// computes `prev` and hands finished lines to one sink, one batch at a time, never two at once.
import { GENESIS_HASH } from "./record.js";

/** The end of the chain a log continues from. */
export interface AuditChainHead {
  /** The last record's seq (0 for a fresh log). */
  readonly seq: number;
  /** The hex SHA-256 of the last record's line (GENESIS_HASH for a fresh log). */
  readonly hash: string;
}

/** An incomplete last line found when a file log was opened (a write cut off by a crash). */
export interface TornLineReport {
  /** The file that ended in the torn line. */
  readonly file: string;
  /** Its 1-based line number. */
  readonly line: number;
  /** How many bytes the torn line had. */
  readonly bytes: number;
  /** Where those bytes were moved (beside the log, not matched by its file names). */
  readonly savedAs: string;
}

export interface AuditSinkOpening {
  readonly head: AuditChainHead;
  /** Set when a torn last line was moved aside (see file-sink.ts). */
  readonly torn: TornLineReport | null;
}

/** Leading files a sink's retention policy would delete, and where the kept log then starts. */
export interface AuditRetentionPlan {
  /** File names to delete, oldest first (always a leading run, never the file being written). */
  readonly files: readonly string[];
  /** Their total size. */
  readonly bytes: number;
  /** Why: "size", "age" or both ("size+age"). */
  readonly reason: string;
  /** The first record that stays: its file, seq and prev (what the retention record vouches for). */
  readonly firstKept: { readonly file: string; readonly seq: number; readonly prev: string };
}

export interface AuditSink {
  /** Prepare to write and say where the chain ends. Called once, before the first append. */
  open(): Promise<AuditSinkOpening>;
  /** Append complete lines (no "\n" in them), in order. Resolves once written per the sink's durability policy. */
  append(lines: readonly string[]): Promise<void>;
  /**
   * Optional retention: what to delete now, or null when nothing is due (cheap then: no I/O).
   * The log records the plan as an `audit.retention` record, then calls `removeRetained`.
   */
  retention?(): Promise<AuditRetentionPlan | null>;
  /** Delete the files of a plan the log has recorded. */
  removeRetained?(plan: AuditRetentionPlan): Promise<void>;
  /** Make everything appended durable (fsync, for a file sink). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export const FRESH_HEAD: AuditChainHead = Object.freeze({ seq: 0, hash: GENESIS_HASH });
