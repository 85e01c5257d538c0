// The kernel's schema engine, with keel/schema NOT imported (node:test runs this file in its own
// process, and nothing here imports lib/json-schema): what `t` builds compiles and validates;
// what only keel/schema implements is refused when the extractor or route is built, with an
// error naming keel/schema and the keyword, never validated with fewer rules than it states.
// The JSON Schema Test Suite cases the kernel accepts must all pass; the others must be refused.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { App, json, query, route, t, type JsonSchema } from "../../lib/index.js";
import { compileSchema, SchemaEngineRequired } from "../../lib/plugin.js";

const refused = (keyword: RegExp) => (error: unknown): boolean => {
  assert.ok(error instanceof Error, String(error));
  assert.match(error.message, /keel\/schema/);
  assert.match(error.message, keyword);
  return true;
};

describe("kernel schema engine (keel/schema not imported)", () => {
  it("refuses a $ref into $defs at extractor construction, naming keel/schema and $ref", () => {
    const schema = { type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: { type: "string" } } };
    assert.throws(() => json(schema), refused(/\$ref "#\/\$defs\/a"/));
    assert.throws(() => compileSchema(schema), SchemaEngineRequired);
  });

  it("refuses unevaluatedProperties, async rules and engine-only keywords anywhere in the schema", () => {
    assert.throws(() => json({ type: "object", unevaluatedProperties: false }), refused(/"unevaluatedProperties"/));
    assert.throws(() => json(t.object({ inner: t.unsafe({ type: "object", properties: { x: { type: "string" } }, unevaluatedProperties: false }) })), refused(/"unevaluatedProperties"/));
    assert.throws(() => json({ type: "object", properties: { tags: { type: "array", contains: { const: "x" } } } }), refused(/"contains"/));
    assert.throws(() => json({ anyOf: [{ type: "string" }, { if: { type: "number" }, then: { minimum: 1 } }] }), refused(/"if"/));
    assert.throws(() => json({ $schema: "https://json-schema.org/draft/2019-09/schema", type: "string" }), refused(/"\$schema"/));
    assert.throws(() => json({ type: "object", "x-keel-async": [{ kind: "custom", name: "free" }] }), refused(/"x-keel-async"/));
  });

  it("refuses a long-tail format, and the codegen: false option; ignores unknown formats as before", () => {
    assert.throws(() => query(t.object({ d: t.string({ format: "duration" }) })), refused(/format "duration"/));
    assert.throws(() => compileSchema({ type: "string", format: "json-pointer" }), refused(/format "json-pointer"/));
    assert.throws(() => compileSchema({ type: "string" }, { codegen: false }), refused(/codegen: false/));
    // As annotations (the serializer's mode) the long tail is not asserted anywhere: no refusal.
    assert.equal(compileSchema({ type: "string", format: "duration" }, { formats: "annotate" }).validate("x"), null);
    assert.equal(compileSchema({ type: "string", format: "no-such-format" }).validate("x"), null);
    assert.equal(compileSchema(t.u32()).validate(3), null); // format int64: an annotation
  });

  it("refuses at app.route a response schema that needs keel/schema", () => {
    const app = new App();
    const schema = { type: "object", properties: { id: { type: "integer" } }, unevaluatedProperties: false };
    assert.throws(() => app.route(route.get("/x", { responses: { 200: schema } }, [], () => ({ id: 1 }))), refused(/"unevaluatedProperties"/));
    assert.throws(
      () => new App({ responseValidation: "full" }).route(route.get("/y", { responses: { 200: t.string({ format: "regex" }) } }, [], () => "a")),
      refused(/format "regex"/),
    );
  });

  it("validates the common formats", () => {
    const cases: [JsonSchema, unknown, boolean][] = [
      [t.email(), "a@example.com", true], [t.email(), "not-an-email", false],
      [t.uuid(), "123e4567-e89b-12d3-a456-426614174000", true], [t.uuid(), "123", false],
      [t.string({ format: "date-time" }), "2024-02-29T12:00:00Z", true], [t.string({ format: "date-time" }), "2023-02-29T12:00:00Z", false],
      [t.string({ format: "uri" }), "https://example.com/a?b#c", true], [t.string({ format: "uri" }), "/relative", false],
    ];
    for (const [schema, value, valid] of cases) assert.equal(compileSchema(schema).validate(value) === null, valid, `${JSON.stringify(schema)} ${JSON.stringify(value)}`);
  });

  it("compiles everything t builds: union, nullable, tuple, named false, recursive t.ref", () => {
    const Union = t.union([t.string(), t.integer()]);
    assert.equal(compileSchema(Union).validate("a"), null);
    assert.deepEqual(compileSchema(Union).validate(1.5), [{ field: "", code: "anyOf", message: "must match at least one of the allowed schemas" }]);
    const Nullable = t.object({ tags: t.nullable(t.array(t.string())), pick: t.nullable(t.enum(["a", "b"])) });
    assert.equal(compileSchema(Nullable).validate({ tags: null, pick: null }), null);
    assert.deepEqual(compileSchema(Nullable).validate({ tags: [1], pick: "c" }), [
      { field: "tags[0]", code: "type", message: "must be a string" },
      { field: "pick", code: "anyOf", message: "must match at least one of the allowed schemas" },
    ]);
    const Pair = t.tuple([t.string(), t.integer()]);
    assert.equal(compileSchema(Pair).validate(["a", 1]), null);
    assert.deepEqual(compileSchema(Pair).validate(["a", "b", 3]), [
      { field: "[1]", code: "type", message: "must be an integer" },
      { field: "", code: "items", message: "must have at most 2 items" },
    ]);
    assert.deepEqual(compileSchema(t.named("Never", false)).validate(1), [{ field: "", code: "not", message: "must not match the disallowed schema" }]);
    const Tree = t.named("Tree", t.object({ name: t.string(), children: t.array(t.ref("Tree")) }));
    const tree = compileSchema(Tree);
    assert.equal(tree.validate({ name: "a", children: [{ name: "b", children: [] }] }), null);
    assert.deepEqual(tree.validate({ name: "a", children: [{ name: 1, children: [] }] }), [{ field: "children[0].name", code: "type", message: "must be a string" }]);
    const Leaf = t.named("Leaf", t.object({ id: t.integer() }));
    assert.deepEqual(compileSchema(t.object({ leaf: t.ref(Leaf) })).validate({ leaf: { id: "x" } }), [{ field: "leaf.id", code: "type", message: "must be an integer" }]);
  });

  it("coerces query values through nullable and tuple schemas, and stops hostile recursion with a depth error", () => {
    const c = compileSchema(t.object({ n: t.nullable(t.integer()), pair: t.tuple([t.integer(), t.boolean()]) }), { coerce: true });
    const value = { n: "4", pair: ["1", "true"] };
    assert.equal(c.validate(value), null);
    assert.deepEqual(value, { n: 4, pair: [1, true] });
    const Nest = t.named("Nest", t.object({ next: t.optional(t.ref("Nest")) }));
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 2000; i++) deep = { next: deep };
    assert.equal(compileSchema(Nest, { maxRefDepth: 100 }).validate(deep)?.[0]?.code, "depth");
  });
});

