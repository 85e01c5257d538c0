// An audit sink that keeps its lines in memory: for tests, and for short-lived tools that read
// the records back with `lines()`.
import type { AuditSink, AuditSinkOpening } from "./sink.js";
import { FRESH_HEAD } from "./sink.js";

export interface MemoryAuditSink extends AuditSink {
  /** Every line appended so far, oldest first (a copy). */
  lines(): string[];
}

export function memoryAuditSink(): MemoryAuditSink {
  const lines: string[] = [];
  let closed = false;
  return {
    async open(): Promise<AuditSinkOpening> {
      return { head: FRESH_HEAD, torn: null };
    },
    async append(batch) {
      if (closed) throw new Error("audit: the memory sink is closed");
      for (const line of batch) lines.push(line);
    },
    async flush() {},
    async close() {
      closed = true;
    },
    lines: () => lines.slice(),
  };
}
