// The in-memory state of a job store: records by id, the pending ones in due order, ids by state,
// and de-duplication keys of pending jobs. Every change goes through `apply(event)`; the
// operations below build the event, apply it and hand it to `onEvent` (the file store's journal).
import { DueHeap } from "./job-heap.js";
import type { JobEvent } from "./job-events.js";
import { MAX_ERROR_HISTORY, type JobCounts, type JobRecord, type JobState } from "./job-record.js";

interface Slot {
  rec: JobRecord;
  /** Bumped each time the job becomes pending; heap entries with an older value are stale. */
  gen: number;
  /** What the record costs to keep once finished: its payload as JSON plus its error messages, in characters. */
  size: number;
}

export interface JobTableOptions {
  /** Succeeded jobs kept for status queries; older ones are forgotten first (default 1000). */
  keepSucceeded?: number;
  /** ... and at most this many characters of their payloads and errors (default 16 MiB). */
  maxSucceededBytes?: number;
  /** Dead letters kept; past it the oldest are evicted (default 1000). */
  keepDead?: number;
  /** ... and at most this many characters of their payloads and errors (default 16 MiB). */
  maxDeadBytes?: number;
}

export const DEFAULT_KEEP_SUCCEEDED = 1000;
export const DEFAULT_KEEP_DEAD = 1000;
export const DEFAULT_RETAINED_BYTES = 16 * 1024 * 1024;

/** What finished jobs a store keeps, against its caps, and how many it has evicted. */
export interface RetainedJobs {
  count: number;
  bytes: number;
  maxCount: number;
  maxBytes: number;
  /** Records evicted (oldest first) to stay within the caps, since the store opened. */
  evicted: number;
}

export interface JobRetention {
  succeeded: RetainedJobs;
  dead: RetainedJobs;
}

type RetainedState = "succeeded" | "dead";

function recordSize(rec: JobRecord): number {
  let size = 64 + rec.type.length + (rec.key?.length ?? 0);
  try {
    size += JSON.stringify(rec.payload)?.length ?? 0;
  } catch {
    // Payloads are JSON by construction (enqueue copies them through JSON).
  }
  for (const e of rec.errors) size += e.message.length + 32;
  return size;
}

function checkLimit(name: string, value: number): number {
  if (!(Number.isInteger(value) && value >= 0)) throw new RangeError(`${name} must be an integer >= 0`);
  return value;
}

export const INTERRUPTED_MESSAGE = "interrupted: the process stopped while the job was running";

export class JobTable {
  /** Receives every event applied through the operations (not through `apply`). */
  onEvent: ((event: JobEvent) => void) | null = null;

  private readonly slots = new Map<string, Slot>();
  private readonly byState: Record<JobState, Set<string>> = {
    pending: new Set(),
    running: new Set(),
    succeeded: new Set(),
    dead: new Set(),
  };
  private readonly keys = new Map<string, string>();
  private readonly heap = new DueHeap();
  private seq = 0;
  private readonly caps: Record<RetainedState, { maxCount: number; maxBytes: number }>;
  private readonly retainedBytes: Record<RetainedState, number> = { succeeded: 0, dead: 0 };
  private readonly evicted: Record<RetainedState, number> = { succeeded: 0, dead: 0 };

  constructor(options: JobTableOptions = {}) {
    this.caps = {
      succeeded: {
        maxCount: checkLimit("keepSucceeded", options.keepSucceeded ?? DEFAULT_KEEP_SUCCEEDED),
        maxBytes: checkLimit("maxSucceededBytes", options.maxSucceededBytes ?? DEFAULT_RETAINED_BYTES),
      },
      dead: {
        maxCount: checkLimit("keepDead", options.keepDead ?? DEFAULT_KEEP_DEAD),
        maxBytes: checkLimit("maxDeadBytes", options.maxDeadBytes ?? DEFAULT_RETAINED_BYTES),
      },
    };
  }