const repo = resolve(fileURLToPath(new URL(".", import.meta.url)), "../..");
const suite = join(process.env["KEEL_CONFORMANCE_DIR"] ?? resolve(repo, "../shared/conformance"), "json-schema-test-suite/tests/draft2020-12");
interface SuiteCase { description: string; schema: JsonSchema; tests: { description: string; data: unknown; valid: boolean }[] }

describe("kernel schema engine on the JSON Schema Test Suite", { skip: existsSync(suite) ? false : "conformance data not found" }, () => {
  /** Per file: cases compiled (all of whose tests must pass) and cases refused for keel/schema. */
  const run = (file: string, formats: "assert" | "annotate"): { compiled: number; refused: number; failed: string[] } => {
    const out = { compiled: 0, refused: 0, failed: [] as string[] };
    for (const c of JSON.parse(readFileSync(file, "utf8")) as SuiteCase[]) {
      let validate: (v: unknown) => boolean;
      try {
        const compiled = compileSchema(c.schema, { formats });
        validate = (v) => compiled.validate(v) === null;
      } catch (error) {
        if (error instanceof SchemaEngineRequired) out.refused++;
        else out.failed.push(`${c.description}: threw ${(error as Error).message}`);
        continue;
      }
      out.compiled++;
      for (const test of c.tests) if (validate(test.data) !== test.valid) out.failed.push(`${c.description} > ${test.description}: expected ${test.valid ? "valid" : "invalid"}`);
    }
    return out;
  };
  const list = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith(".json")).sort();

  it("every required case it compiles passes; the rest are refused naming keel/schema", () => {
    const results = new Map(list(suite).map((f) => [f, run(join(suite, f), "annotate")]));
    assert.deepEqual([...results].flatMap(([f, r]) => r.failed.map((x) => `${f}: ${x}`)), []);
    // The applicators t emits are the kernel's: their files compile wholly or nearly so.
    for (const f of ["anyOf.json", "oneOf.json", "allOf.json", "not.json", "prefixItems.json", "items.json", "properties.json", "required.json", "enum.json", "const.json", "type.json"]) {
      const r = results.get(f);
      assert.ok(r !== undefined && r.compiled > r.refused, `${f}: ${JSON.stringify(r)}`);
    }
    for (const f of ["ref.json", "unevaluatedProperties.json", "dynamicRef.json", "if-then-else.json", "contains.json"]) assert.ok((results.get(f)?.refused ?? 0) > 0, f);
  });

  it("asserts the common formats as the suite says, and refuses the long tail", () => {
    const dir = join(suite, "optional/format");
    for (const name of ["email", "uuid", "date-time", "date", "time", "uri", "uri-reference", "ipv4", "ipv6", "hostname"]) {
      const r = run(join(dir, `${name}.json`), "assert");
      assert.deepEqual(r.failed, [], name);
      assert.equal(r.refused, 0, name);
    }
    for (const name of ["duration", "regex", "json-pointer"]) assert.ok(run(join(dir, `${name}.json`), "assert").refused > 0, name);
  });
});
