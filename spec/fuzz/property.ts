// A small seeded property runner (no dependency): a fast PRNG, generators, greedy shrinking.
// Each fuzzer runs for KEEL_FUZZ_MS milliseconds (default 1500, so `npm test` stays quick;
// `node scripts/fuzz.mjs --seconds 60` gives the fuzzers a minute together). KEEL_FUZZ_SEED
// replays a run. A failure prints the seed, the case number and the smallest failing input found.

/** sfc32: a small, fast, well-mixed 32-bit generator; the same seed gives the same stream. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A uint32. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor((this.next() / 4294967296) * n);
  }

  /** An integer in [min, max]. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() / 4294967296 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A string of `length` characters drawn from `alphabet` (code points). */
  string(alphabet: readonly string[], maxLength: number): string {
    let s = "";
    const n = this.int(maxLength + 1);
    for (let i = 0; i < n; i++) s += this.pick(alphabet);
    return s;
  }
}

export function fuzzBudgetMs(): number {
  const v = Number(process.env["KEEL_FUZZ_MS"]);
  return Number.isFinite(v) && v > 0 ? v : 1500;
}

export function fuzzSeed(): number {
  const v = process.env["KEEL_FUZZ_SEED"];
  if (v !== undefined && v !== "") return Number(v) >>> 0;
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}

/** Smaller variants of a value, most aggressive first (strings and arrays shrink; others do not). */
export function shrinkCandidates(value: unknown): unknown[] {
  if (typeof value === "string") {
    const out: string[] = [];
    for (let size = Math.floor(value.length / 2); size >= 1; size = Math.floor(size / 2)) {
      for (let i = 0; i + size <= value.length; i += size) out.push(value.slice(0, i) + value.slice(i + size));
    }
    return out;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) out.push([...value.slice(0, i), ...value.slice(i + 1)]);
    for (let i = 0; i < value.length; i++) for (const smaller of shrinkCandidates(value[i]).slice(0, 8)) out.push([...value.slice(0, i), smaller, ...value.slice(i + 1)]);
    return out;
  }
  if (value !== null && typeof value === "object") {
    const out: unknown[] = [];
    const entries = Object.entries(value as Record<string, unknown>);
    for (let i = 0; i < entries.length; i++) out.push(Object.fromEntries([...entries.slice(0, i), ...entries.slice(i + 1)]));
    for (const [k, v] of entries) for (const smaller of shrinkCandidates(v).slice(0, 8)) out.push({ ...(value as object), [k]: smaller });
    return out;
  }
  if (typeof value === "number" && value !== 0) return [0, Math.trunc(value / 2)];
  return [];
}

export interface PropertyOptions<T> {
  name: string;
  generate: (rng: Rng) => T;
  /** Throws (or rejects) when the property does not hold for `input`. */
  check: (input: T) => void | Promise<void>;
  /** Smaller variants to try when a case fails (default: shrinkCandidates). */
  shrink?: (input: T) => T[];
  budgetMs?: number;
  /** Stop after this many cases even if time is left. */
  maxCases?: number;
}

async function fails<T>(check: (input: T) => void | Promise<void>, input: T): Promise<unknown> {
  try {
    await check(input);
    return undefined;
  } catch (err) {
    return err ?? new Error("threw a nullish value");
  }
}

/** Run the property until the budget is spent; on a failure shrink it and throw a reproducible report. */
export async function runProperty<T>(options: PropertyOptions<T>): Promise<{ cases: number; seed: number }> {
  const seed = fuzzSeed();
  const budget = options.budgetMs ?? fuzzBudgetMs();
  const shrink = options.shrink ?? ((v: T) => shrinkCandidates(v) as T[]);
  const rng = new Rng(seed);
  const until = Date.now() + budget;
  let cases = 0;
  while (Date.now() < until && (options.maxCases === undefined || cases < options.maxCases)) {
    const input = options.generate(rng);
    cases++;
    let error = await fails(options.check, input);
    if (error === undefined) continue;
    // Greedy shrinking: keep the first smaller input that still fails, up to a step limit.
    let smallest = input;
    for (let steps = 0; steps < 500; steps++) {
      let improved = false;
      for (const candidate of shrink(smallest)) {
        const e = await fails(options.check, candidate);
        if (e !== undefined) {
          smallest = candidate;
          error = e;
          improved = true;
          break;
        }
      }
      if (!improved) break;
    }
    const shown = JSON.stringify(smallest)?.slice(0, 2000);
    throw new Error(
      `${options.name}: property failed at case ${cases} (KEEL_FUZZ_SEED=${seed})\n` +
        `minimal input: ${shown}\n` +
        `error: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  console.log(`${options.name}: ${cases} cases in ${budget} ms, seed ${seed}`);
  return { cases, seed };
}
