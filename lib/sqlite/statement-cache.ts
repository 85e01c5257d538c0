// Prepared statements by text, least recently used first out: preparing is the costly part of a
// small query, and an app's statements are a small fixed set; a bound keeps generated text (an
// `in` list of varying length) from growing the cache without end.
import type { NativeStatement } from "./node-sqlite.js";

export class StatementCache {
  readonly #max: number;
  // A Map iterates in insertion order: re-inserting on a hit keeps the oldest first.
  readonly #map = new Map<string, NativeStatement>();
  #evictions = 0;

  constructor(max: number) {
    this.#max = max;
  }

  get(text: string, prepare: (text: string) => NativeStatement): NativeStatement {
    const hit = this.#map.get(text);
    if (hit !== undefined) {
      this.#map.delete(text);
      this.#map.set(text, hit);
      return hit;
    }
    const statement = prepare(text);
    if (this.#max === 0) return statement;
    if (this.#map.size >= this.#max) {
      // node:sqlite finalizes a statement when it is collected: dropping the reference is enough.
      this.#map.delete(this.#map.keys().next().value!);
      this.#evictions++;
    }
    this.#map.set(text, statement);
    return statement;
  }

  get size(): number {
    return this.#map.size;
  }

  get evictions(): number {
    return this.#evictions;
  }

  clear(): void {
    this.#map.clear();
  }
}
