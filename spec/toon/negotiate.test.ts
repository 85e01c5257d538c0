// Accept parsing and media selection (lib/toon/negotiate.ts): RFC 9110 §12.5.1 rules, the
// JSON-or-TOON choice, and bounded work on hostile headers.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { acceptQuality, MAX_ACCEPT_RANGES, negotiateFormat, parseAccept, selectMediaType } from "../../lib/toon/index.js";

describe("parseAccept", () => {
  test("ranges, q-values, parameters and specificity, lowercased", () => {
    const ranges = parseAccept('Text/HTML;Level=1;q=0.5, application/*;q=0.25, */*;q=0, application/toon');
    assert.deepEqual(
      ranges.map((r) => [r.type, r.subtype, r.q, r.specificity]),
      [
        ["text", "html", 0.5, 3],
        ["application", "*", 0.25, 1],
        ["*", "*", 0, 0],
        ["application", "toon", 1, 2],
      ],
    );
    assert.equal(ranges[0]!.parameters["level"], "1");
    assert.equal(Object.getPrototypeOf(ranges[0]!.parameters), null);
  });

  test("absent or empty headers give no ranges", () => {
    assert.deepEqual(parseAccept(undefined), []);
    assert.deepEqual(parseAccept(""), []);
    assert.deepEqual(parseAccept(" , ,\t"), []);
  });

  test("a malformed q makes the whole range ignored", () => {
    for (const q of ["2", "1.001", "0.5555", "abc", "-1", '"0.5"', "", ".5", "01", "0;5"]) {
      const ranges = parseAccept(`application/toon;q=${q}, application/json`);
      assert.deepEqual(
        ranges.map((r) => `${r.type}/${r.subtype}`),
        ["application/json"],
        `q=${q}`,
      );
    }
    for (const [q, value] of [["0", 0], ["0.", 0], ["0.5", 0.5], ["0.125", 0.125], ["1", 1], ["1.", 1], ["1.000", 1]] as const) {
      assert.equal(parseAccept(`a/b;q=${q}`)[0]?.q, value, `q=${q}`);
    }
  });

  test("malformed ranges are skipped, the rest still parse", () => {
    const ranges = parseAccept("*/json, text, /x, a/, a/b;x, a/b;=1, a b/c, ok/one, ok/two;;q=0.5;");
    assert.deepEqual(
      ranges.map((r) => `${r.type}/${r.subtype}@${r.q}`),
      ["ok/one@1", "ok/two@0.5"],
    );
  });

  test("quoted strings: commas and semicolons inside do not split, escapes are undone", () => {
    const ranges = parseAccept('a/b;x="1,2;q=0";q=0.5, c/d;y="say \\"hi\\"", e/f');
    assert.equal(ranges.length, 3);
    assert.equal(ranges[0]!.parameters["x"], "1,2;q=0");
    assert.equal(ranges[0]!.q, 0.5);
    assert.equal(ranges[1]!.parameters["y"], 'say "hi"');
    assert.equal(ranges[2]!.subtype, "f");
  });

  test("parameters after q are accept-extensions and do not count", () => {
    const [r] = parseAccept("a/b;q=0.3;ext=1;q=0.9");
    assert.equal(r!.q, 0.3);
    assert.equal(r!.specificity, 2);
    assert.equal(r!.parameters["ext"], undefined);
  });

  test(`at most ${MAX_ACCEPT_RANGES} ranges are looked at`, () => {
    const header = Array.from({ length: MAX_ACCEPT_RANGES + 10 }, (_, i) => `t/s${i}`).join(",");
    const ranges = parseAccept(header);
    assert.equal(ranges.length, MAX_ACCEPT_RANGES);
    assert.equal(ranges.at(-1)!.subtype, `s${MAX_ACCEPT_RANGES - 1}`);
    // Malformed ranges count against the cap too.
    const padded = "x,".repeat(MAX_ACCEPT_RANGES) + "application/toon";
    assert.deepEqual(parseAccept(padded), []);
  });

  test("parameter names cannot pollute prototypes", () => {
    const [r] = parseAccept("a/b;__proto__=x;constructor=y");
    assert.equal(r!.parameters["__proto__"], "x");
    assert.equal(({} as Record<string, unknown>)["x"], undefined);
    assert.equal(Object.getPrototypeOf(r!.parameters), null);
  });
});

describe("acceptQuality", () => {
  test("the most specific matching range decides", () => {
    const h = "application/*;q=0.2, application/toon;q=0.9, */*;q=0.1, application/json;charset=utf-8;q=0.7";
    assert.equal(acceptQuality(h, "application/toon"), 0.9);
    assert.equal(acceptQuality(h, "application/json"), 0.7);
    assert.equal(acceptQuality(h, "application/xml"), 0.2);
    assert.equal(acceptQuality(h, "text/html"), 0.1);
    assert.equal(acceptQuality(h, "Application/TOON; charset=utf-8"), 0.9);
  });

  test("q=0 excludes; an unmatched type is 0", () => {
    assert.equal(acceptQuality("application/json;q=0, */*", "application/json"), 0);
    assert.equal(acceptQuality("*/*", "application/json"), 1);
    assert.equal(acceptQuality("text/html", "application/json"), 0);
  });

  test("a charset other than UTF-8 does not match (keel writes UTF-8)", () => {
    assert.equal(acceptQuality("application/json;charset=iso-8859-1", "application/json"), 0);
    assert.equal(acceptQuality('application/json;charset="UTF-8"', "application/json"), 1);
    assert.equal(acceptQuality("application/json;charset=latin1, application/*;q=0.4", "application/json"), 0.4);
  });

  test("no header, or no usable range, accepts anything", () => {
    assert.equal(acceptQuality(undefined, "application/json"), 1);
    assert.equal(acceptQuality("", "text/toon"), 1);
    assert.equal(acceptQuality("garbage, a/b;q=7", "text/toon"), 1);
  });

  test("among equally specific ranges the first wins", () => {
    assert.equal(acceptQuality("a/b;q=0.3, a/b;q=0.8", "a/b"), 0.3);
  });

  test("rejects a malformed media type argument", () => {
    assert.throws(() => acceptQuality("*/*", "json"), TypeError);
  });
});

