// Property test: decodeToon(encodeToon(v)) equals v for seeded random JSON values, for each delimiter.
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeToon, encodeToon, type ToonDelimiter } from "../../lib/toon/index.js";

/** mulberry32: small deterministic PRNG so failures are reproducible from the seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRING_PIECES = [
  "", " ", "  ", "a", "Ada", "hello world", ",", "|", "\t", ":", "\"", "\\", "#", "-", "- ", "[", "]", "{", "}", "[]",
  "true", "false", "null", "42", "-3.5", "1e5", "05", "+1", ".5", "\n", "\r", "\u0001", "\u001f", "\u007f", "\u00a0",
  "é", "你好", "🚀", "a.b", "[2]: x", "k: v", "x,y", "'", "=", "\\u0041", "/", "NaN",
];
const KEY_POOL = ["id", "name", "a", "b.c", "_x", "x-y", "", " sp ", "123", "#k", "-k", "k:1", "__proto__", "constructor", "prototype", "é", "[i]", "q\"", "t\tab"];
const NUMBERS = [0, -0, 1, -1, 42, 3.14, -2.5e-7, 1e21, -1e21, 1.5e300, 5e-324, 1e-6, 0.1 + 0.2, Number.MAX_SAFE_INTEGER, -123456789.125, 1e20, 123e-20];

class ValueGenerator {
  constructor(private readonly rnd: () => number) {}

  private int(n: number): number {
    return Math.floor(this.rnd() * n);
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  string(): string {
    let s = "";
    const parts = this.int(4);
    for (let i = 0; i < parts; i++) s += this.pick(STRING_PIECES);
    return s;
  }

  number(): number {
    if (this.rnd() < 0.5) return this.pick(NUMBERS);
    const magnitude = 10 ** (this.rnd() * 50 - 25);
    return this.rnd() < 0.3 ? Math.round(this.rnd() * 1e6) - 5e5 : (this.rnd() - 0.5) * magnitude;
  }

  primitive(): unknown {
    switch (this.int(5)) {
      case 0: return this.number();
      case 1: return this.rnd() < 0.5;
      case 2: return null;
      default: return this.string();
    }
  }

  /** Random subset of KEY_POOL in pool order, so equal key sets always share one order. */
  private keys(max: number): string[] {
    const out: string[] = [];
    for (const k of KEY_POOL) if (out.length < max && this.rnd() < 0.25) out.push(k);
    return out;
  }

  private object(depth: number): Record<string, unknown> {
    const o: Record<string, unknown> = {};
    for (const k of this.keys(5)) Object.defineProperty(o, k, { value: this.value(depth + 1), enumerable: true, writable: true, configurable: true });
    return o;
  }

  /** Uniform objects: triggers the tabular (§9.3) or keyed (§9.5) form, sometimes with nested field groups. */
  private uniformRows(count: number, depth: number): Record<string, unknown>[] {
    const keys = this.keys(4);
    if (keys.length === 0) keys.push("id");
    const nestedKey = depth < 3 && this.rnd() < 0.3 ? keys[0]! : undefined;
    const subKeys = ["lat", "lon"];
    const rows: Record<string, unknown>[] = [];
    for (let i = 0; i < count; i++) {
      const row: Record<string, unknown> = {};
      for (const k of keys) {
        const v = k === nestedKey ? Object.fromEntries(subKeys.map((s) => [s, this.primitive()])) : this.primitive();
        Object.defineProperty(row, k, { value: v, enumerable: true, writable: true, configurable: true });
      }
      rows.push(row);
    }
    return rows;
  }

  value(depth = 0): unknown {
    const choice = depth >= 4 ? 0 : this.int(7);
    switch (choice) {
      case 0: return this.primitive();
      case 1: return this.object(depth);
      case 2: return Array.from({ length: this.int(5) }, () => this.primitive());
      case 3: return Array.from({ length: this.int(4) }, () => this.value(depth + 1));
      case 4: return this.uniformRows(1 + this.int(4), depth);
      case 5: {
        const rows = this.uniformRows(2 + this.int(3), depth);
        const keyed: Record<string, unknown> = {};
        rows.forEach((row, i) => (keyed[`k${i}`] = row));
        return keyed;
      }
      default: return { data: this.value(depth + 1), list: [this.object(depth + 1), this.primitive()] };
    }
  }
}

/** JSON-model equality (§2): ordered keys, numbers by value so -0 equals 0; decoded numbers must never be -0. */
function assertJsonEqual(actual: unknown, expected: unknown, path: string): void {
  if (typeof expected === "number") {
    assert.equal(typeof actual, "number", path);
    assert.ok(actual === expected && !Object.is(actual, -0), `${path}: ${String(actual)} !== ${String(expected)}`);
    return;
  }
  if (expected === null || typeof expected !== "object") {
    assert.equal(actual, expected, path);
    return;
  }
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected array`);
    assert.equal(actual.length, expected.length, `${path}: length`);
    expected.forEach((v, i) => assertJsonEqual(actual[i], v, `${path}[${i}]`));
    return;
  }
  assert.ok(actual !== null && typeof actual === "object" && !Array.isArray(actual), `${path}: expected object`);
  assert.deepEqual(Object.keys(actual), Object.keys(expected), `${path}: keys`);
  for (const k of Object.keys(expected)) {
    assertJsonEqual((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${path}.${k}`);
  }
}

const VALUES_PER_DELIMITER = 1500;

for (const delimiter of [",", "\t", "|"] as const satisfies readonly ToonDelimiter[]) {
  test(`round-trip of ${VALUES_PER_DELIMITER} random values with delimiter ${JSON.stringify(delimiter)}`, () => {
    const seed = 0x70 + delimiter.charCodeAt(0);
    const rnd = prng(seed);
    const gen = new ValueGenerator(rnd);
    let tabular = 0;
    let keyed = 0;
    for (let i = 0; i < VALUES_PER_DELIMITER; i++) {
      const value = gen.value();
      const indentSize = 1 + Math.floor(rnd() * 4);
      const text = encodeToon(value, { delimiter, indentSize });
      if (/\]\{/.test(text)) tabular++;
      if (/:[\t|]?\]\{/.test(text)) keyed++;
      let decoded: unknown;
      try {
        decoded = decodeToon(text, { indentSize });
      } catch (err) {
        assert.fail(`seed ${seed} #${i}: decode failed: ${String(err)}\n${text}`);
      }
      assertJsonEqual(decoded, value, `seed ${seed} #${i} ${JSON.stringify(text)}`);
    }
    // The generator must actually exercise the tabular and keyed forms.
    assert.ok(tabular > VALUES_PER_DELIMITER / 10, `only ${tabular} tabular documents`);
    assert.ok(keyed > VALUES_PER_DELIMITER / 20, `only ${keyed} keyed documents`);
  });
}
