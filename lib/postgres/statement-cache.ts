// Prepared statements of one connection, by statement text, least recently used first out. The
// server keeps each one in the backend's memory until Close: an evicted name is handed back so
// the connection sends Close for it before its next Parse. Bounded by `size`.
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

export class StatementCache {
  readonly #size: number;
  readonly #byText = new Map<string, Statement>();
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
    const statement = this.#byText.get(text);
    if (statement !== undefined) {
      this.#byText.delete(text);
      this.#byText.set(text, statement);
    }
    return statement;
  }

  /** A fresh statement name. */
  nextName(): string {
    return `keel_${(this.#next++).toString(36)}`;
  }

  /** Adds a prepared statement; answers the names evicted to stay within the size (to Close). */
  add(text: string, statement: Statement): string[] {
    const evicted: string[] = [];
    this.#byText.set(text, statement);
    while (this.#byText.size > this.#size) {
      const [oldest, old] = this.#byText.entries().next().value as [string, Statement];
      this.#byText.delete(oldest);
      evicted.push(old.name);
      this.evictions++;
    }
    return evicted;
  }

  /** Forgets `text` (its plan went stale); answers the name to Close, if it was there. */
  remove(text: string): string | undefined {
    const statement = this.#byText.get(text);
    if (statement === undefined) return undefined;
    this.#byText.delete(text);
    return statement.name;
  }
}
