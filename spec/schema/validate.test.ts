// Field errors: codes, paths, messages, all rules reported, the cap. Every case runs on both
// engines (generated code and the closure compiler) and they must agree exactly.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileSchema, t, type CompileOptions, type FieldError, type JsonSchema } from "../../lib/json-schema/index.js";

const engines = [
  { name: "codegen", codegen: true },
  { name: "closures", codegen: false },
] as const;

function check(schema: JsonSchema, value: unknown, options: CompileOptions = {}): FieldError[] | null {
  const results = engines.map((e) => compileSchema(schema, { ...options, codegen: e.codegen }).validate(value));
  assert.deepEqual(results[0], results[1], "codegen and closure engines must report the same items");
  return results[0] ?? null;
}

const CreateUser = t.object({
  email: t.string({ email: true }),
  password: t.string({ length: { min: 8 } }),
});

describe("field errors", () => {
  test("valid values give null", () => {
    assert.equal(check(CreateUser, { email: "ada@example.com", password: "correct horse" }), null);
  });

  test("create-user: one item per failed rule with spec codes", () => {
    assert.deepEqual(check(CreateUser, { email: "nope", password: "short" }), [
      { field: "email", code: "email", message: "must be a valid email address" },
      { field: "password", code: "length", message: "must be at least 8 characters" },
    ]);
  });

  test("missing properties are `required` on the property's own field", () => {
    assert.deepEqual(check(CreateUser, {}), [
      { field: "email", code: "required", message: "is required" },
      { field: "password", code: "required", message: "is required" },
    ]);
  });

  test("root errors use the empty field", () => {
    assert.deepEqual(check(CreateUser, "not an object"), [{ field: "", code: "type", message: "must be an object" }]);
    assert.deepEqual(check(t.u64(), -1), [{ field: "", code: "range", message: "must be at least 0" }]);
  });

  test("nested paths: address.city and items[2].name", () => {
    const schema = t.object({
      address: t.object({ city: t.string({ minLength: 1 }) }),
      items: t.array(t.object({ name: t.string() })),
    });
    const errors = check(schema, { address: { city: "" }, items: [{ name: "a" }, { name: "b" }, { name: 3 }] });
    assert.deepEqual(errors, [
      { field: "address.city", code: "length", message: "must be at least 1 character" },
      { field: "items[2].name", code: "type", message: "must be a string" },
    ]);
  });

  test("odd property names are quoted in the field", () => {
    const schema = t.object({ "a b": t.integer() });
    assert.deepEqual(check(schema, { "a b": "x" }), [{ field: '["a b"]', code: "type", message: "must be an integer" }]);
  });

  test("range, regex, enum, format, type codes", () => {
    const schema = t.object({
      age: t.integer({ range: { min: 18, max: 99 } }),
      zip: t.string({ regex: "^[0-9]{5}$" }),
      role: t.enum(["admin", "user"]),
      id: t.uuid(),
      n: t.number({ maximum: 10 }),
    });
    const errors = check(schema, { age: 7, zip: "12a45", role: "root", id: "123", n: "5" });
    assert.deepEqual(errors?.map((e) => [e.field, e.code]), [
      ["age", "range"], ["zip", "regex"], ["role", "enum"], ["id", "format"], ["n", "type"],
    ]);
    assert.equal(errors?.[2]?.message, 'must be one of: "admin", "user"');
    assert.equal(errors?.[3]?.message, "must be a valid uuid");
  });

  test("several failed rules on one field are all reported", () => {
    const schema = t.string({ minLength: 10, pattern: "^[a-z]+$" });
    assert.deepEqual(check(schema, "AB")?.map((e) => e.code), ["length", "regex"]);
  });

  test("exclusive bounds and maximum messages", () => {
    assert.equal(check(t.number({ exclusiveMinimum: 0 }), 0)?.[0]?.message, "must be greater than 0");
    assert.equal(check(t.integer({ maximum: 5 }), 6)?.[0]?.message, "must be at most 5");
  });

  test("unknown properties: additionalProperties false reports each one", () => {
    const schema = t.object({ a: t.string() }, { additionalProperties: false });
    assert.deepEqual(check(schema, { a: "x", b: 1, c: 2 }), [
      { field: "b", code: "additionalProperties", message: "is not an allowed property" },
      { field: "c", code: "additionalProperties", message: "is not an allowed property" },
    ]);
    assert.equal(check(t.object({ a: t.string() }), { a: "x", b: 1 }), null, "allowed by default");
  });

  test("custom messages: per rule and per field", () => {
    const schema = t.object({
      password: t.string({ length: { min: 8, message: "too short" }, regex: { pattern: "[0-9]", message: "needs a digit" } }),
      email: t.string({ email: { message: "bad email" } }),
      name: t.string({ minLength: 2, message: "name is invalid" }),
      nick: t.string({ messages: { required: "nick please" } }),
    });
    assert.deepEqual(check(schema, { password: "abc", email: "x", name: "" }), [
      { field: "nick", code: "required", message: "nick please" },
      { field: "password", code: "length", message: "too short" },
      { field: "password", code: "regex", message: "needs a digit" },
      { field: "email", code: "email", message: "bad email" },
      { field: "name", code: "length", message: "name is invalid" },
    ]);
  });

  test("errors are capped (default 100, configurable)", () => {
    const schema = t.array(t.integer());
    const value = Array.from({ length: 1000 }, () => "x");
    assert.equal(check(schema, value)?.length, 100);
    assert.equal(check(schema, value, { maxErrors: 3 })?.length, 3);
  });

  test("array and object count rules use the keyword as code", () => {
    assert.deepEqual(check(t.array(t.string(), { minItems: 2 }), ["a"]), [{ field: "", code: "minItems", message: "must have at least 2 items" }]);
    assert.deepEqual(check(t.array(t.integer(), { uniqueItems: true }), [1, 2, 1]), [{ field: "[2]", code: "uniqueItems", message: "must not contain duplicate items" }]);
  });

  test("unions and nullables", () => {
    const schema = t.object({ v: t.union([t.string(), t.integer()]), n: t.nullable(t.string()) });
    assert.equal(check(schema, { v: 1, n: null }), null);
    assert.deepEqual(check(schema, { v: true, n: 2 })?.map((e) => [e.field, e.code]), [["v", "anyOf"], ["n", "type"]]);
  });

  test("raw JSON Schema is accepted too", () => {
    const raw = { type: "object", properties: { x: { type: "integer", minimum: 1 } }, required: ["x"] };
    assert.deepEqual(check(raw, { x: 0 }), [{ field: "x", code: "range", message: "must be at least 1" }]);
  });

  test("errors inside $ref'd and applicator subschemas keep their path", () => {
    const schema = {
      $defs: { item: { type: "object", properties: { name: { type: "string" } } } },
      type: "object",
      properties: { list: { type: "array", items: { $ref: "#/$defs/item" } }, both: { allOf: [{ minimum: 3 }] } },
    };
    assert.deepEqual(check(schema, { list: [{ name: "a" }, { name: 1 }], both: 1 })?.map((e) => e.field), ["list[1].name", "both"]);
  });

  test("t.ref to a named schema validates through it", () => {
    const Address = t.named("Address", t.object({ city: t.string() }));
    const schema = t.object({ home: t.ref(Address) });
    assert.deepEqual(check(schema, { home: { city: 1 } }), [{ field: "home.city", code: "type", message: "must be a string" }]);
  });

  test("recursive named schema through components", () => {
    const Tree = t.named("Tree", t.object({ children: t.optional(t.array(t.ref("Tree"))) }));
    const options = { components: { Tree } };
    assert.equal(check(Tree, { children: [{ children: [] }] }, options), null);
    assert.deepEqual(check(Tree, { children: [{ children: [1] }] }, options)?.map((e) => e.field), ["children[0].children[0]"]);
  });

  test("is() narrows", () => {
    const compiled = compileSchema(CreateUser);
    const value: unknown = { email: "a@b.co", password: "12345678" };
    assert.equal(compiled.is(value), true);
    if (compiled.is(value)) assert.equal(value.email, "a@b.co");
  });

  test("formats can be annotations only", () => {
    assert.equal(compileSchema(t.string({ format: "email" }), { formats: "annotate" }).validate("nope"), null);
    assert.notEqual(compileSchema(t.string({ format: "email" })).validate("nope"), null);
  });
});
