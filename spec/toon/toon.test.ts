// Unit, safety and limit tests for the TOON codec (lib/toon/codec). Fixture conformance is in toon-conformance.test.ts.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decodeToon, encodeToon, TOON_DEFAULT_MAX_DEPTH, ToonError } from "../../lib/toon/index.js";

function thrownToonError(fn: () => unknown): ToonError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ToonError, `expected ToonError, got ${String(err)}`);
    return err;
  }
  assert.fail("expected a ToonError");
}

/** Runs fn and asserts it finished within ms (generous: catches quadratic behaviour, not micro-regressions). */
function timed<T>(ms: number, fn: () => T): T {
  const start = performance.now();
  const out = fn();
  const elapsed = performance.now() - start;
  assert.ok(elapsed < ms, `took ${elapsed.toFixed(0)} ms (limit ${ms} ms)`);
  return out;
}

describe("encodeToon", () => {
  test("encodes the spec's tabular example and decodes it back", () => {
    const value = { users: [{ id: 1, name: "Ada", role: "admin" }, { id: 2, name: "Bob", role: "user" }] };
    const text = encodeToon(value);
    assert.equal(text, "users[2]{id,name,role}:\n  1,Ada,admin\n  2,Bob,user");
    assert.deepEqual(JSON.parse(JSON.stringify(decodeToon(text))), value);
  });

  test("number canonicalisation (§2): -0, exponents, NaN/Infinity", () => {
    assert.equal(encodeToon([-0, 1e6, 1e-6, 1.5, 1e21, 1e-7, NaN, Infinity, -Infinity]), "[9]: 0,1000000,0.000001,1.5,1e+21,1e-7,null,null,null");
  });

  test("quoting rules (§7.2): #, -, literals, numeric-like, delimiters", () => {
    assert.equal(encodeToon({ a: "#tag", b: "-x", c: "true", d: "1e5", e: "+1", f: "a|b", g: "a b", h: "" }),
      "a: \"#tag\"\nb: \"-x\"\nc: \"true\"\nd: \"1e5\"\ne: \"+1\"\nf: a|b\ng: a b\nh: \"\"");
    assert.equal(encodeToon({ f: "a|b" }, { delimiter: "|" }), "f: \"a|b\"");
    assert.equal(encodeToon(["a\u0001b"]), "[1]: \"a\\u0001b\"");
  });

  test("host normalisation (§3) follows JSON.stringify: toJSON, Date, undefined, Map, Set, BigInt", () => {
    const value = {
      when: new Date("2025-01-02T03:04:05.000Z"),
      skip: undefined,
      fn: () => 1,
      list: [undefined, 1],
      map: new Map<unknown, unknown>([[1, "one"]]),
      set: new Set(["x", "y"]),
      small: 12n,
      big: 2n ** 70n,
      custom: { toJSON: () => ({ ok: true }) },
    };
    assert.equal(encodeToon(value),
      "when: \"2025-01-02T03:04:05.000Z\"\nlist[2]: null,1\nmap:\n  \"1\": one\nset[2]: x,y\nsmall: 12\nbig: \"1180591620717411303424\"\ncustom:\n  ok: true");
    assert.equal(encodeToon(undefined), "null");
  });

  test("circular values are a ToonError, not a stack overflow", () => {
    const a: Record<string, unknown> = {};
    a["self"] = a;
    assert.match(thrownToonError(() => encodeToon(a)).message, /circular/);
  });

  test("own __proto__ / constructor keys are encoded as ordinary keys", () => {
    const value = JSON.parse('{"__proto__":{"x":1},"constructor":2}') as unknown;
    assert.equal(encodeToon(value), "__proto__:\n  x: 1\nconstructor: 2");
  });

  test("indentSize and delimiter options; invalid options are ToonErrors", () => {
    assert.equal(encodeToon({ a: { b: [1, 2] } }, { indentSize: 4, delimiter: "\t" }), "a:\n    b[2\t]: 1\t2");
    thrownToonError(() => encodeToon({}, { delimiter: ";" as "," }));
    thrownToonError(() => encodeToon({}, { indentSize: 0 }));
  });
});

