// A durable store: the in-memory table plus an append-only journal in a directory.
//
// Every change is one journal line (journal-codec.ts). Lines written in the same tick go out in
// one write (group commit); with fsync "always" the batch is fsynced before anyone waiting on it
// is answered, so an acknowledged enqueue survives a crash of the process or of the machine.
// On open the journal is replayed (a torn last line is dropped), jobs that were running are put
// back (at-least-once), and the journal is rewritten as a snapshot of the live jobs. It is
// compacted the same way when it grows past `compactBytes` and twice its last snapshot.
import { mkdir, open, readFile, rename, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { createJsonLogger, type Logger } from "../index.js";
import { LOG_LEVELS } from "../plugin.js";
import { lockStoreDirectory } from "./dir-lock.js";
import { encodeJournalLine, readJournal } from "./journal-codec.js";
import type { JobCounts, JobRecord, JobState } from "./job-record.js";
import type { JobStore } from "./job-store.js";
import { JobTable, type JobRetention, type JobTableOptions } from "./job-table.js";

/** always: fsync every batch before acknowledging it; interval: every fsyncIntervalMs; never: leave it to the OS. */
export type FsyncPolicy = "always" | "interval" | "never";

export interface FileJobStoreOptions extends JobTableOptions {
  /** Directory for `journal.log` and `lock` (created if missing). */
  dir: string;
  /** Default "always". "interval" and "never" still survive a killed process (the OS has the bytes), not a power cut. */
  fsync?: FsyncPolicy;
  /** For fsync "interval" (default 1000). */
  fsyncIntervalMs?: number;
  /** Compact once the journal is larger than this many bytes, and twice its last snapshot (default 16 MiB). */
  compactBytes?: number;
  /** Recovery notes (torn tail, damaged lines, interrupted jobs) and write failures. */
  logger?: Logger;
}

export interface JournalRecovery {
  /** Events replayed from the journal. */
  events: number;
  /** Bytes of a torn last line that were dropped. */
  tornBytes: number;
  /** Damaged lines skipped in the middle of the journal. */
  corruptLines: number;
  /** Jobs that were running when the previous process stopped (retried, or dead if that was their last attempt). */
  interrupted: number;
}

export const DEFAULT_COMPACT_BYTES = 16 * 1024 * 1024;
export const JOURNAL_FILE = "journal.log";

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // waiters get the rejection; nobody waiting is not an unhandled one
  return { promise, resolve, reject };
}

async function writeFully(fh: FileHandle, buf: Buffer): Promise<void> {
  let offset = 0;
  while (offset < buf.length) {
    const { bytesWritten } = await fh.write(buf, offset, buf.length - offset);
    offset += bytesWritten;
  }
}

async function fsyncDirectory(dir: string): Promise<void> {
  try {
    const d = await open(dir, "r");
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  }
}

export class FileJobStore implements JobStore {
  failure: Error | null = null;
  /** What the last `open` found. */
  recovery: JournalRecovery | null = null;

  private readonly dir: string;
  private readonly journalPath: string;
  private readonly fsyncPolicy: FsyncPolicy;
  private readonly fsyncIntervalMs: number;
  private readonly compactBytes: number;
  private readonly logger: Logger;
  private readonly table: JobTable;
  private fh: FileHandle | null = null;
  private unlock: (() => Promise<void>) | null = null;
  private state: "new" | "open" | "closed" = "new";
  /** Lines not yet handed to a write, and the promise of the batch they will form. */
  private lines: string[] = [];
  private batch: Deferred | null = null;
  private flushing: Promise<void> | null = null;
  private journalBytes = 0;
  private snapshotBytes = 0;
  private dirty = false;
  private fsyncTimer: ReturnType<typeof setInterval> | null = null;

