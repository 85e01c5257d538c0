// The most frequent names (error types) in bounded memory: the Space-Saving algorithm
// (Metwally, Agrawal, El Abbadi, 2005). At most `capacity` names are kept. While no more than
// `capacity` distinct names have been seen, every count is exact. After that, a new name takes
// the place of the least counted one and inherits its count plus one: a count can then be too
// high by at most the count it inherited, never too low, and any name seen more than
// total/capacity times is guaranteed to be in the table.
// Error types come from a small fixed set in practice; the bound matters for error mappers
// that build types from data.

export interface NameCount {
  type: string;
  count: number;
}

export class TopCounts {
  private readonly names: string[] = [];
  private readonly counts: number[] = [];

  constructor(private readonly capacity: number) {}

  add(name: string): void {
    const names = this.names;
    const at = names.indexOf(name);
    if (at !== -1) {
      this.counts[at]!++;
      return;
    }
    if (names.length < this.capacity) {
      names.push(name);
      this.counts.push(1);
      return;
    }
    let min = 0;
    for (let i = 1; i < names.length; i++) if (this.counts[i]! < this.counts[min]!) min = i;
    names[min] = name;
    this.counts[min]!++;
  }

  /** Most counted first; equal counts by name. */
  entries(): NameCount[] {
    const out = this.names.map((type, i) => ({ type, count: this.counts[i]! }));
    return out.sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  }

  clear(): void {
    this.names.length = 0;
    this.counts.length = 0;
  }
}
