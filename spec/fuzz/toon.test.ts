// The TOON decoder, fuzzed: random and mutated TOON text (from the spec's own fixtures) never
// throws anything but a ToonError and never hangs; random JSON values survive an encode/decode
// round trip unchanged.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { decodeToon, encodeToon, ToonError } from "../../lib/toon/index.js";
import { runProperty, type Rng } from "./property.js";

const repo = resolve(fileURLToPath(new URL(".", import.meta.url)), "../..");
const fixtures = join(process.env["KEEL_CONFORMANCE_DIR"] ?? resolve(repo, "../shared/conformance"), "toon/v4.0.0/tests/fixtures/decode");

function fixtureTexts(): string[] {
  if (!existsSync(fixtures)) return ["a: 1\nb[2]: x,y\nc:\n  d: true", "items[2]{id,name}:\n  1,a\n  2,b"];
  const out: string[] = [];
  for (const f of readdirSync(fixtures).filter((n) => n.endsWith(".json"))) {
    const doc = JSON.parse(readFileSync(join(fixtures, f), "utf8")) as { tests: Array<{ input: unknown }> };
    for (const t of doc.tests) if (typeof t.input === "string") out.push(t.input);
  }
  return out;
}

const NOISE = ["\n", "  ", "\t", ":", ",", "|", "[", "]", "{", "}", "#", '"', "\\", "-", "- ", "[3]", "[999999999]", "{a,b}", "0", "-0", "1e9", "null", "true", "__proto__", "constructor", "é", "\u0000", "\r", "\u2028"];

function mutate(rng: Rng, text: string): string {
  let s = text;
  for (let i = rng.range(1, 4); i > 0; i--) {
    const at = rng.int(s.length + 1);
    switch (rng.int(4)) {
      case 0: s = s.slice(0, at) + rng.pick(NOISE) + s.slice(at); break;
      case 1: s = s.slice(0, at) + s.slice(at + rng.range(1, 5)); break;
      case 2: s = s.slice(0, at) + s.slice(at, at + rng.range(1, 20)).repeat(rng.range(2, 5)) + s.slice(at); break;
      default: s = s.replace(/^ +/gm, (m) => (rng.chance(0.5) ? m + " " : m.slice(1)));
    }
  }
  return s;
}

test("mutated and random TOON text: only ToonError, never a hang", async () => {
  const texts = fixtureTexts();
  await runProperty({
    name: "toon/decode-mutations",
    generate: (rng: Rng) => (rng.chance(0.8) ? mutate(rng, rng.pick(texts)) : Array.from({ length: rng.range(1, 30) }, () => rng.pick(NOISE)).join("")),
    check: (text) => {
      const started = Date.now();
      try {
        decodeToon(text);
      } catch (err) {
        assert.ok(err instanceof ToonError, `threw ${(err as Error)?.name}: ${(err as Error)?.message}`);
      }
      assert.ok(Date.now() - started < 1000, "a decode took over a second");
    },
  });
});

const KEYS = ["a", "b", "id", "name", "with space", "comma,key", "colon:key", "", "é", "1", "-", "true", "__proto__"];
const STRINGS = ["", "a", "x y", " lead", "trail ", "a,b", "a|b", "a:b", '"q"', "back\\slash", "new\nline", "tab\t", "true", "null", "42", "-7", "1e3", "- dash", "[1]", "{x}", "é😀", "#"];

function jsonValue(rng: Rng, depth = 0): unknown {
  switch (rng.int(depth > 3 ? 4 : 7)) {
    case 0: return null;
    case 1: return rng.chance(0.5);
    case 2: return rng.pick([0, 1, -1, 3.5, -0.25, 1e21, 123456789, 2 ** 53 - 1, 1e-7]);
    case 3: return rng.pick(STRINGS);
    case 4: return Array.from({ length: rng.int(4) }, () => jsonValue(rng, depth + 1));
    case 5: {
      // Uniform rows: the tabular form.
      const keys = [...new Set(Array.from({ length: rng.range(1, 3) }, () => rng.pick(KEYS)))];
      return Array.from({ length: rng.range(1, 4) }, () => Object.fromEntries(keys.map((k) => [k, rng.pick([1, "s", true, null, "a,b"])])));
    }
    default: {
      const o: Record<string, unknown> = {};
      for (let i = rng.int(4); i > 0; i--) Object.defineProperty(o, rng.pick(KEYS), { value: jsonValue(rng, depth + 1), enumerable: true, configurable: true, writable: true });
      return o;
    }
  }
}

/** Plain JSON equality, with -0 equal to 0 (TOON writes -0 as 0). */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(normalize(a)) === JSON.stringify(normalize(b));
}
function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, normalize((v as Record<string, unknown>)[k])]));
  return v;
}

test("random JSON values round-trip through encode and decode", async () => {
  await runProperty({
    name: "toon/round-trip",
    generate: (rng: Rng) => jsonValue(rng),
    check: (value) => {
      const text = encodeToon(value as never);
      const back = decodeToon(text);
      assert.ok(sameJson(back, value), `encoded as ${JSON.stringify(text)} decoded to ${JSON.stringify(back)}`);
    },
  });
});