  /** Finished jobs kept against their caps, and evictions so far. */
  retention(): JobRetention {
    const view = (state: RetainedState): RetainedJobs => ({
      count: this.byState[state].size,
      bytes: this.retainedBytes[state],
      maxCount: this.caps[state].maxCount,
      maxBytes: this.caps[state].maxBytes,
      evicted: this.evicted[state],
    });
    return { succeeded: view("succeeded"), dead: view("dead") };
  }

  // --- operations --------------------------------------------------------------------------------

  /** Insert a new pending job, unless a pending job has the same key: then its id is returned. */
  add(record: JobRecord): { id: string; created: boolean } {
    if (record.key !== null) {
      const existing = this.keys.get(record.key);
      if (existing !== undefined) return { id: existing, created: false };
    }
    this.commit({ e: "put", r: record });
    return { id: record.id, created: true };
  }

  /** Mark up to `limit` due pending jobs running (attempts + 1), earliest run-at first. */
  claim(now: number, limit: number): JobRecord[] {
    const out: JobRecord[] = [];
    while (out.length < limit) {
      const top = this.validTop();
      if (top === undefined || top.rec.runAt > now) break;
      this.heap.pop();
      this.commit({ e: "start", id: top.rec.id, at: now });
      out.push(top.rec);
    }
    return out;
  }

  complete(id: string, now: number): boolean {
    return this.inState(id, "running") && this.commit({ e: "done", id, at: now });
  }

  /** Record a failure; `next` is the retry time, or null to move the job to the dead-letter queue. */
  fail(id: string, now: number, message: string, next: number | null): boolean {
    return this.inState(id, "running") && this.commit({ e: "fail", id, at: now, err: message, next });
  }

  release(id: string, now: number): boolean {
    return this.inState(id, "running") && this.commit({ e: "rel", id, at: now });
  }

  retryDead(id: string, now: number): boolean {
    return this.inState(id, "dead") && this.commit({ e: "retry", id, at: now });
  }

  deleteDead(id: string): boolean {
    return this.inState(id, "dead") && this.commit({ e: "del", id });
  }

  /** After a restart: jobs that were running failed (the attempt counts); they run again at once, in their old place in line, or go dead if it was the last attempt. */
  recoverInterrupted(now: number): number {
    const ids = [...this.byState.running];
    for (const id of ids) {
      const rec = this.slots.get(id)!.rec;
      this.commit({ e: "fail", id, at: now, err: INTERRUPTED_MESSAGE, next: rec.attempts >= rec.maxAttempts ? null : Math.min(rec.runAt, now) });
    }
    return ids.length;
  }

  // --- queries -----------------------------------------------------------------------------------

  get(id: string): JobRecord | undefined {
    return this.slots.get(id)?.rec;
  }

  list(state: JobState, limit: number): JobRecord[] {
    const out: JobRecord[] = [];
    if (limit <= 0) return out;
    for (const id of this.byState[state]) {
      out.push(this.slots.get(id)!.rec);
      if (out.length >= limit) break;
    }
    return out;
  }

  counts(): JobCounts {
    return {
      pending: this.byState.pending.size,
      running: this.byState.running.size,
      succeeded: this.byState.succeeded.size,
      dead: this.byState.dead.size,
    };
  }

  /** Run-at of the earliest pending job, or null. */
  nextRunAt(): number | null {
    return this.validTop()?.rec.runAt ?? null;
  }

  /** Every record, for a compacted journal. */
  snapshot(): JobRecord[] {
    const out: JobRecord[] = [];
    for (const slot of this.slots.values()) out.push(slot.rec);
    return out;
  }

  // --- events ------------------------------------------------------------------------------------