describe("selectMediaType", () => {
  const available = ["application/json", "text/html", "application/toon"];

  test("highest q wins", () => {
    assert.equal(selectMediaType("text/html;q=0.9, application/toon", available), "application/toon");
    assert.equal(selectMediaType("text/html, application/toon;q=0.2", available), "text/html");
  });

  test("ties: the more specific match, then the server's order", () => {
    assert.equal(selectMediaType("*/*", available), "application/json");
    assert.equal(selectMediaType("*/*, text/html", available), "text/html");
    assert.equal(selectMediaType("application/*", ["application/toon", "application/json"]), "application/toon");
    assert.equal(selectMediaType(undefined, available), "application/json");
  });

  test("nothing acceptable is undefined", () => {
    assert.equal(selectMediaType("image/png", available), undefined);
    assert.equal(selectMediaType("*/*;q=0", available), undefined);
    assert.equal(selectMediaType("*/*", []), undefined);
  });
});

describe("negotiateFormat", () => {
  const cases: Array<[string | undefined, string | null]> = [
    [undefined, "application/json"],
    ["", "application/json"],
    ["*/*", "application/json"],
    ["application/*", "application/json"],
    ["application/json", "application/json"],
    ["application/toon", "application/toon"],
    ["text/toon", "text/toon"],
    ["TEXT/TOON; charset=utf-8", "text/toon"],
    ["text/*", "text/toon"],
    ["application/toon, application/json", "application/toon"],
    ["application/json, application/toon", "application/toon"],
    ["application/toon;q=0.5, application/json", "application/json"],
    ["application/json;q=0.5, application/toon", "application/toon"],
    ["application/toon;q=0.5, */*", "application/json"],
    ["application/toon, text/toon", "application/toon"],
    ["application/toon;q=0.4, text/toon;q=0.6", "text/toon"],
    ["application/toon;q=0, */*", "application/json"],
    ["application/json;q=0, */*", "application/toon"],
    ["application/json;q=0, application/*", "application/toon"],
    ["application/toon;q=0.9, application/*;q=0.9", "application/toon"],
    ["text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.8", "application/json"],
    ["garbage", "application/json"],
    ["text/html", null],
    ["application/json;q=0, application/toon;q=0, text/toon;q=0", null],
    ["*/*;q=0", null],
    ["application/json;charset=latin1", null],
  ];
  for (const [header, expected] of cases) {
    test(`${JSON.stringify(header)} -> ${expected}`, () => {
      const choice = negotiateFormat(header);
      assert.equal(choice === null ? null : choice.mediaType, expected);
      if (choice !== null) assert.equal(choice.format, choice.mediaType === "application/json" ? "json" : "toon");
    });
  }
});

describe("hostile headers", () => {
  /** Generous bound: catches quadratic behaviour, not micro-regressions. */
  function timed(ms: number, fn: () => void): void {
    const start = performance.now();
    fn();
    const elapsed = performance.now() - start;
    assert.ok(elapsed < ms, `took ${elapsed.toFixed(0)} ms (limit ${ms} ms)`);
  }

  test("long and pathological headers stay linear", () => {
    const n = 200_000;
    const shapes = [
      "a/b;q=0.5,".repeat(n / 10),
      'a/b;x="' + '\\"'.repeat(n / 2),
      ";".repeat(n),
      "a/b" + ";x=y".repeat(n / 4),
      "*/" + "*".repeat(n),
      '"'.repeat(n),
      "a/b;x=" + '"a",'.repeat(n / 4),
    ];
    for (const h of shapes) {
      timed(500, () => {
        negotiateFormat(h);
        parseAccept(h);
        selectMediaType(h, ["application/json", "text/html"]);
      });
    }
  });

  test("random input never throws and yields well-formed ranges", () => {
    const alphabet = 'ab/*;=q0.15,"\\ \ttoon\u00e9';
    let seed = 42;
    const rand = (k: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % k;
    };
    for (let i = 0; i < 3000; i++) {
      let h = "";
      const len = rand(40);
      for (let j = 0; j < len; j++) h += alphabet[rand(alphabet.length)];
      const ranges = parseAccept(h);
      for (const r of ranges) {
        assert.ok(r.q >= 0 && r.q <= 1, h);
        assert.ok(r.type !== "" && r.subtype !== "", h);
        assert.ok(!(r.type === "*" && r.subtype !== "*"), h);
      }
      const choice = negotiateFormat(h);
      assert.ok(choice === null || choice.format === "json" || choice.format === "toon");
    }
  });
});
