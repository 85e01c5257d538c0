// Coercion of query/path/header strings and filling of defaults, on both engines.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileSchema, t, type CompileOptions, type JsonSchema } from "../../lib/json-schema/index.js";

function bothEngines(schema: JsonSchema, options: CompileOptions, make: () => unknown): { errors: unknown; value: unknown }[] {
  return [true, false].map((codegen) => {
    const value = make();
    const errors = compileSchema(schema, { ...options, codegen }).validate(value);
    return { errors, value };
  });
}

describe("coercion", () => {
  const Query = t.object({
    page: t.integer({ minimum: 1 }),
    ratio: t.optional(t.number()),
    draft: t.optional(t.boolean()),
    tags: t.optional(t.array(t.integer())),
    name: t.optional(t.string()),
    maybe: t.optional(t.nullable(t.integer())),
  });

  test("strings become the schema's scalar types, in place", () => {
    for (const r of bothEngines(Query, { coerce: true }, () => ({ page: "2", ratio: "-1.5e2", draft: "false", tags: "7", name: "42", maybe: "null" }))) {
      assert.equal(r.errors, null);
      assert.deepEqual(r.value, { page: 2, ratio: -150, draft: false, tags: [7], name: "42", maybe: null });
    }
  });

  test("repeated values stay arrays and their items are coerced", () => {
    for (const r of bothEngines(Query, { coerce: true }, () => ({ page: "1", tags: ["1", "2"] }))) {
      assert.deepEqual(r.value, { page: 1, tags: [1, 2] });
    }
  });

  test("strict forms only: junk stays a string and fails the type rule", () => {
    for (const bad of ["", " 1", "1.5", "0x10", "1e3", "01", "9007199254740993"]) {
      for (const r of bothEngines(Query, { coerce: true }, () => ({ page: bad }))) {
        assert.deepEqual(r.errors, [{ field: "page", code: "type", message: "must be an integer" }], `page=${JSON.stringify(bad)}`);
      }
    }
  });

  test("record values (additionalProperties) are coerced too", () => {
    for (const r of bothEngines(t.record(t.integer()), { coerce: true }, () => ({ a: "1", b: "2" }))) {
      assert.equal(r.errors, null);
      assert.deepEqual(r.value, { a: 1, b: 2 });
    }
  });

  test("without coerce, strings are not numbers", () => {
    for (const r of bothEngines(Query, {}, () => ({ page: "2" }))) assert.equal((r.errors as unknown[]).length, 1);
  });

  test("top-level coerce() for path parameters", () => {
    const id = compileSchema(t.u64(), { coerce: true });
    assert.equal(id.coerce("42"), 42);
    assert.equal(id.coerce("-1"), -1);
    assert.deepEqual(id.validate(id.coerce("-1")), [{ field: "", code: "range", message: "must be at least 0" }]);
    assert.equal(id.coerce("abc"), "abc");
    assert.equal(compileSchema(t.boolean(), { coerce: true }).coerce("true"), true);
    assert.deepEqual(compileSchema(t.array(t.integer()), { coerce: true }).coerce("5"), [5]);
    assert.equal(compileSchema(t.string(), { coerce: true }).coerce("5"), "5");
  });

  test("a __proto__ key is written as an own property, never as the prototype", () => {
    const schema = { type: "object", properties: { ["__proto__"]: { type: "integer" } } };
    for (const r of bothEngines(schema, { coerce: true }, () => JSON.parse('{"__proto__":"5"}'))) {
      assert.equal(Object.getPrototypeOf(r.value), Object.prototype);
      assert.equal(Object.getOwnPropertyDescriptor(r.value, "__proto__")?.value, 5);
    }
  });
});

describe("defaults", () => {
  const Settings = t.object({
    theme: t.optional(t.enum(["light", "dark"], { default: "light" })),
    size: t.optional(t.integer({ default: 10 })),
    tags: t.optional(t.unsafe<string[]>({ type: "array", items: { type: "string" }, default: ["a"] })),
    name: t.string(),
  });

  test("missing properties get their default, present ones are kept", () => {
    for (const r of bothEngines(Settings, { useDefaults: true }, () => ({ name: "x", size: 3 }))) {
      assert.equal(r.errors, null);
      assert.deepEqual(r.value, { name: "x", size: 3, theme: "light", tags: ["a"] });
    }
  });

  test("object defaults are copies, not shared", () => {
    const compiled = compileSchema(Settings, { useDefaults: true });
    const a: { tags?: string[] } = { name: "a" } as never;
    const b: { tags?: string[] } = { name: "b" } as never;
    compiled.validate(a);
    compiled.validate(b);
    a.tags?.push("mutated");
    assert.deepEqual(b.tags, ["a"]);
  });

  test("defaults are not applied unless asked", () => {
    for (const r of bothEngines(Settings, {}, () => ({ name: "x" }))) assert.deepEqual(r.value, { name: "x" });
  });

  test("a default fills a required property before `required` is checked", () => {
    const schema = { type: "object", properties: { a: { type: "integer", default: 1 } }, required: ["a"] };
    for (const r of bothEngines(schema, { useDefaults: true }, () => ({}))) {
      assert.equal(r.errors, null);
      assert.deepEqual(r.value, { a: 1 });
    }
  });
});
