// Runs every TOON spec v4 fixture (shared/conformance/toon/v4.0.0/tests/fixtures) against the codec.
// One node:test per fixture file, one subtest per case; prints a summary line at the end.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { decodeToon, encodeToon, ToonError } from "../../lib/toon/index.js";

const conformanceRoot = process.env["KEEL_CONFORMANCE_DIR"] ?? fileURLToPath(new URL("../../../shared/conformance", import.meta.url));
const fixturesDir = join(conformanceRoot, "toon", "v4.0.0", "tests", "fixtures");

interface FixtureCase {
  name: string;
  input: unknown;
  expected: unknown;
  options?: Record<string, unknown>;
  shouldError?: boolean;
  specSection?: string;
}
interface FixtureFile {
  version: string;
  category: "encode" | "decode";
  tests: FixtureCase[];
}

/**
 * Optional non-strict leniencies (tests/README.md "Non-Strict Tests") this codec
 * chooses not to implement, keyed "category/file/name" → reason. Only such
 * cases may be listed. Currently empty: every leniency is implemented.
 */
const OPTIONAL_LENIENCY_SKIPS = new Map<string, string>();

/** JSON-model equality: ordered keys, any prototype, numbers by value (so -0 equals 0, per spec §2). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false;
  return ka.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** §2: outside n = 0 or 1e-6 ≤ |n| < 1e21 several encodings are valid; compare by decoding. */
function hasNonCanonicalRangeNumber(v: unknown): boolean {
  if (typeof v === "number") return v !== 0 && (Math.abs(v) < 1e-6 || Math.abs(v) >= 1e21);
  if (v === null || typeof v !== "object") return false;
  return Object.values(v).some(hasNonCanonicalRangeNumber);
}

const counts = { encode: { passed: 0, total: 0 }, decode: { passed: 0, total: 0, mustError: 0 } };
const skipped: string[] = [];

if (!existsSync(fixturesDir)) {
  test("toon v4 conformance fixtures", { skip: `fixtures not found at ${fixturesDir} (set KEEL_CONFORMANCE_DIR)` }, () => {});
} else {
  for (const category of ["encode", "decode"] as const) {
    for (const file of readdirSync(join(fixturesDir, category)).filter((f) => f.endsWith(".json")).sort()) {
      const fixture = JSON.parse(readFileSync(join(fixturesDir, category, file), "utf8")) as FixtureFile;
      test(`toon v4 ${category}/${file}`, async (t) => {
        for (const c of fixture.tests) {
          const id = `${category}/${file}/${c.name}`;
          counts[category].total++;
          if (category === "decode" && c.shouldError === true) counts.decode.mustError++;
          const skipReason = OPTIONAL_LENIENCY_SKIPS.get(id);
          if (skipReason !== undefined) {
            skipped.push(`${id}: ${skipReason}`);
            await t.test(c.name, { skip: skipReason }, () => {});
            continue;
          }
          await t.test(c.name, () => {
            runCase(category, c);
            counts[category].passed++;
          });
        }
      });
    }
  }
  after(() => {
    const e = counts.encode;
    const d = counts.decode;
    console.log(`toon v4 fixtures: encode ${e.passed}/${e.total}, decode ${d.passed}/${d.total} (${d.mustError} must-error) — ${skipped.length} skipped`);
    for (const s of skipped) console.log(`  skipped ${s}`);
  });
}

function runCase(category: "encode" | "decode", c: FixtureCase): void {
  const options = c.options ?? {};
  if (category === "encode") {
    if (c.shouldError === true) {
      assert.throws(() => encodeToon(c.input, options), ToonError);
      return;
    }
    const out = encodeToon(c.input, options);
    if (hasNonCanonicalRangeNumber(c.input)) {
      assert.ok(jsonEqual(decodeToon(out), c.input), `round-trip mismatch for ${JSON.stringify(out)}`);
    } else {
      assert.equal(out, c.expected);
    }
    return;
  }
  if (c.shouldError === true) {
    assert.throws(() => decodeToon(c.input as string, options), ToonError);
    return;
  }
  const got = decodeToon(c.input as string, options);
  assert.ok(jsonEqual(got, c.expected), `got ${JSON.stringify(got)}, expected ${JSON.stringify(c.expected)}`);
}
