// `t` produces plain JSON Schema 2020-12 (what OpenAPI will print), with the spec's rule options
// mapped onto standard keywords.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { asyncUnique, isOptionalSchema, publicSchema, schemaName, t } from "../../lib/json-schema/index.js";

const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe("t builder", () => {
  test("create-user body", () => {
    const schema = t.object({ email: t.string({ email: true }), password: t.string({ length: { min: 8 } }) });
    assert.deepEqual(json(schema), {
      type: "object",
      properties: { email: { type: "string", format: "email" }, password: { type: "string", minLength: 8 } },
      required: ["email", "password"],
    });
  });

  test("optional properties are left out of required, and the marker is invisible to JSON", () => {
    const schema = t.object({ a: t.string(), b: t.optional(t.integer()) });
    assert.deepEqual(schema["required"], ["a"]);
    const b = (schema["properties"] as Record<string, unknown>)["b"];
    assert.equal(isOptionalSchema(b), true);
    assert.deepEqual(json(b), { type: "integer" });
    assert.equal(Object.keys(b as object).length, 1);
  });

  test("integer widths carry ranges and OpenAPI formats", () => {
    assert.deepEqual(json(t.u64()), { type: "integer", format: "int64", minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
    assert.deepEqual(json(t.i32()), { type: "integer", format: "int32", minimum: -2147483648, maximum: 2147483647 });
    assert.deepEqual(json(t.u32({ maximum: 10 })), { type: "integer", format: "int64", minimum: 0, maximum: 10 });
  });

  test("spec rules with messages: length, email, range, regex", () => {
    assert.deepEqual(json(t.string({ length: { min: 2, max: 5, message: "2 to 5" } })), {
      type: "string", minLength: 2, maxLength: 5, "x-messages": { length: "2 to 5" },
    });
    assert.deepEqual(json(t.string({ email: { message: "bad" } })), { type: "string", format: "email", "x-messages": { email: "bad" } });
    assert.deepEqual(json(t.integer({ range: { min: 1, max: 9, message: "1-9" } })), {
      type: "integer", minimum: 1, maximum: 9, "x-messages": { range: "1-9" },
    });
    assert.deepEqual(json(t.string({ regex: "^a" })), { type: "string", pattern: "^a" });
    assert.deepEqual(json(t.string({ minLength: 1, message: "any" })), { type: "string", minLength: 1, "x-message": "any" });
  });

  test("annotations pass through", () => {
    assert.deepEqual(json(t.string({ description: "d", title: "T", examples: ["x"], default: "x", deprecated: true })), {
      type: "string", title: "T", description: "d", examples: ["x"], deprecated: true, default: "x",
    });
  });

  test("literal, enum, union, nullable, record, tuple, array", () => {
    assert.deepEqual(json(t.literal("a")), { type: "string", const: "a" });
    assert.deepEqual(json(t.literal(null)), { const: null });
    assert.deepEqual(json(t.enum(["a", "b"])), { type: "string", enum: ["a", "b"] });
    assert.deepEqual(json(t.enum(["a", 1])), { enum: ["a", 1] });
    assert.deepEqual(json(t.union([t.string(), t.integer()])), { anyOf: [{ type: "string" }, { type: "integer" }] });
    assert.deepEqual(json(t.nullable(t.string({ minLength: 1 }))), { type: ["string", "null"], minLength: 1 });
    assert.deepEqual(json(t.nullable(t.enum(["a"]))), { anyOf: [{ type: "string", enum: ["a"] }, { type: "null" }] });
    assert.deepEqual(json(t.record(t.integer())), { type: "object", additionalProperties: { type: "integer" } });
    assert.deepEqual(json(t.tuple([t.string(), t.integer()])), {
      type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false, minItems: 2,
    });
    assert.deepEqual(json(t.array(t.string(), { maxItems: 3, uniqueItems: true })), { type: "array", items: { type: "string" }, maxItems: 3, uniqueItems: true });
  });

  test("object options: additionalProperties and counts", () => {
    assert.deepEqual(json(t.object({}, { additionalProperties: false, maxProperties: 3 })), {
      type: "object", properties: {}, additionalProperties: false, maxProperties: 3,
    });
  });

  test("named schemas and refs (components.schemas)", () => {
    const User = t.named("User", t.object({ id: t.u64() }));
    assert.equal(schemaName(User), "User");
    assert.equal(schemaName(t.object({})), undefined);
    assert.deepEqual(json(t.ref(User)), { $ref: "#/components/schemas/User" });
    assert.deepEqual(json(t.ref("Tree")), { $ref: "#/components/schemas/Tree" });
    assert.throws(() => t.named("bad name", t.string()), /must match/);
    assert.throws(() => t.ref(t.string()), /t\.named/);
  });

  test("async rules are stored as x-keel-async", () => {
    assert.deepEqual(json(t.string({ async: [asyncUnique({ table: "users", column: "email" })] })), {
      type: "string", "x-keel-async": [{ kind: "unique", table: "users", column: "email" }],
    });
  });
});

describe("publicSchema", () => {
  test("drops x-keel-async, keeps the rest and the name marker", () => {
    const User = t.named("User", t.object({ email: t.string({ email: { message: "bad" }, async: [asyncUnique({ table: "users", column: "email" })] }) }));
    const published = publicSchema(User);
    assert.deepEqual(json(published), {
      type: "object",
      properties: { email: { type: "string", format: "email", "x-messages": { email: "bad" } } },
      required: ["email"],
    });
    assert.equal(schemaName(published), "User");
    assert.ok(JSON.stringify(User).includes("x-keel-async"), "the original is untouched");
  });
});
