// Hostile instances and awkward schemas: no crash, no hang, bounded output.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { schemaFormats, compileSchema, t, type JsonSchema } from "../../lib/json-schema/index.js";

function nest(depth: number, leaf: unknown, wrap: (inner: unknown) => unknown): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = wrap(v);
  return v;
}

describe("hostile input", () => {
  const tree: JsonSchema = {
    $defs: { node: { type: "object", properties: { child: { $ref: "#/$defs/node" } } } },
    $ref: "#/$defs/node",
  };

  for (const codegen of [true, false]) {
    test(`deep nesting under a recursive schema is an error, not a crash (codegen ${codegen})`, () => {
      const compiled = compileSchema(tree, { codegen });
      assert.equal(compiled.validate(nest(50, {}, (c) => ({ child: c }))), null);
      const errors = compiled.validate(nest(100_000, {}, (c) => ({ child: c })));
      assert.deepEqual(errors?.[0]?.code, "depth");
      // The state is clean for the next call.
      assert.equal(compiled.validate({ child: {} }), null);
    });
  }

  test("maxRefDepth bounds recursion", () => {
    const compiled = compileSchema(tree, { maxRefDepth: 10 });
    assert.equal(compiled.validate(nest(5, {}, (c) => ({ child: c }))), null);
    assert.equal(compiled.validate(nest(20, {}, (c) => ({ child: c })))?.[0]?.code, "depth");
  });

  test("deeply nested const comparison does not crash", () => {
    const compiled = compileSchema({ const: { a: 1 } });
    const errors = compiled.validate(nest(200_000, 1, (c) => ({ a: c })));
    assert.ok(errors !== null && errors.length === 1);
  });

  test("uniqueItems on a large array finds the duplicate (hashing, not pairwise)", () => {
    const list: unknown[] = Array.from({ length: 50_000 }, (_, i) => ({ id: i, tags: [i % 7] }));
    const compiled = compileSchema(t.array(t.unknown(), { uniqueItems: true }));
    assert.equal(compiled.validate(list), null);
    list.push({ tags: [3], id: 3 }); // same as item 3, keys in another order
    assert.deepEqual(compiled.validate(list), [{ field: "[50000]", code: "uniqueItems", message: "must not contain duplicate items" }]);
  });

  test("uniqueItems distinguishes 1 from \"1\" and true from \"true\"", () => {
    const compiled = compileSchema({ uniqueItems: true });
    assert.equal(compiled.validate([1, "1", true, "true", null, "null"]), null);
    assert.notEqual(compiled.validate([1, 1.0]), null);
  });

  test("a hostile body cannot make the error list huge", () => {
    const compiled = compileSchema(t.object({ a: t.string() }, { additionalProperties: false }));
    const body: Record<string, number> = {};
    for (let i = 0; i < 10_000; i++) body[`k${i}`] = i;
    assert.equal(compiled.validate(body)?.length, 100);
  });

  test("$ref cycles compile and terminate", () => {
    const selfRef = compileSchema({ $ref: "#" });
    assert.equal(selfRef.validate(1)?.[0]?.code, "depth");
    const mutual = compileSchema({ $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" });
    assert.equal(mutual.validate({})?.[0]?.code, "depth");
  });

  test("patterns are compiled with the u flag (code points, \\p classes)", () => {
    const compiled = compileSchema(t.string({ pattern: "^\\p{Lu}.$" }));
    assert.equal(compiled.validate("A😀"), null);
    assert.notEqual(compiled.validate("a😀"), null);
  });

  test("inherited Object.prototype names are not mistaken for properties", () => {
    const schema = t.object({ constructor: t.string(), toString: t.optional(t.integer()) });
    for (const codegen of [true, false]) {
      const compiled = compileSchema(schema, { codegen });
      assert.deepEqual(compiled.validate({}), [{ field: "constructor", code: "required", message: "is required" }]);
    }
  });

  test("format checks stay linear on long hostile strings", () => {
    // No timing assertion (see DESIGN.md): a backtracking regex here would take minutes, not finish.
    const hostile = ["a".repeat(50_000) + "!", "a-".repeat(25_000) + "@", `x@${"a-".repeat(20_000)}!`, `${"1:".repeat(20_000)}x`, `P${"1".repeat(50_000)}X`];
    for (const [name, check] of schemaFormats) {
      for (const s of hostile) assert.equal(typeof check(s), "boolean", name);
    }
  });

  test("invalid schemas fail at compile time with a clear error", () => {
    assert.throws(() => compileSchema({ $ref: "#/$defs/missing" }), /cannot resolve \$ref/);
    assert.throws(() => compileSchema({ type: "strnig" }), /unknown JSON Schema type/);
  });
});
