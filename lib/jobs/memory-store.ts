// The default store: everything in process memory. Fast, and gone when the process exits.
import type { JobStore } from "./job-store.js";
import type { JobCounts, JobRecord, JobState } from "./job-record.js";
import { JobTable, type JobRetention, type JobTableOptions } from "./job-table.js";

export type MemoryJobStoreOptions = JobTableOptions;

export class MemoryJobStore implements JobStore {
  readonly failure: Error | null = null;
  private readonly table: JobTable;

  constructor(options: MemoryJobStoreOptions = {}) {
    this.table = new JobTable(options);
  }

  open(): Promise<void> {
    return Promise.resolve();
  }
  add(record: JobRecord): Promise<{ id: string; created: boolean }> {
    return Promise.resolve(this.table.add(record));
  }
  claim(now: number, limit: number): Promise<JobRecord[]> {
    return Promise.resolve(this.table.claim(now, limit));
  }
  nextRunAt(): Promise<number | null> {
    return Promise.resolve(this.table.nextRunAt());
  }
  complete(id: string, now: number): Promise<boolean> {
    return Promise.resolve(this.table.complete(id, now));
  }
  fail(id: string, now: number, message: string, retryAt: number | null): Promise<boolean> {
    return Promise.resolve(this.table.fail(id, now, message, retryAt));
  }
  release(id: string, now: number): Promise<boolean> {
    return Promise.resolve(this.table.release(id, now));
  }
  get(id: string): Promise<JobRecord | undefined> {
    return Promise.resolve(this.table.get(id));
  }
  list(state: JobState, limit: number): Promise<JobRecord[]> {
    return Promise.resolve(this.table.list(state, limit));
  }
  counts(): Promise<JobCounts> {
    return Promise.resolve(this.table.counts());
  }
  retryDead(id: string, now: number): Promise<boolean> {
    return Promise.resolve(this.table.retryDead(id, now));
  }
  deleteDead(id: string): Promise<boolean> {
    return Promise.resolve(this.table.deleteDead(id));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  retention(): JobRetention {
    return this.table.retention();
  }
}
