// An audit sink that keeps its lines in memory: for tests, and for short-lived tools that read
// the records back with `lines()`. It keeps the newest `maxLines` (default 10,000): a stream of
// refused requests cannot grow it without bound. Durable, complete logs are the file sink's job.
import type { AuditSink, AuditSinkOpening } from "./sink.js";
import { FRESH_HEAD } from "./sink.js";

export interface MemoryAuditSink extends AuditSink {
  /** The lines kept (the newest `maxLines`), oldest first (a copy). */
  lines(): string[];
}

export interface MemoryAuditSinkOptions {
  /** Lines kept; older ones are dropped (default 10,000). */
  maxLines?: number;
}

export const DEFAULT_MEMORY_AUDIT_LINES = 10_000;

export function memoryAuditSink(options: MemoryAuditSinkOptions = {}): MemoryAuditSink {
  const maxLines = options.maxLines ?? DEFAULT_MEMORY_AUDIT_LINES;
  if (!Number.isSafeInteger(maxLines) || maxLines < 1) throw new TypeError(`memoryAuditSink: maxLines must be a positive integer, got ${String(maxLines)}`);
  let lines: string[] = [];
  let closed = false;
  return {
    async open(): Promise<AuditSinkOpening> {
      return { head: FRESH_HEAD, torn: null };
    },
    async append(batch) {
      if (closed) throw new Error("audit: the memory sink is closed");
      for (const line of batch) lines.push(line);
      // Trimmed in chunks, not one shift per line.
      if (lines.length > maxLines + (maxLines >> 3)) lines = lines.slice(lines.length - maxLines);
    },
    async flush() {},
    async close() {
      closed = true;
    },
    lines: () => (lines.length > maxLines ? lines.slice(lines.length - maxLines) : lines.slice()),
  };
}
