// The audit log: numbers records, chains them and hands them to one sink, one batch at a time.
// `record()` may be called from many requests at once: events join a queue in call order and a
// single writer drains it, so seq follows the order of the calls, without gaps, and each line's
// `prev` is the hash of the line written just before it. Events that arrive while a batch is
// being written go out together in the next batch (one write, one fsync under "always").
//
// A failed write leaves the file's end unknown (part of a batch may be on disk), so the log stops:
// that batch and every later `record()` reject with the error. Opening the log again (a restart)
// continues from what is really on disk, moving a torn line aside (see file-sink.ts).
//
// Retention (a sink with `retention()`, e.g. fileAuditSink's maxTotalBytes/maxAgeDays) runs after
// opening and after each batch: the plan is recorded as an `audit.retention` record (the next link
// of the chain, vouching for the first record kept), then the sink deletes the files. A failed
// deletion is reported (`onRetentionError`) and does not stop the log.
import { type AuditEvent, type AuditRecord, formatRecordLine, isAuditOutcome, lineHash } from "./record.js";
import { metadataRedactor } from "./redact.js";
import type { AuditChainHead, AuditRetentionPlan, AuditSink, TornLineReport } from "./sink.js";

export interface AuditLogOptions {
  sink: AuditSink;
  /** Time source for records (default `() => new Date()`). */
  clock?: () => Date;
  /** Extra metadata keys to redact, on top of the built-in credential names (see redact.ts). */
  redact?: readonly string[];
  /**
   * A line longer than this (UTF-8 bytes) has its metadata replaced by
   * `{ "truncated": true, "bytes": <original line length> }`: the event is still recorded (default 64 KiB).
   */
  maxRecordBytes?: number;
  /**
   * Called when opening found a torn last line (a crash cut a write off). The log has already
   * moved it aside and written an `audit.recovered` record; default: a process warning.
   */
  onTornLine?: (report: TornLineReport) => void;
  /** Called when retention could not plan or delete files (the log goes on); default: a process warning. */
  onRetentionError?: (err: unknown) => void;
}

export interface AuditLog {
  /** Append one event; resolves to the record as written (after the sink's durability policy). */
  record(event: AuditEvent): Promise<AuditRecord>;
  /** Wait until every record so far is written, then make it durable. */
  flush(): Promise<void>;
  /** Flush and close the sink; later `record()` calls reject. */
  close(): Promise<void>;
  /** Opens the sink now instead of on the first record (a startup check: a locked or broken log fails here). */
  open(): Promise<void>;
}

/** An action name: 1-128 printable ASCII characters without spaces. */
function checkAction(action: unknown): string {
  if (typeof action !== "string" || action.length === 0 || action.length > 128) throw new TypeError("audit: action must be a string of 1 to 128 characters");
  for (let i = 0; i < action.length; i++) {
    const c = action.charCodeAt(i);
    if (c <= 32 || c >= 127) throw new TypeError(`audit: action ${JSON.stringify(action)} must be printable ASCII without spaces`);
  }
  return action;
}

