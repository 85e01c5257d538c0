// The validator never fails open on a dialect it does not implement: a `$schema` other than
// 2020-12 (or a registered 2020-12 dialect) is refused when the schema is compiled, in both
// engines, instead of silently switching validation off.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { compileSchema, SchemaRegistry, UnsupportedDialectError, type JsonSchema } from "../../lib/json-schema/index.js";

const repo = resolve(fileURLToPath(new URL(".", import.meta.url)), "../..");
const conformance = process.env["KEEL_CONFORMANCE_DIR"] ?? resolve(repo, "../shared/conformance");

/** The 2019-09 meta-schema's identity and vocabularies, as published (the parts the compiler reads). */
const META_2019_09 = {
  $schema: "https://json-schema.org/draft/2019-09/schema",
  $id: "https://json-schema.org/draft/2019-09/schema",
  $vocabulary: {
    "https://json-schema.org/draft/2019-09/vocab/core": true,
    "https://json-schema.org/draft/2019-09/vocab/applicator": true,
    "https://json-schema.org/draft/2019-09/vocab/validation": true,
    "https://json-schema.org/draft/2019-09/vocab/meta-data": true,
    "https://json-schema.org/draft/2019-09/vocab/format": false,
    "https://json-schema.org/draft/2019-09/vocab/content": true,
  },
  $recursiveAnchor: true,
  type: ["object", "boolean"],
} as const;

function registryWith(...schemas: JsonSchema[]): SchemaRegistry {
  const registry = new SchemaRegistry();
  for (const s of schemas) registry.add(s);
  return registry;
}

const engines = [true, false] as const;

describe("$schema dialects", () => {
  for (const codegen of engines) {
    const label = codegen ? "generated code" : "closure compiler";

    it(`${label}: a 2019-09 schema is refused even with its meta-schema registered (it used to accept "x" for an integer >= 5)`, () => {
      const registry = registryWith(META_2019_09 as unknown as JsonSchema);
      const schema = { $schema: "https://json-schema.org/draft/2019-09/schema", type: "integer", minimum: 5 } as JsonSchema;
      assert.throws(() => compileSchema(schema, { registry, codegen }), (e: unknown) => {
        assert.ok(e instanceof UnsupportedDialectError);
        assert.match(e.message, /requires the vocabulary https:\/\/json-schema\.org\/draft\/2019-09\/vocab\/core/);
        return true;
      });
    });

    it(`${label}: a 2019-09 schema without its meta-schema is refused`, () => {
      assert.throws(() => compileSchema({ $schema: "https://json-schema.org/draft/2019-09/schema", type: "integer" } as JsonSchema, { codegen }), /unsupported \$schema/);
    });

    it(`${label}: draft-07 is refused, registered or not`, () => {
      const schema = { $schema: "http://json-schema.org/draft-07/schema#", type: "string" } as JsonSchema;
      assert.throws(() => compileSchema(schema, { codegen }), UnsupportedDialectError);
      const draft07 = resolve(conformance, "json-schema-metaschemas/draft-07/schema.json");
      if (existsSync(draft07)) {
        const registry = new SchemaRegistry();
        registry.add(JSON.parse(readFileSync(draft07, "utf8")) as JsonSchema, "http://json-schema.org/draft-07/schema");
        assert.throws(() => compileSchema(schema, { registry, codegen }), /not a 2020-12 dialect/);
      }
    });

    it(`${label}: an unknown $schema URI is refused, also inside a subschema`, () => {
      assert.throws(() => compileSchema({ $schema: "https://example.com/my-dialect", type: "string" } as JsonSchema, { codegen }), UnsupportedDialectError);
      const nested = { type: "object", properties: { a: { $id: "https://example.com/a", $schema: "urn:unknown", type: "string" } } } as JsonSchema;
      assert.throws(() => compileSchema(nested, { codegen }), UnsupportedDialectError);
    });

    it(`${label}: a meta-schema that requires an unknown vocabulary is refused; an optional one is ignored`, () => {
      const meta = (id: string, required: boolean) =>
        ({
          $schema: "https://json-schema.org/draft/2020-12/schema",
          $id: id,
          $vocabulary: {
            "https://json-schema.org/draft/2020-12/vocab/core": true,
            "https://json-schema.org/draft/2020-12/vocab/validation": true,
            "https://example.com/vocab/custom": required,
          },
        }) as unknown as JsonSchema;
      const registry = registryWith(meta("https://example.com/meta-required", true), meta("https://example.com/meta-optional", false));
      assert.throws(() => compileSchema({ $schema: "https://example.com/meta-required", type: "integer" } as JsonSchema, { registry, codegen }), /requires the vocabulary https:\/\/example\.com\/vocab\/custom/);
      const ok = compileSchema({ $schema: "https://example.com/meta-optional", type: "integer", minimum: 5 } as JsonSchema, { registry, codegen });
      assert.equal(ok.validate(7), null);
      assert.notEqual(ok.validate("x"), null);
      assert.notEqual(ok.validate(3), null);
    });

    it(`${label}: 2020-12 itself, with or without an empty fragment, validates`, () => {
      for (const uri of ["https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#"]) {
        const c = compileSchema({ $schema: uri, type: "integer", minimum: 5 } as JsonSchema, { codegen });
        assert.equal(c.validate(5), null);
        assert.notEqual(c.validate("x"), null);
      }
    });
  }
});