describe("decodeToon", () => {
  test("objects are null-prototype; prototype keys are plain data (§15)", () => {
    const out = decodeToon("__proto__:\n  polluted: true\nconstructor: 1\nrows[1]{prototype}:\n  x") as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(out), null);
    assert.deepEqual(Object.keys(out), ["__proto__", "constructor", "rows"]);
    assert.equal(Object.getPrototypeOf(out["__proto__"]), null);
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
    assert.equal((Object.prototype as Record<string, unknown>)["polluted"], undefined);
  });

  test("errors carry line and column", () => {
    const err = thrownToonError(() => decodeToon("a: 1\nb: \"x\\qy\""));
    assert.equal(err.line, 2);
    assert.equal(err.column, 6); // the backslash
    assert.match(err.message, /invalid escape/);
    const dup = thrownToonError(() => decodeToon("a: 1\na: 2"));
    assert.equal(dup.line, 2);
    assert.match(dup.message, /duplicate key "a"/);
  });

  test("comments (§5.1) are stripped, '#' elsewhere is data", () => {
    assert.deepEqual({ ...(decodeToon("# c\nmsg: a # b\n  # indented comment\nk: \"#x\"") as object) }, { msg: "a # b", k: "#x" });
  });

  test("numbers (§4): grammar is exact, overflow stays a string, -0 is 0", () => {
    const out = decodeToon("[6]: -0,1e400,0x10,.5,1E+2,007") as unknown[];
    assert.ok(Object.is(out[0], 0));
    assert.deepEqual(out.slice(1), ["1e400", "0x10", ".5", 100, "007"]);
  });

  test("non-strict mode: tab indentation, count and width mismatches are tolerated", () => {
    assert.throws(() => decodeToon("a:\n\tb: 1"), ToonError);
    assert.deepEqual(JSON.parse(JSON.stringify(decodeToon("a:\n\tb: 1", { strict: false }))), { a: { b: 1 } });
    assert.throws(() => decodeToon("t[3]{x,y}:\n  1\n  2,3,4"), ToonError);
    assert.deepEqual(JSON.parse(JSON.stringify(decodeToon("t[3]{x,y}:\n  1\n  2,3,4", { strict: false }))),
      { t: [{ x: 1, y: null }, { x: 2, y: 3 }] });
  });

  test("indentSize option", () => {
    assert.deepEqual(JSON.parse(JSON.stringify(decodeToon("a:\n    b: 1", { indentSize: 4 }))), { a: { b: 1 } });
    assert.throws(() => decodeToon("a:\n   b: 1", { indentSize: 4 }), ToonError);
  });

  test("non-string input and bad options are ToonErrors", () => {
    thrownToonError(() => decodeToon(42 as unknown as string));
    thrownToonError(() => decodeToon("a: 1", { maxDepth: 0 }));
    thrownToonError(() => decodeToon("a: 1", { indentSize: 2.5 }));
  });
});