interface Pending {
  readonly event: AuditEvent;
  readonly time: string;
  readonly resolve: (record: AuditRecord) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * A tamper-evident log: records numbered without gaps and chained by SHA-256, written to `sink`.
 *
 * @example
 * const log = auditLog({ sink: fileAuditSink({ dir: "./audit" }) });
 * await log.record({ action: "user.delete", outcome: "success", target: "user:42" });
 * @see docs/features/audit.md
 */
export function auditLog(options: AuditLogOptions): AuditLog {
  const sink = options.sink;
  const clock = options.clock ?? (() => new Date());
  const redact = metadataRedactor(options.redact);
  const maxRecordBytes = options.maxRecordBytes ?? 64 * 1024;
  const onTornLine =
    options.onTornLine ??
    ((r: TornLineReport) => process.emitWarning(`audit: ${r.file} ended in a torn line ${r.line} (${r.bytes} bytes), moved to ${r.savedAs}`, { code: "KEEL_AUDIT_TORN_LINE" }));

  const onRetentionError =
    options.onRetentionError ??
    ((err: unknown) => process.emitWarning(`audit: retention failed: ${err instanceof Error ? err.message : String(err)}`, { code: "KEEL_AUDIT_RETENTION" }));

  let head: AuditChainHead | null = null;
  let opening: Promise<void> | null = null;
  let queue: Pending[] = [];
  let draining: Promise<void> | null = null;
  let failure: unknown = null;
  let closed = false;

  const toLine = (seq: number, prev: string, event: AuditEvent, time: string): { record: AuditRecord; line: string } => {
    const metadata = event.metadata == null ? null : redact(event.metadata);
    let record: AuditRecord = {
      seq,
      time,
      action: event.action,
      outcome: event.outcome,
      actor: event.actor == null ? null : { scheme: String(event.actor.scheme), id: event.actor.id == null ? null : String(event.actor.id) },
      target: event.target ?? null,
      request_id: event.requestId || null,
      route: event.route ?? null,
      method: event.method ?? null,
      client_address: event.clientAddress || null,
      metadata,
      prev,
    };
    let line = formatRecordLine(record);
    const bytes = Buffer.byteLength(line, "utf8");
    if (bytes > maxRecordBytes) {
      record = { ...record, metadata: { truncated: true, bytes } };
      line = formatRecordLine(record);
    }
    return { record, line };
  };

  /** Apply the sink's retention, if it has one and something is due. */
  const retain = async (): Promise<void> => {
    if (sink.retention === undefined || sink.removeRetained === undefined) return;
    let plan: AuditRetentionPlan | null;
    try {
      plan = await sink.retention();
    } catch (err) {
      onRetentionError(err);
      return;
    }
    if (plan === null) return;
    const { seq, hash } = head!;
    const metadata = {
      reason: plan.reason,
      deleted_files: plan.files.length,
      first_deleted: plan.files[0]!,
      last_deleted: plan.files[plan.files.length - 1]!,
      deleted_bytes: plan.bytes,
      first_kept_file: plan.firstKept.file,
      first_kept_seq: plan.firstKept.seq,
      first_kept_prev: plan.firstKept.prev,
    };
    const { record, line } = toLine(seq + 1, hash, { action: "audit.retention", outcome: "success", metadata }, clock().toISOString());
    await sink.append([line]); // a failure here is a write failure: the caller stops the log
    head = { seq: record.seq, hash: lineHash(line) };
    try {
      await sink.removeRetained(plan);
    } catch (err) {
      onRetentionError(err);
    }
  };

  const open = (): Promise<void> =>
    (opening ??= sink.open().then(async ({ head: found, torn }) => {
      head = found;
      if (torn !== null) {
        // The recovery is the next link of the chain, so a reader of the log sees it too.
        const { record, line } = toLine(found.seq + 1, found.hash, { action: "audit.recovered", outcome: "failure", metadata: { file: torn.file, line: torn.line, torn_bytes: torn.bytes, saved_as: torn.savedAs } }, clock().toISOString());
        await sink.append([line]);
        head = { seq: record.seq, hash: lineHash(line) };
        onTornLine(torn);
      }
      await retain();
    }));

  const writeBatch = async (batch: Pending[]): Promise<void> => {
    let { seq, hash } = head!;
    const lines: string[] = [];
    const records: AuditRecord[] = [];
    for (const p of batch) {
      const { record, line } = toLine(seq + 1, hash, p.event, p.time);
      seq = record.seq;
      hash = lineHash(line);
      lines.push(line);
      records.push(record);
    }
    await sink.append(lines);
    head = { seq, hash };
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(records[i]!);
  };

  const drain = async (): Promise<void> => {
    try {
      await open();
    } catch (err) {
      failure = err;
    }
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      if (failure !== null) {
        for (const p of batch) p.reject(failure);
        continue;
      }
      try {
        await writeBatch(batch);
      } catch (err) {
        failure = err;
        for (const p of batch) p.reject(err);
        continue;
      }
      try {
        await retain();
      } catch (err) {
        failure = err;
      }
    }
    draining = null;
  };

  const settled = async (): Promise<void> => {
    while (draining !== null) await draining;
  };

  return {
    record(event) {
      if (closed) return Promise.reject(new Error("audit: the log is closed"));
      let time: string;
      try {
        checkAction(event.action);
        if (!isAuditOutcome(event.outcome)) throw new TypeError(`audit: outcome must be "success", "failure" or "denied"`);
        time = (event.time ?? clock()).toISOString(); // an invalid Date throws here, not in the writer
      } catch (err) {
        return Promise.reject(err);
      }
      if (failure !== null) return Promise.reject(failure);
      return new Promise<AuditRecord>((resolve, reject) => {
        queue.push({ event, time, resolve, reject });
        draining ??= drain();
      });
    },
    async flush() {
      await settled();
      if (failure !== null) throw failure;
      if (opening !== null) await sink.flush();
    },
    async close() {
      if (closed) return;
      closed = true;
      await settled();
      if (opening !== null) await opening.catch(() => undefined);
      await sink.close();
    },
    async open() {
      await open();
    },
  };
}
