// Where recordings live. Two implementations: MemoryReplayStore (bounded, oldest evicted) and
// FileReplayStore (JSON lines on disk with retention). Both answer `list` newest first.
import type { ReplayListFilter, ReplayRecord } from "./record.js";

export interface ReplayStore {
  /** Keep a record (the store may evict older ones to stay within its bounds). */
  save(record: ReplayRecord): Promise<void>;
  /** Records matching the filter, newest first. */
  list(filter?: ReplayListFilter): Promise<ReplayRecord[]>;
  get(id: string): Promise<ReplayRecord | null>;
  /** True when a record was deleted. */
  delete(id: string): Promise<boolean>;
}

/** The default and the ceiling of `limit` when listing. */
export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 1000;

/**
 * Apply a filter to records held oldest first (insertion order, as both stores keep them):
 * walks from the newest end and stops at the limit.
 */
export function selectRecords(oldestFirst: Iterable<ReplayRecord> | readonly ReplayRecord[], filter: ReplayListFilter = {}): ReplayRecord[] {
  const all = Array.isArray(oldestFirst) ? (oldestFirst as readonly ReplayRecord[]) : [...oldestFirst];
  const limit = Math.min(filter.limit ?? DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT);
  const since = filter.since === undefined ? null : filter.since.getTime();
  const out: ReplayRecord[] = [];
  for (let i = all.length - 1; i >= 0 && out.length < limit; i--) {
    const r = all[i]!;
    if (filter.route !== undefined && r.meta.route !== filter.route) continue;
    if (filter.status !== undefined && r.response.status !== filter.status) continue;
    if (since !== null && Date.parse(r.recorded_at) < since) continue;
    out.push(r);
  }
  return out;
}
