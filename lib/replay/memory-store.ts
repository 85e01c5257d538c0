// In-memory recordings: a bounded count, the oldest evicted first. Lost on restart.
import type { ReplayListFilter, ReplayRecord } from "./record.js";
import { selectRecords, type ReplayStore } from "./store.js";

export interface MemoryReplayStoreOptions {
  /** Most records kept (default 500); saving one more evicts the oldest. */
  capacity?: number;
}

export const DEFAULT_MEMORY_CAPACITY = 500;

export class MemoryReplayStore implements ReplayStore {
  readonly capacity: number;
  /** id -> record, in insertion order (oldest first). */
  private readonly records = new Map<string, ReplayRecord>();

  constructor(options: MemoryReplayStoreOptions = {}) {
    const capacity = options.capacity ?? DEFAULT_MEMORY_CAPACITY;
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new TypeError("MemoryReplayStore: capacity must be a positive integer");
    this.capacity = capacity;
  }

  /** How many records are held. */
  get size(): number {
    return this.records.size;
  }

  save(record: ReplayRecord): Promise<void> {
    this.records.delete(record.id);
    this.records.set(record.id, record);
    while (this.records.size > this.capacity) {
      const oldest = this.records.keys().next().value as string;
      this.records.delete(oldest);
    }
    return Promise.resolve();
  }

  list(filter?: ReplayListFilter): Promise<ReplayRecord[]> {
    return Promise.resolve(selectRecords([...this.records.values()], filter));
  }

  get(id: string): Promise<ReplayRecord | null> {
    return Promise.resolve(this.records.get(id) ?? null);
  }

  delete(id: string): Promise<boolean> {
    return Promise.resolve(this.records.delete(id));
  }
}
