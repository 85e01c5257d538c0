// Verifying a file audit log: every file in order, every line, the whole chain.
// The first problem is reported with its file, 1-based line and the seq found there:
// - files: numbered from audit-000001.jsonl without gaps (a deleted file), and the log starts at
//   seq 1 chained to 64 zeros (deleted or renamed leading files);
// - a line without its "\n" at the end of the last file is a truncated line; one elsewhere, or
//   any line that is not a JSON record with an integer seq and a hash in prev, is reported as such;
// - seq must be the previous seq + 1: a jump is a deleted record, a step back a reordered or
//   duplicated one;
// - prev must be the SHA-256 of the previous line's exact bytes. When it is not, the previous
//   line is reported: it no longer hashes to what its successor committed to (it was modified;
//   a chain alone cannot tell that from an edit of the successor's prev, and the reason says so).
// What no chain can show on its own: the newest records removed or the last one edited. Keep the
// `head` (seq and hash of the last line) somewhere else and pass it as `anchor` later: the
// record with that seq must still hash to it.
//
// Retention (file-sink.ts) deletes leading files. A log whose first file is not audit-000001.jsonl
// is accepted only when a later record of the chain is an `audit.retention` record naming that
// first file and the seq and prev of its first line (written before the files were deleted).
// So deleting one more file, or the first records of the first kept file, or editing that first
// record's prev, leaves a start nothing vouches for, reported as deleted. Forging the vouching
// record means rewriting every record after it (each names the hash of the one before): the
// anchor kept elsewhere shows that.
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { auditFileName, listAuditFiles } from "./file-names.js";
import { GENESIS_HASH, lineHash, recordSeq } from "./record.js";
import type { AuditChainHead } from "./sink.js";

export interface AuditVerifyOk {
  readonly ok: true;
  /** Records checked. */
  readonly records: number;
  /** Files checked. */
  readonly files: number;
  /** seq and hash of the last record (seq 0 and 64 zeros for an empty log): keep it elsewhere to detect a cut-off tail later. */
  readonly head: AuditChainHead;
  /** seq of the first record kept (1, or later when retention deleted older files; 0 for an empty log). */
  readonly firstSeq: number;
}

export interface AuditVerifyProblem {
  readonly ok: false;
  /** The file name (in the log's directory). */
  readonly file: string;
  /** 1-based line number (0 when the problem is a missing file). */
  readonly line: number;
  /** The seq at that line, or null when it has none (not JSON, truncated, missing file). */
  readonly seq: number | null;
  readonly reason: string;
}

export type AuditVerifyResult = AuditVerifyOk | AuditVerifyProblem;

export interface AuditVerifyOptions {
  /** A head recorded earlier: the record with this seq must exist and hash to `hash`. */
  anchor?: AuditChainHead;
}

const NEWLINE = 0x0a;

interface PreviousLine {
  readonly file: string;
  readonly line: number;
  readonly seq: number;
  readonly hash: string;
}

function nextLineEnd(bytes: Buffer, start: number): number {
  const end = bytes.indexOf(NEWLINE, start);
  return end === -1 ? bytes.length : end;
}

async function firstLineOf(dir: string, name: string | undefined): Promise<Buffer | null> {
  if (name === undefined) return null;
  const bytes = await readFile(join(dir, name));
  return bytes.length === 0 ? null : bytes.subarray(0, nextLineEnd(bytes, 0));
}

/** The `prev` of a line, or null when it has none. */
function prevOf(line: Buffer): string | null {
  try {
    const value: unknown = JSON.parse(line.toString("utf8"));
    const prev = typeof value === "object" && value !== null ? (value as { prev?: unknown }).prev : undefined;
    return typeof prev === "string" ? prev : null;
  } catch {
    return null;
  }
}

