// A binary min-heap of (runAt, createdAt, sequence) -> job id: the pending jobs in the order they
// become due; among equal times the older job first, then first-in first-out. Entries are invalidated lazily: the table checks the
// generation number against the job's current one and drops stale entries when they surface.

export interface DueEntry {
  runAt: number;
  createdAt: number;
  seq: number;
  id: string;
  gen: number;
}

function before(a: DueEntry, b: DueEntry): boolean {
  if (a.runAt !== b.runAt) return a.runAt < b.runAt;
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt;
  return a.seq < b.seq;
}

export class DueHeap {
  private readonly items: DueEntry[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): DueEntry | undefined {
    return this.items[0];
  }

  push(entry: DueEntry): void {
    const items = this.items;
    items.push(entry);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent]!;
      if (!before(entry, p)) break;
      items[i] = p;
      i = parent;
    }
    items[i] = entry;
  }

  pop(): DueEntry | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    const n = items.length;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && before(items[r]!, items[l]!) ? r : l;
      const c = items[child]!;
      if (!before(c, last)) break;
      items[i] = c;
      i = child;
    }
    items[i] = last;
    return top;
  }
}