  /** Apply one event; false when it does not fit the current state (ignored). */
  apply(ev: JobEvent): boolean {
    if (ev.e === "put") {
      const old = this.slots.get(ev.r.id);
      if (old !== undefined) this.leave(old);
      const slot: Slot = { rec: ev.r, gen: old === undefined ? 0 : old.gen, size: 0 };
      this.slots.set(ev.r.id, slot);
      this.enter(slot);
      return true;
    }
    const slot = this.slots.get(ev.id);
    if (slot === undefined) return false;
    const rec = slot.rec;
    switch (ev.e) {
      case "start":
        if (rec.state !== "pending") return false;
        this.moveTo(slot, "running");
        rec.attempts++;
        rec.updatedAt = ev.at;
        return true;
      case "done":
        if (rec.state !== "running") return false;
        rec.updatedAt = ev.at;
        this.moveTo(slot, "succeeded");
        this.trim("succeeded");
        return true;
      case "fail":
        if (rec.state !== "running") return false;
        rec.errors.push({ attempt: rec.attempts, at: ev.at, message: ev.err });
        if (rec.errors.length > MAX_ERROR_HISTORY) rec.errors.splice(0, rec.errors.length - MAX_ERROR_HISTORY);
        rec.updatedAt = ev.at;
        if (ev.next === null) {
          this.moveTo(slot, "dead");
          this.trim("dead");
        } else {
          rec.runAt = ev.next;
          this.moveTo(slot, "pending");
        }
        return true;
      case "rel":
        if (rec.state !== "running") return false;
        // It keeps its run-at time, and so its place in line.
        rec.attempts = Math.max(0, rec.attempts - 1);
        rec.updatedAt = ev.at;
        this.moveTo(slot, "pending");
        return true;
      case "retry":
        if (rec.state !== "dead") return false;
        rec.attempts = 0;
        rec.runAt = ev.at;
        rec.updatedAt = ev.at;
        this.moveTo(slot, "pending");
        return true;
      case "del":
        if (rec.state !== "dead") return false;
        this.leave(slot);
        this.slots.delete(rec.id);
        return true;
    }
  }

  private commit(ev: JobEvent): true {
    // The listener first: if it cannot record the event (a payload that is not JSON), nothing changes.
    this.onEvent?.(ev);
    this.apply(ev);
    return true;
  }

  private inState(id: string, state: JobState): boolean {
    return this.slots.get(id)?.rec.state === state;
  }

  private validTop(): Slot | undefined {
    for (;;) {
      const top = this.heap.peek();
      if (top === undefined) return undefined;
      const slot = this.slots.get(top.id);
      if (slot !== undefined && slot.rec.state === "pending" && slot.gen === top.gen && slot.rec.runAt === top.runAt) return slot;
      this.heap.pop();
    }
  }

  private moveTo(slot: Slot, state: JobState): void {
    this.leave(slot);
    slot.rec.state = state;
    this.enter(slot);
  }

  private leave(slot: Slot): void {
    const rec = slot.rec;
    this.byState[rec.state].delete(rec.id);
    if (rec.state === "succeeded" || rec.state === "dead") this.retainedBytes[rec.state] -= slot.size;
    if (rec.state === "pending" && rec.key !== null && this.keys.get(rec.key) === rec.id) this.keys.delete(rec.key);
  }

  private enter(slot: Slot): void {
    const rec = slot.rec;
    this.byState[rec.state].add(rec.id);
    if (rec.state === "succeeded" || rec.state === "dead") {
      slot.size = recordSize(rec); // with the error history it finished with
      this.retainedBytes[rec.state] += slot.size;
    }
    if (rec.state !== "pending") return;
    if (rec.key !== null && !this.keys.has(rec.key)) this.keys.set(rec.key, rec.id);
    slot.gen++;
    this.heap.push({ runAt: rec.runAt, createdAt: rec.createdAt, seq: this.seq++, id: rec.id, gen: slot.gen });
  }

  /** Evict the oldest records of `state` (by entry into it) until both caps hold. Deterministic, so a replayed journal evicts the same ones. */
  private trim(state: RetainedState): void {
    const ids = this.byState[state];
    const cap = this.caps[state];
    while (ids.size > cap.maxCount || (this.retainedBytes[state] > cap.maxBytes && ids.size > 0)) {
      const oldest = ids.values().next().value as string;
      const slot = this.slots.get(oldest)!;
      this.leave(slot);
      this.slots.delete(oldest);
      this.evicted[state]++;
    }
  }
}