  constructor(options: FileJobStoreOptions) {
    if (typeof options.dir !== "string" || options.dir === "") throw new TypeError("FileJobStore: dir is required");
    this.dir = options.dir;
    this.journalPath = join(options.dir, JOURNAL_FILE);
    this.fsyncPolicy = options.fsync ?? "always";
    if (!["always", "interval", "never"].includes(this.fsyncPolicy)) throw new TypeError(`FileJobStore: unknown fsync policy ${String(this.fsyncPolicy)}`);
    this.fsyncIntervalMs = options.fsyncIntervalMs ?? 1000;
    if (!(this.fsyncIntervalMs > 0)) throw new RangeError("FileJobStore: fsyncIntervalMs must be positive");
    this.compactBytes = options.compactBytes ?? DEFAULT_COMPACT_BYTES;
    if (!(this.compactBytes > 0)) throw new RangeError("FileJobStore: compactBytes must be positive");
    this.logger = options.logger ?? createJsonLogger();
    this.table = new JobTable(options);
  }

  async open(now: number): Promise<void> {
    if (this.state !== "new") throw new Error("FileJobStore: open() may be called once");
    await mkdir(this.dir, { recursive: true });
    this.unlock = await lockStoreDirectory(this.dir);
    try {
      let buf: Buffer;
      try {
        buf = await readFile(this.journalPath);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        buf = Buffer.alloc(0);
      }
      const read = readJournal(buf);
      for (const ev of read.events) this.table.apply(ev);
      const interrupted = this.table.recoverInterrupted(now);
      this.recovery = { events: read.events.length, tornBytes: read.tornBytes, corruptLines: read.corruptLines, interrupted };
      if (read.tornBytes > 0 || read.corruptLines > 0) {
        this.log(LOG_LEVELS.warn, "job journal: dropped damaged data", { dir: this.dir, torn_bytes: read.tornBytes, corrupt_lines: read.corruptLines });
      }
      if (interrupted > 0) this.log(LOG_LEVELS.info, "job journal: jobs interrupted by the last shutdown will run again", { dir: this.dir, jobs: interrupted });
      await this.writeSnapshot();
      this.fh = await open(this.journalPath, "a");
    } catch (err) {
      await this.unlock().catch(() => undefined);
      this.unlock = null;
      throw err;
    }
    this.table.onEvent = (ev) => this.append(encodeJournalLine(ev));
    if (this.fsyncPolicy === "interval") {
      this.fsyncTimer = setInterval(() => void this.syncIfDirty(), this.fsyncIntervalMs);
      this.fsyncTimer.unref();
    }
    this.state = "open";
  }

  add(record: JobRecord): Promise<{ id: string; created: boolean }> {
    const guard = this.writable<{ id: string; created: boolean }>();
    if (guard !== null) return guard;
    const result = this.table.add(record);
    // A duplicate answers with the first job's id: wait until that job is on disk too.
    return (result.created ? this.written() : this.idle()).then(() => result);
  }

  claim(now: number, limit: number): Promise<JobRecord[]> {
    const guard = this.writable<JobRecord[]>();
    if (guard !== null) return guard;
    // Start events need not be awaited: if they are lost, the job is simply still pending.
    return Promise.resolve(this.table.claim(now, limit));
  }

  nextRunAt(): Promise<number | null> {
    return Promise.resolve(this.table.nextRunAt());
  }

  complete(id: string, now: number): Promise<boolean> {
    return this.change(() => this.table.complete(id, now));
  }

  fail(id: string, now: number, message: string, retryAt: number | null): Promise<boolean> {
    return this.change(() => this.table.fail(id, now, message, retryAt));
  }

  release(id: string, now: number): Promise<boolean> {
    return this.change(() => this.table.release(id, now));
  }

  retryDead(id: string, now: number): Promise<boolean> {
    return this.change(() => this.table.retryDead(id, now));
  }

  deleteDead(id: string): Promise<boolean> {
    return this.change(() => this.table.deleteDead(id));
  }

  get(id: string): Promise<JobRecord | undefined> {
    return Promise.resolve(this.table.get(id));
  }

  list(state: JobState, limit: number): Promise<JobRecord[]> {
    return Promise.resolve(this.table.list(state, limit));
  }

  retention(): JobRetention {
    return this.table.retention();
  }

  counts(): Promise<JobCounts> {
    return Promise.resolve(this.table.counts());
  }

  /** Current journal size in bytes (what compaction watches). */
  get journalSize(): number {
    return this.journalBytes;
  }