/** Checks the log in `dir`. Throws only when the directory cannot be read. */
export async function verifyAuditLog(dir: string, options: AuditVerifyOptions = {}): Promise<AuditVerifyResult> {
  if (!(await stat(dir)).isDirectory()) throw new Error(`audit: ${dir} is not a directory`);
  const files = await listAuditFiles(dir);
  const problem = (file: string, line: number, seq: number | null, reason: string): AuditVerifyProblem => ({ ok: false, file, line, seq, reason });
  const anchor = options.anchor;
  let anchorSeen = false;
  let prev: PreviousLine | null = null;
  let records = 0;
  // A log whose first file is not number 1 was cut by retention, or tampered with: its first
  // record is taken on trust until a retention record vouches for it (checked at the end).
  const firstIndex = files[0]?.index ?? 1;
  let origin: { file: string; seq: number; prev: string } | null = null;
  let vouched = firstIndex === 1;
  let firstSeq = 0;

  for (let f = 0; f < files.length; f++) {
    const { name, index } = files[f]!;
    if (index !== firstIndex + f) {
      const missing = auditFileName(firstIndex + f);
      return problem(name, 0, null, `${missing} is missing (the log's files are numbered without gaps): a file was deleted or renamed`);
    }
    const bytes = await readFile(join(dir, name));
    const isLastFile = f === files.length - 1;
    let start = 0;
    let lineNo = 0;
    while (start < bytes.length) {
      lineNo++;
      const end = bytes.indexOf(NEWLINE, start);
      const lineBytes = bytes.subarray(start, end === -1 ? bytes.length : end);
      start = end === -1 ? bytes.length : end + 1;
      if (end === -1) {
        return problem(name, lineNo, null, isLastFile ? "truncated line: the last line has no line end (a write cut off, or the file was cut)" : "truncated line: the file's last line has no line end, and later files follow");
      }
      let value: unknown;
      try {
        value = JSON.parse(lineBytes.toString("utf8"));
      } catch {
        return problem(name, lineNo, null, "not JSON: the line is not a JSON record");
      }
      const seq = recordSeq(value);
      if (seq === null) return problem(name, lineNo, null, "not a record: the line lacks an integer seq or a SHA-256 prev");
      const prevHash = (value as { prev: string }).prev;
      if (prev === null && firstIndex !== 1) origin = { file: name, seq, prev: prevHash };
      const expected: number = prev === null ? (origin !== null ? seq : 1) : prev.seq + 1;
      if (seq !== expected) {
        const reason =
          seq > expected
            ? `seq gap: expected ${expected}, found ${seq} (${seq - expected === 1 ? "a record was" : `${seq - expected} records were`} deleted${prev === null ? ", or the log's first file" : ""})`
            : `seq out of order: expected ${expected}, found ${seq} (records or files reordered or duplicated)`;
        return problem(name, lineNo, seq, reason);
      }
      const expectedPrev = prev === null ? (origin !== null ? prevHash : GENESIS_HASH) : prev.hash;
      if (prevHash !== expectedPrev) {
        if (prev === null) return problem(name, lineNo, seq, "chain break: the first record does not chain to the start of a log (64 zeros)");
        // Which of the two was edited? If this line is intact, its successor still chains to it.
        const next = end + 1 < bytes.length ? bytes.subarray(end + 1, nextLineEnd(bytes, end + 1)) : await firstLineOf(dir, files[f + 1]?.name);
        const nextPrev = next === null ? null : prevOf(next);
        if (nextPrev !== null && nextPrev !== lineHash(lineBytes)) {
          return problem(name, lineNo, seq, "hash mismatch: neither this record's prev nor its successor's prev fits (the record was modified)");
        }
        const where = prev.file === name ? `line ${lineNo}` : `${name} line ${lineNo}`;
        return problem(prev.file, prev.line, prev.seq, `hash mismatch: the record does not hash to the prev that seq ${seq} (${where}) recorded for it (the record was modified)`);
      }
      const hash = lineHash(lineBytes);
      if (anchor !== undefined && seq === anchor.seq) {
        if (hash !== anchor.hash) return problem(name, lineNo, seq, "hash mismatch: the record no longer hashes to the anchored head (the record was modified)");
        anchorSeen = true;
      }
      if (origin !== null && !vouched && vouches(value, origin)) vouched = true;
      if (prev === null) firstSeq = seq;
      prev = { file: name, line: lineNo, seq, hash };
      records++;
    }
  }
  if (!vouched) {
    const first = files[0]!;
    const where = origin === null ? "" : ` (it starts at seq ${origin.seq})`;
    return problem(
      first.name,
      0,
      origin?.seq ?? null,
      `${auditFileName(1)} is missing and no audit.retention record vouches for where the log now starts${where}: files or records were deleted outside retention`,
    );
  }
  if (anchor !== undefined && anchor.seq > 0 && !anchorSeen && anchor.seq < firstSeq) {
    return problem(files[0]!.name, 0, null, `anchor not checkable: seq ${anchor.seq} was deleted by retention (the log now starts at seq ${firstSeq}); keep anchors newer than the retention window`);
  }
  if (anchor !== undefined && anchor.seq > 0 && !anchorSeen) {
    const last = files[files.length - 1];
    return problem(last?.name ?? auditFileName(1), prev?.line ?? 0, prev?.seq ?? null, `records missing: the anchored seq ${anchor.seq} is past the end of the log (its tail was removed)`);
  }
  return { ok: true, records, files: files.length, head: prev === null ? { seq: 0, hash: GENESIS_HASH } : { seq: prev.seq, hash: prev.hash }, firstSeq };
}

/** True when `value` is an audit.retention record naming `start` as the first record kept. */
function vouches(value: unknown, start: { file: string; seq: number; prev: string }): boolean {
  const r = value as { action?: unknown; metadata?: { first_kept_file?: unknown; first_kept_seq?: unknown; first_kept_prev?: unknown } | null };
  const m = r.metadata;
  return r.action === "audit.retention" && typeof m === "object" && m !== null && m.first_kept_file === start.file && m.first_kept_seq === start.seq && m.first_kept_prev === start.prev;
}
