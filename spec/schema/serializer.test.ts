// compileSerializer: the native path (a list of 8 or more items that is exactly what the schema
// writes goes to JSON.stringify; whatever the items hold, the output must be what the
// property-by-property writer produces, and anything to leave out must still be left out), schemas
// without listed properties, and $ref resolution. The JSON Schema Test Suite run is in
// serializer-suite.test.ts; the contract around routes in spec/core/response-contract.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { t } from "../../lib/index.js";
import { compileSerializer, SerializationMismatch } from "../../lib/json-schema/index.js";

const Item = t.object({
  id: t.integer(),
  name: t.string(),
  tags: t.array(t.string()),
  note: t.optional(t.nullable(t.string())),
});
const List = t.object({ items: t.array(Item), total: t.integer() });
const write = compileSerializer(List);

const plain = (i: number) => ({ id: i, name: `n${i}`, tags: ["a", "b"] });
const many = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

class Row {
  constructor(
    readonly id: number,
    readonly name: string,
    readonly tags: string[],
    readonly secret = "s3cr3t",
  ) {}
  get note(): string {
    return "from a getter";
  }
}

/** The reference: what the schema lets out of an item, by hand. */
function project(item: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { id: item["id"], name: item["name"], tags: item["tags"] };
  if (item["note"] !== undefined) out["note"] = item["note"];
  return out;
}

describe("serializer native path (lists of 8 or more)", () => {
  it("writes a clean list exactly as JSON.stringify would", () => {
    const value = { items: many(20, plain), total: 20 };
    assert.equal(write(value), JSON.stringify(value));
  });

  it("never sends an unlisted property, however long the list", () => {
    for (const n of [7, 8, 9, 100]) {
      const items = many(n, (i) => ({ ...plain(i), passwordHash: "hash" }));
      const out = write({ items, total: n });
      assert.doesNotMatch(out, /passwordHash|hash"/, `n=${n}`);
      assert.deepEqual(JSON.parse(out), { items: items.map(project), total: n });
    }
    // One dirty item among clean ones.
    const items: Array<Record<string, unknown>> = many(30, plain);
    items[17] = { ...plain(17), debug: { sql: "select *" } };
    assert.doesNotMatch(write({ items, total: 30 }), /debug|select/);
  });

  it("reads listed properties of class instances through the writer (getters, no prototype fields)", () => {
    const items = many(10, (i) => new Row(i, `r${i}`, ["x"]));
    const out = JSON.parse(write({ items, total: 10 }));
    assert.equal(out.items.length, 10);
    assert.deepEqual(out.items[3], { id: 3, name: "r3", tags: ["x"], note: "from a getter" });
    assert.doesNotMatch(JSON.stringify(out), /s3cr3t/);
  });

  it("keeps a listed property that is not enumerable (JSON.stringify alone would drop it)", () => {
    const items = many(10, (i) => {
      const o: Record<string, unknown> = { name: `n${i}`, tags: [] };
      Object.defineProperty(o, "id", { value: i, enumerable: false });
      return o;
    });
    const out = JSON.parse(write({ items, total: 10 }));
    assert.equal(out.items[9].id, 9);
  });

  it("converts through toJSON and writes bigint integers", () => {
    const Stamped = t.object({ at: t.string({ format: "date-time" }), n: t.integer() });
    const w = compileSerializer(t.array(Stamped));
    const items = many(10, (i) => ({ at: new Date(Date.UTC(2026, 0, i + 1)), n: BigInt(i) * 10n ** 20n }));
    const out = w(items);
    assert.match(out, /^\[\{"at":"2026-01-01T00:00:00\.000Z","n":0\},/);
    assert.match(out, /"n":900000000000000000000\}\]$/);
  });

  it("still reports mismatches with their path", () => {
    const items: Array<Record<string, unknown>> = many(12, plain);
    items[10] = { ...plain(10), id: "ten" };
    assert.throws(
      () => write({ items, total: 12 }),
      (e: unknown) => e instanceof SerializationMismatch && e.describe() === "at items[10].id: expected integer, got string",
    );
    const holes = many(9, plain) as unknown[];
    holes[4] = undefined;
    assert.throws(() => write({ items: holes, total: 9 }), (e: unknown) => e instanceof SerializationMismatch && e.path === "items[4]");
    const nan = many(9, plain);
    nan[2] = { ...plain(2), id: Number.NaN };
    assert.throws(() => write({ items: nan, total: 9 }), SerializationMismatch);
  });

  it("writes nullable items and an explicit undefined the way the writer does", () => {
    const items = many(9, (i) => ({ ...plain(i), note: i % 3 === 0 ? null : i % 3 === 1 ? "n" : undefined }));
    assert.deepEqual(JSON.parse(write({ items, total: 9 })), { items: items.map(project), total: 9 });
  });

  it("gives the same JSON value as the writer for random lists (differential, seeded)", () => {
    let seed = 20261125;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const variants: Array<(i: number) => unknown> = [
      plain,
      (i) => ({ ...plain(i), extra: i }),
      (i) => ({ ...plain(i), note: "x" }),
      (i) => ({ ...plain(i), note: null }),
      (i) => Object.assign(Object.create(null), plain(i)),
      (i) => ({ tags: ["z"], name: `reordered${i}`, id: i }),
      (i) => new Row(i, "row", []),
    ];
    for (let round = 0; round < 300; round++) {
      const n = 1 + Math.floor(rand() * 20);
      const items = many(n, (i) => variants[Math.floor(rand() * variants.length)]!(i)) as Array<Record<string, unknown>>;
      const expected = { items: items.map((it) => project({ ...(it instanceof Row ? { id: it.id, name: it.name, tags: it.tags, note: it.note } : it) })), total: n };
      assert.deepEqual(JSON.parse(write({ items, total: n })), expected, `round ${round}`);
    }
  });
});

describe("serializer native path: schemas without listed properties", () => {
  it("compiles and writes lists of empty-schema objects and of mixed types", () => {
    const empty = compileSerializer(t.array(t.object({})));
    const items = many(10, (i) => (i % 2 === 0 ? {} : { secret: i }));
    assert.equal(empty(items), `[${many(10, () => "{}").join(",")}]`);
    const mixed = compileSerializer({ type: "array", items: { type: ["array", "object", "null"] } });
    assert.equal(mixed(many(9, (i) => (i % 3 === 0 ? null : i % 3 === 1 ? [] : {}))), "[null,[],{},null,[],{},null,[],{}]");
  });
});

describe("serializer $ref resolution", () => {
  it("follows #/$defs pointers and # (recursion to the root) in raw schemas", () => {
    const tree = compileSerializer({
      type: "object",
      properties: { name: { $ref: "#/$defs/label" }, children: { type: "array", items: { $ref: "#" } } },
      required: ["name"],
      $defs: { label: { type: "string" } },
    });
    assert.equal(tree({ name: "a", secret: 1, children: [{ name: "b", children: [] }] }), '{"name":"a","children":[{"name":"b","children":[]}]}');
    assert.throws(() => tree({ name: 1 }), (e: unknown) => e instanceof SerializationMismatch && e.describe() === "at name: expected string, got integer");
  });

  it("refuses, at compile time, a reference it cannot resolve", () => {
    assert.throws(() => compileSerializer({ $ref: "https://example.com/schema.json" }), /cannot resolve \$ref/);
    assert.throws(() => compileSerializer({ properties: { a: { $ref: "#/$defs/missing" } } }), /cannot resolve \$ref/);
  });
});