  async close(): Promise<void> {
    if (this.state !== "open") {
      this.state = "closed";
      return;
    }
    this.state = "closed";
    await this.idle();
    this.table.onEvent = null;
    if (this.fsyncTimer !== null) clearInterval(this.fsyncTimer);
    const fh = this.fh;
    this.fh = null;
    if (fh !== null) {
      if (this.failure === null) await fh.datasync().catch(() => undefined);
      await fh.close().catch(() => undefined);
    }
    if (this.unlock !== null) await this.unlock();
    this.unlock = null;
  }

  // --- journal writing ---------------------------------------------------------------------------

  private writable<T>(): Promise<T> | null {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.state !== "open") return Promise.reject(new Error(`FileJobStore is ${this.state === "new" ? "not open" : "closed"}`));
    return null;
  }

  private change(op: () => boolean): Promise<boolean> {
    const guard = this.writable<boolean>();
    if (guard !== null) return guard;
    return op() ? this.written().then(() => true) : Promise.resolve(false);
  }

  private append(line: string): void {
    this.lines.push(line);
    if (this.flushing === null) this.flushing = Promise.resolve().then(() => this.flushLoop());
  }

  /** Resolves when everything appended so far is written (and fsynced, with "always"). */
  private written(): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.lines.length === 0) return this.idle();
    return (this.batch ??= deferred()).promise;
  }

  /** Resolves when no write is in progress or queued. */
  private async idle(): Promise<void> {
    while (this.flushing !== null) await this.flushing;
    if (this.failure !== null) throw this.failure;
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.lines.length > 0 && this.failure === null) {
        if (this.journalBytes > this.compactBytes && this.journalBytes > 2 * this.snapshotBytes) {
          await this.compact();
          continue;
        }
        const lines = this.lines;
        const batch = this.batch;
        this.lines = [];
        this.batch = null;
        try {
          const buf = Buffer.from(lines.join(""), "utf8");
          await writeFully(this.fh!, buf);
          this.journalBytes += buf.length;
          if (this.fsyncPolicy === "always") await this.fh!.datasync();
          else this.dirty = true;
          batch?.resolve();
        } catch (err) {
          this.broken(err, batch);
        }
      }
      if (this.failure !== null) this.broken(this.failure, null);
    } finally {
      this.flushing = null;
    }
  }

  /** The table already holds the effect of every buffered line: write it out instead of them. */
  private async compact(): Promise<void> {
    const batch = this.batch;
    this.lines = [];
    this.batch = null;
    try {
      const old = this.fh!;
      await this.writeSnapshot();
      this.fh = await open(this.journalPath, "a");
      await old.close().catch(() => undefined);
      batch?.resolve();
    } catch (err) {
      this.broken(err, batch);
    }
  }

  /** Replace the journal with one `put` line per job: tmp file, fsync, rename, fsync the directory. */
  private async writeSnapshot(): Promise<void> {
    const text = this.table.snapshot().map((r) => encodeJournalLine({ e: "put", r })).join("");
    const buf = Buffer.from(text, "utf8");
    const tmp = this.journalPath + ".tmp";
    const fh = await open(tmp, "w");
    try {
      await writeFully(fh, buf);
      await fh.datasync();
    } finally {
      await fh.close();
    }
    await rename(tmp, this.journalPath);
    await fsyncDirectory(this.dir);
    this.journalBytes = buf.length;
    this.snapshotBytes = buf.length;
    this.dirty = false;
  }

  private async syncIfDirty(): Promise<void> {
    if (!this.dirty || this.fh === null || this.failure !== null) return;
    this.dirty = false;
    try {
      await this.fh.datasync();
    } catch (err) {
      this.broken(err, null);
    }
  }

  /** A write failed: refuse further writes (the table may now be ahead of the disk) and tell waiters. */
  private broken(err: unknown, batch: Deferred | null): void {
    const error = err instanceof Error ? err : new Error(String(err));
    if (this.failure === null) {
      this.failure = error;
      this.log(LOG_LEVELS.error, "job journal write failed; the store refuses further changes", { dir: this.dir, error: error.message });
    }
    batch?.reject(error);
    this.batch?.reject(error);
    this.batch = null;
    this.lines = [];
  }

  private log(level: number, msg: string, fields: Record<string, unknown>): void {
    if (level >= this.logger.level) this.logger.log(level, msg, fields);
  }
}