describe("decodeToon limits and hostile input", () => {
  test("maxLength bounds the input size", () => {
    assert.match(thrownToonError(() => decodeToon("a: 12345", { maxLength: 4 })).message, /maxLength/);
    assert.deepEqual(JSON.parse(JSON.stringify(decodeToon("a: 1", { maxLength: 4 }))), { a: 1 });
  });

  test(`maxDepth (default ${TOON_DEFAULT_MAX_DEPTH}) bounds object nesting`, () => {
    const nest = (levels: number): string => Array.from({ length: levels }, (_, i) => `${"  ".repeat(i)}k:`).join("\n") + `\n${"  ".repeat(levels)}v: 1`;
    decodeToon(nest(TOON_DEFAULT_MAX_DEPTH - 1));
    assert.match(thrownToonError(() => decodeToon(nest(TOON_DEFAULT_MAX_DEPTH))).message, /maxDepth/);
    decodeToon(nest(TOON_DEFAULT_MAX_DEPTH), { maxDepth: TOON_DEFAULT_MAX_DEPTH + 1 });
  });

  test("10k-deep nesting attempts fail fast with ToonError", () => {
    const deepObjects = Array.from({ length: 10_000 }, (_, i) => `${" ".repeat(i)}k:`).join("\n");
    timed(3000, () => thrownToonError(() => decodeToon(deepObjects, { indentSize: 1, maxLength: 1e8 })));
    const deepLists = Array.from({ length: 10_000 }, (_, i) => `${" ".repeat(i)}- [1]:`).join("\n");
    timed(3000, () => thrownToonError(() => decodeToon(`[1]:\n ${deepLists.slice(0)}`, { indentSize: 1, maxLength: 1e8 })));
    const deepFields = `x[1]{${"a{".repeat(10_000)}b${"}".repeat(10_000)}}:\n  1`;
    timed(3000, () => assert.match(thrownToonError(() => decodeToon(deepFields)).message, /maxDepth/));
    // Even at the highest accepted maxDepth (1000) nothing overflows the stack; larger values are rejected.
    timed(3000, () => thrownToonError(() => decodeToon(deepFields, { maxDepth: 1000 })));
    timed(3000, () => thrownToonError(() => decodeToon(deepObjects, { indentSize: 1, maxLength: 1e8, maxDepth: 1000 })));
    thrownToonError(() => decodeToon("a: 1", { maxDepth: 1_000_000 }));
  });

  test("100k-row tabular array decodes and encodes in linear time", () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `user${i}`, ok: i % 2 === 0 }));
    const text = timed(3000, () => encodeToon({ rows }));
    assert.ok(text.startsWith("rows[100000]{id,name,ok}:\n  0,user0,true\n"));
    const out = timed(3000, () => decodeToon(text)) as { rows: { id: number; name: string }[] };
    assert.equal(out.rows.length, 100_000);
    assert.equal(out.rows[99_999]!.name, "user99999");
  });

  test("1 MB lines finish quickly (no quadratic scans)", () => {
    const mb = 1 << 20;
    const cases = [
      `a: ${"x".repeat(mb)}`,
      `a: "${"\\\"".repeat(mb / 2)}"`,
      `a${" ".repeat(mb)}: 1`,
      `- ${" ".repeat(mb)}x`,
      `x[1]: ${"\"".repeat(mb)}`,
      `[${"1".repeat(mb)}]: 1`,
      `t[1]{${",".repeat(mb)}}:`,
      `t[1]{${"{".repeat(mb)}:`,
      "[".repeat(mb),
      `k: ${"[".repeat(mb)}`,
      `items[2]:\n  - ${" ".repeat(mb)}`,
      `a:\n  b: ${"\"a\",".repeat(mb / 4)}`,
      `t[1]{a}:\n  ${"\"x\",".repeat(mb / 4)}`,
    ];
    for (const text of cases) {
      timed(2000, () => {
        try {
          decodeToon(text);
        } catch (err) {
          assert.ok(err instanceof ToonError, `non-ToonError ${String(err)}`);
        }
      });
    }
    const big = timed(2000, () => decodeToon(cases[0]!)) as { a: string };
    assert.equal(big.a.length, mb);
  });

  test("every malformed input yields a ToonError, never another exception", () => {
    const samples = ["\"", "a: \"\\u12", "[2]{a,b}: 1", "x[1]{\"a}:", "- - -", "a:\n  - [", "m[1:]{v}:\n  \"k\" 1", "[0:]{a}:\n  x", "\t", "a: 1\n  b"];
    for (const s of samples) {
      for (const strict of [true, false]) {
        try {
          decodeToon(s, { strict });
        } catch (err) {
          assert.ok(err instanceof ToonError, `${JSON.stringify(s)} strict=${strict}: ${String(err)}`);
        }
      }
    }
  });
});
