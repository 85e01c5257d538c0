// Audit lines appended to `audit-NNNNNN.jsonl` files in one directory.
// - Appends go through a handle opened with O_APPEND: every write lands at the end, whatever
//   else touched the file. One batch of lines for one file is one buffer, written whole.
// - Rotation by size: a line goes to a new file when the current one is not empty and the line
//   (with its "\n") would take it past `maxBytes`; a file of exactly `maxBytes` is allowed. The
//   log's chain does not restart: the new file's first record chains to the previous file's last.
// - Durability (`fsync`): "always" syncs every batch before `record()` resolves (concurrent
//   records share one sync); "flush" (default) syncs on `flush()`, at rotation and on close;
//   "never" leaves it to the OS. New files also sync the directory (unless "never"), so the
//   file's name survives a power cut along with its data.
// - Opening continues the chain from the last line of the newest file. A last line without its
//   "\n" is a write a crash cut off: its record was never acknowledged, so it is not chained over
//   and not left in the log to fail verification forever. Its bytes are moved to
//   `<file>.torn-<line>-<ms>` beside the log (kept as evidence, outside the log's names), the file
//   is truncated to its last complete line, and the opening reports it: the log then writes an
//   `audit.recovered` record naming the file, line and bytes as the next link of the chain.
// - A last complete line that is not a record (edited, or not written by this log) stops the
//   opening with an error: continuing would chain to something nobody can vouch for. Run
//   `audit verify <dir>` to find the problem.
// - Retention (`maxTotalBytes`, default 1 GiB; `maxAgeDays`, default none): the oldest files are
//   deleted while the log's files together exceed maxTotalBytes, or while their last write is
//   older than maxAgeDays; never the file being written. Checked after each batch (in memory, no
//   I/O unless something is due; age at most once an hour) and on opening. The log first appends an
//   `audit.retention` record naming the deleted files and the first kept record (file, seq, prev),
//   then deletes them: `audit verify` accepts a log that starts there only because a record in
//   the chain vouches for that start (see verify.ts). A crash between the two leaves the files,
//   deleted next time.
import { mkdir, open, readFile, stat, unlink, writeFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { auditFileName, listAuditFiles } from "./file-names.js";
import { lineHash, recordSeq } from "./record.js";
import type { AuditChainHead, AuditRetentionPlan, AuditSink, AuditSinkOpening, TornLineReport } from "./sink.js";
import { FRESH_HEAD } from "./sink.js";
import { lockAuditDirectory } from "./writer-lock.js";

export type AuditFsyncPolicy = "always" | "flush" | "never";

export interface FileAuditSinkOptions {
  /** The log's directory (created when missing). */
  dir: string;
  /** Rotate before a file would pass this many bytes (default 16 MiB). */
  maxBytes?: number;
  /** When to fsync (default "flush"; see the top of file-sink.ts). */
  fsync?: AuditFsyncPolicy;
  /** Delete the oldest files while all of them together exceed this (default 1 GiB; at least maxBytes). */
  maxTotalBytes?: number;
  /** Delete files whose last write is older than this many days (default: none, kept by size only). */
  maxAgeDays?: number;
}

export const DEFAULT_AUDIT_FILE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_AUDIT_TOTAL_BYTES = 1024 * 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;
const AGE_CHECK_MS = 60 * 60 * 1000;
const NEWLINE = 0x0a;

/** Thrown when an existing log cannot be continued safely. */
export class AuditLogOpenError extends Error {
  override readonly name = "AuditLogOpenError";
}

/** The last complete line of `bytes` (which ends with "\n" or is empty), or null. */
function lastLine(bytes: Buffer): { line: Buffer; number: number } | null {
  if (bytes.length === 0) return null;
  const end = bytes.length - 1; // the final "\n"
  const start = bytes.lastIndexOf(NEWLINE, end - 1) + 1;
  let number = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === NEWLINE) number++;
  return { line: bytes.subarray(start, end), number };
}

function countLines(bytes: Buffer, end: number): number {
  let n = 0;
  for (let i = 0; i < end; i++) if (bytes[i] === NEWLINE) n++;
  return n;
}

async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | null = null;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // Some platforms cannot open or sync a directory; the file's own sync still happened.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Audit log files `audit-NNNNNN.jsonl` in `dir`: one writer (a lock), rotation at `maxBytes`,
 * the oldest files deleted past `maxTotalBytes` (or `maxAgeDays`), vouched for in the chain.
 *
 * @example
 * const log = auditLog({ sink: fileAuditSink({ dir: "./audit", maxTotalBytes: 256 * 1024 * 1024 }) });
 * @see docs/features/audit.md
 */
