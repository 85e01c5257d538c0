// Recordings in a JSON-lines file: one record per line, appended as they come, so a restart
// finds them again. Deletions append a tombstone line (`{"deleted":"<id>"}`).
//
// Retention keeps the newest records within `maxAgeMs`, `maxRecords` and `maxBytes` (bytes of
// the live records' lines). Records dropped by retention or deletion leave dead lines in the
// file; when the dead bytes outgrow the live ones the file is compacted: the live records are
// written to `<path>.tmp`, which is renamed over the file (a crash leaves either the old or the
// new file, never a half-written one). So the file stays under about twice `maxBytes`, and each
// byte is rewritten a bounded number of times (compaction is amortised O(1) per save).
//
// The live records are also held in memory (bounded by the same limits): `list` and `get` never
// read the disk. One process per file: two processes appending to the same file would each
// compact away the other's records.
import { appendFile, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { ReplayListFilter, ReplayRecord } from "./record.js";
import { selectRecords, type ReplayStore } from "./store.js";

export interface FileReplayStoreOptions {
  /** The JSONL file (created with its directory when missing). */
  path: string;
  /** Records older than this are dropped (default one hour). */
  maxAgeMs?: number;
  /** Most records kept (default 10 000). */
  maxRecords?: number;
  /** Most bytes of live records (default 16 MiB). */
  maxBytes?: number;
  /** Clock, ms since the epoch (default Date.now); for tests. */
  now?: () => number;
}

export const DEFAULT_FILE_MAX_AGE_MS = 60 * 60 * 1000;
export const DEFAULT_FILE_MAX_RECORDS = 10_000;
export const DEFAULT_FILE_MAX_BYTES = 16 * 1024 * 1024;

interface Entry {
  record: ReplayRecord;
  time: number;
  bytes: number;
}

function isRecord(value: unknown): value is ReplayRecord {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return typeof v["id"] === "string" && typeof v["recorded_at"] === "string" && typeof v["request"] === "object" && v["request"] !== null && typeof v["response"] === "object" && v["response"] !== null && typeof v["meta"] === "object" && v["meta"] !== null;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!(typeof v === "number" && v > 0)) throw new TypeError(`FileReplayStore: ${name} must be a positive number`);
  return v;
}

export class FileReplayStore implements ReplayStore {
  readonly path: string;
  readonly maxAgeMs: number;
  readonly maxRecords: number;
  readonly maxBytes: number;
  private readonly now: () => number;
  /** Live records by id, oldest first. */
  private readonly entries = new Map<string, Entry>();
  private liveBytes = 0;
  private fileBytes = 0;
  private loaded = false;
  /** Every operation runs after the previous one: one writer, reads see earlier writes. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: FileReplayStoreOptions) {
    if (typeof options.path !== "string" || options.path === "") throw new TypeError("FileReplayStore: path is required");
    this.path = options.path;
    this.maxAgeMs = positive(options.maxAgeMs, DEFAULT_FILE_MAX_AGE_MS, "maxAgeMs");
    this.maxRecords = positive(options.maxRecords, DEFAULT_FILE_MAX_RECORDS, "maxRecords");
    this.maxBytes = positive(options.maxBytes, DEFAULT_FILE_MAX_BYTES, "maxBytes");
    this.now = options.now ?? Date.now;
  }

  save(record: ReplayRecord): Promise<void> {
    return this.run(async () => {
      const line = JSON.stringify(record) + "\n";
      const bytes = Buffer.byteLength(line);
      await appendFile(this.path, line);
      this.fileBytes += bytes;
      const previous = this.entries.get(record.id);
      if (previous !== undefined) this.drop(record.id, previous);
      this.entries.set(record.id, { record, time: Date.parse(record.recorded_at), bytes });
      this.liveBytes += bytes;
      this.applyRetention();
      await this.compactIfWasteful();
    });
  }

  list(filter?: ReplayListFilter): Promise<ReplayRecord[]> {
    return this.run(async () => {
      this.applyRetention();
      return selectRecords([...this.entries.values()].map((e) => e.record), filter);
    });
  }

  get(id: string): Promise<ReplayRecord | null> {
    return this.run(async () => {
      this.applyRetention();
      return this.entries.get(id)?.record ?? null;
    });
  }

  delete(id: string): Promise<boolean> {
    return this.run(async () => {
      const entry = this.entries.get(id);
      if (entry === undefined) return false;
      const tombstone = JSON.stringify({ deleted: id }) + "\n";
      await appendFile(this.path, tombstone);
      this.fileBytes += Buffer.byteLength(tombstone);
      this.drop(id, entry);
      await this.compactIfWasteful();
      return true;
    });
  }

  /** Bytes of the file as this store wrote it (for tests and monitoring). */
  get sizeOnDisk(): number {
    return this.fileBytes;
  }

  /** Wait for every queued operation (writes included) to finish. */
  async flush(): Promise<void> {
    await this.run(async () => undefined);
  }

  private run<T>(op: () => Promise<T>): Promise<T> {
    const result = this.queue.then(async () => {
      if (!this.loaded) await this.load();
      return op();
    });
    // A failed operation must not poison the ones queued after it.
    this.queue = result.catch(() => undefined);
    return result;
  }

  private drop(id: string, entry: Entry): void {
    this.entries.delete(id);
    this.liveBytes -= entry.bytes;
  }

  /** Drop the oldest records while any limit is exceeded. */
  private applyRetention(): void {
    const oldestAllowed = this.now() - this.maxAgeMs;
    for (const [id, entry] of this.entries) {
      const over = this.entries.size > this.maxRecords || this.liveBytes > this.maxBytes || !(entry.time >= oldestAllowed);
      if (!over) break;
      this.drop(id, entry);
    }
  }

  private async compactIfWasteful(): Promise<void> {
    if (this.fileBytes - this.liveBytes > this.liveBytes) await this.compact();
  }

  private async compact(): Promise<void> {
    let text = "";
    for (const entry of this.entries.values()) text += JSON.stringify(entry.record) + "\n";
    const tmp = this.path + ".tmp";
    await writeFile(tmp, text);
    await rename(tmp, this.path);
    this.fileBytes = Buffer.byteLength(text);
  }

  /**
   * Read the file: records in order, tombstones applied, unreadable lines (a line torn by a
   * crash) skipped. Anything skipped or expired makes the file be rewritten, so appends never
   * continue a torn line.
   */
  private async load(): Promise<void> {
    this.entries.clear();
    this.liveBytes = 0;
    await mkdir(dirname(this.path), { recursive: true });
    let text = "";
    try {
      text = await readFile(this.path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    let skipped = false;
    for (const line of text.split("\n")) {
      if (line === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        skipped = true;
        continue;
      }
      const deleted = (value as { deleted?: unknown } | null)?.deleted;
      if (typeof deleted === "string") {
        const entry = this.entries.get(deleted);
        if (entry !== undefined) this.drop(deleted, entry);
        continue;
      }
      if (!isRecord(value)) {
        skipped = true;
        continue;
      }
      const bytes = Buffer.byteLength(line) + 1;
      const previous = this.entries.get(value.id);
      if (previous !== undefined) this.drop(value.id, previous);
      this.entries.set(value.id, { record: value, time: Date.parse(value.recorded_at), bytes });
      this.liveBytes += bytes;
    }
    this.fileBytes = Buffer.byteLength(text);
    this.applyRetention();
    this.loaded = true;
    if (skipped || (text !== "" && !text.endsWith("\n"))) await this.compact();
    else await this.compactIfWasteful();
  }
}
