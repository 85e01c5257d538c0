// Prepared statements of one connection, by statement text, least recently used first out. The
// server keeps each one in the backend's memory until Close: an evicted name is handed back so
// the connection sends Close for it before its next Parse. Bounded by `size`.
// Recency is a counter stamped on each hit rather than Map order kept by delete + set: a hit runs
// on every statement, an eviction only after a miss (which costs a round trip anyway), so the
// eviction scans (at most `size` entries) and the hit does one lookup.
import type { Decoder } from "./decode.js";

export interface Column {
  readonly name: string;
  readonly decode: Decoder;
}

export interface Statement {
  readonly name: string;
  readonly parameterTypes: readonly number[];
  readonly columns: readonly Column[];
}

interface Entry {
  readonly statement: Statement;
  used: number;
}

export class StatementCache {
  readonly #size: number;
  readonly #byText = new Map<string, Entry>();
  #clock = 0;
  #next = 0;
  /** Statements evicted over the connection's life (a figure for stats()). */
  evictions = 0;

  constructor(size: number) {
    this.#size = size;
  }

  get size(): number {
    return this.#byText.size;
  }

  /** The statement for `text`, marked most recently used; undefined when not prepared. */
  get(text: string): Statement | undefined {
    const entry = this.#byText.get(text);
    if (entry === undefined) return undefined;
    entry.used = ++this.#clock;
    return entry.statement;
  }

  /** A fresh statement name. */
  nextName(): string {
    return `keel_${(this.#next++).toString(36)}`;
  }

  /** Adds a prepared statement; answers the names evicted to stay within the size (to Close). */
  add(text: string, statement: Statement): string[] {
    const evicted: string[] = [];
    this.#byText.set(text, { statement, used: ++this.#clock });
    while (this.#byText.size > this.#size) {
      let oldest: string | undefined;
      let oldestUsed = Infinity;
      for (const [key, entry] of this.#byText) {
        if (entry.used < oldestUsed) {
          oldest = key;
          oldestUsed = entry.used;
        }
      }
      const old = this.#byText.get(oldest!)!;
      this.#byText.delete(oldest!);
      evicted.push(old.statement.name);
      this.evictions++;
    }
    return evicted;
  }

  /** Forgets `text` (its plan went stale); answers the name to Close, if it was there. */
  remove(text: string): string | undefined {
    const entry = this.#byText.get(text);
    if (entry === undefined) return undefined;
    this.#byText.delete(text);
    return entry.statement.name;
  }
}