export function fileAuditSink(options: FileAuditSinkOptions): AuditSink {
  const dir = options.dir;
  const maxBytes = options.maxBytes ?? DEFAULT_AUDIT_FILE_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new TypeError("fileAuditSink: maxBytes must be a positive integer");
  const maxTotalBytes = options.maxTotalBytes ?? Math.max(DEFAULT_AUDIT_TOTAL_BYTES, maxBytes);
  if (!Number.isSafeInteger(maxTotalBytes) || maxTotalBytes < maxBytes) throw new TypeError("fileAuditSink: maxTotalBytes must be an integer of at least maxBytes");
  const maxAgeDays = options.maxAgeDays;
  if (maxAgeDays !== undefined && !(typeof maxAgeDays === "number" && maxAgeDays > 0 && Number.isFinite(maxAgeDays))) throw new TypeError("fileAuditSink: maxAgeDays must be a positive number");
  const maxAgeMs = maxAgeDays === undefined ? null : maxAgeDays * DAY_MS;
  const policy = options.fsync ?? "flush";
  if (policy !== "always" && policy !== "flush" && policy !== "never") throw new TypeError(`fileAuditSink: fsync must be "always", "flush" or "never"`);

  let release: (() => Promise<void>) | null = null;
  let index = 1;
  let size = 0;
  let handle: FileHandle | null = null;
  let dirty = false;
  let closed = false;
  /** All the log's files together (kept in step with writes and deletions). */
  let totalBytes = 0;
  /** Size retention found nothing to delete while this file was the current one: wait for the next. */
  let sizeStuckAt = 0;
  let nextAgeCheck = 0;

  /** Move a torn last line aside and truncate the file to the line before it. */
  const setTornLineAside = async (name: string, bytes: Buffer, start: number): Promise<TornLineReport> => {
    const line = countLines(bytes, start) + 1;
    const savedAs = `${name}.torn-${line}-${Date.now()}`;
    await writeFile(join(dir, savedAs), bytes.subarray(start), { flag: "wx" });
    const file = await open(join(dir, name), "r+");
    try {
      await file.truncate(start);
      await file.sync();
    } finally {
      await file.close();
    }
    return { file: name, line, bytes: bytes.length - start, savedAs };
  };

  const headOf = (name: string, bytes: Buffer): AuditChainHead | null => {
    const last = lastLine(bytes);
    if (last === null) return null;
    let value: unknown;
    try {
      value = JSON.parse(last.line.toString("utf8"));
    } catch {
      value = undefined;
    }
    const seq = recordSeq(value);
    if (seq === null) throw new AuditLogOpenError(`audit: line ${last.number} of ${join(dir, name)} is not an audit record; the chain cannot be continued (run "audit verify ${dir}")`);
    return { seq, hash: lineHash(last.line) };
  };

  const openCurrent = async (): Promise<FileHandle> => {
    if (handle !== null) return handle;
    const path = join(dir, auditFileName(index));
    const created = size === 0 && (await stat(path).then(() => false, () => true));
    handle = await open(path, "a");
    if (created && policy !== "never") await syncDirectory(dir);
    return handle;
  };

  const finishCurrent = async (): Promise<void> => {
    if (handle === null) return;
    const h = handle;
    handle = null;
    try {
      if (dirty && policy !== "never") await h.sync();
      dirty = false;
    } finally {
      await h.close();
    }
  };

  const writeAll = async (h: FileHandle, buffer: Buffer): Promise<void> => {
    let offset = 0;
    while (offset < buffer.length) {
      const { bytesWritten } = await h.write(buffer, offset, buffer.length - offset);
      offset += bytesWritten;
    }
    size += buffer.length;
    totalBytes += buffer.length;
    dirty = true;
  };

  /** The seq and prev of a file's first line, or null (empty, or not a record). */
  const firstRecord = async (name: string): Promise<{ seq: number; prev: string } | null> => {
    const bytes = await readFile(join(dir, name));
    const end = bytes.indexOf(NEWLINE);
    if (end <= 0) return null;
    try {
      const value: unknown = JSON.parse(bytes.subarray(0, end).toString("utf8"));
      const seq = recordSeq(value);
      return seq === null ? null : { seq, prev: (value as { prev: string }).prev };
    } catch {
      return null;
    }
  };

  return {
    async open(): Promise<AuditSinkOpening> {
      await mkdir(dir, { recursive: true });
      release = await lockAuditDirectory(dir);
      try {
        const files = await listAuditFiles(dir);
        const newest = files[files.length - 1];
        if (newest === undefined) return { head: FRESH_HEAD, torn: null };
        index = newest.index;
        for (const f of files) totalBytes += (await stat(join(dir, f.name))).size;
        let bytes = await readFile(join(dir, newest.name));
        let torn: TornLineReport | null = null;
        if (bytes.length > 0 && bytes[bytes.length - 1] !== NEWLINE) {
          const start = bytes.lastIndexOf(NEWLINE) + 1;
          totalBytes -= bytes.length - start;
          torn = await setTornLineAside(newest.name, bytes, start);
          bytes = bytes.subarray(0, start);
        }
        size = bytes.length;
        let head = headOf(newest.name, bytes);
        // An empty newest file (created, then a crash): the chain ends in an older one.
        for (let i = files.length - 2; head === null && i >= 0; i--) {
          const older = files[i]!;
          head = headOf(older.name, await readFile(join(dir, older.name)));
        }
        return { head: head ?? FRESH_HEAD, torn };
      } catch (err) {
        await release();
        release = null;
        throw err;
      }
    },

    async append(lines) {
      if (closed) throw new Error("audit: the file sink is closed");
      let i = 0;
      while (i < lines.length) {
        // Gather the lines that fit in the current file into one buffer.
        const parts: Buffer[] = [];
        let batchBytes = 0;
        for (; i < lines.length; i++) {
          const part = Buffer.from(lines[i]! + "\n", "utf8");
          const used = size + batchBytes;
          if (used > 0 && used + part.length > maxBytes) break;
          parts.push(part);
          batchBytes += part.length;
        }
        if (parts.length > 0) await writeAll(await openCurrent(), parts.length === 1 ? parts[0]! : Buffer.concat(parts, batchBytes));
        if (i < lines.length) {
          await finishCurrent();
          index++;
          size = 0;
        }
      }
      if (policy === "always" && handle !== null && dirty) {
        await handle.sync();
        dirty = false;
      }
    },

    async retention(): Promise<AuditRetentionPlan | null> {
      const now = Date.now();
      const sizeDue = totalBytes > maxTotalBytes && sizeStuckAt !== index;
      const ageDue = maxAgeMs !== null && now >= nextAgeCheck;
      if (!sizeDue && !ageDue) return null;
      if (ageDue) nextAgeCheck = now + Math.min(AGE_CHECK_MS, maxAgeMs);
      const files = await listAuditFiles(dir);
      const stats = await Promise.all(files.map((f) => stat(join(dir, f.name))));
      totalBytes = stats.reduce((n, st) => n + st.size, 0);
      const doomed: string[] = [];
      const reasons = new Set<string>();
      let removed = 0;
      // A leading run only, and never the file being written (nor anything after it).
      for (let i = 0; i < files.length && files[i]!.index < index; i++) {
        const st = stats[i]!;
        const tooBig = totalBytes - removed > maxTotalBytes;
        const tooOld = maxAgeMs !== null && now - st.mtimeMs > maxAgeMs;
        if (!tooBig && !tooOld) break;
        if (tooBig) reasons.add("size");
        if (tooOld) reasons.add("age");
        doomed.push(files[i]!.name);
        removed += st.size;
      }
      const kept = files[doomed.length];
      if (totalBytes - removed > maxTotalBytes) sizeStuckAt = index;
      if (doomed.length === 0 || kept === undefined) return null;
      const first = await firstRecord(kept.name);
      // Nothing to vouch for (an empty newest file after a crash): wait until it has a record.
      if (first === null) return null;
      return { files: doomed, bytes: removed, reason: [...reasons].join("+"), firstKept: { file: kept.name, ...first } };
    },

    async removeRetained(plan) {
      for (const name of plan.files) {
        const st = await stat(join(dir, name)).catch(() => null);
        await unlink(join(dir, name)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== "ENOENT") throw err;
        });
        if (st !== null) totalBytes -= st.size;
      }
      if (policy !== "never") await syncDirectory(dir);
    },

    async flush() {
      if (handle !== null && dirty && policy !== "never") {
        await handle.sync();
        dirty = false;
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      try {
        await finishCurrent();
      } finally {
        await release?.();
        release = null;
      }
    },
  };
}
