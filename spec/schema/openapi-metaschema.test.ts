// The OpenAPI 3.1 meta-schema (schema-base.json: $dynamicRef, unevaluatedProperties) compiled by
// our validator must accept upstream's pass documents and reject the fail ones. The lead's OpenAPI
// generator can then check its own output with it.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { compileSchema, SchemaRegistry, type JsonSchema } from "../../lib/json-schema/index.js";

const repo = resolve(fileURLToPath(new URL(".", import.meta.url)), "../..");
const conformance = process.env["KEEL_CONFORMANCE_DIR"] ?? resolve(repo, "../shared/conformance");
const oas = join(conformance, "openapi/v3.1");
const metas = join(conformance, "json-schema-metaschemas/draft2020-12");
const present = existsSync(join(oas, "schema-base.json")) && existsSync(metas);

const readJson = (path: string): JsonSchema => JSON.parse(readFileSync(path, "utf8")) as JsonSchema;

test("OpenAPI 3.1 schema-base.json validates upstream fixtures", { skip: present ? false : `OpenAPI conformance data not found at ${oas}` }, () => {
  const registry = new SchemaRegistry();
  registry.add(readJson(join(metas, "schema.json")));
  for (const f of readdirSync(join(metas, "meta"))) registry.add(readJson(join(metas, "meta", f)));
  for (const f of ["meta.json", "dialect.json", "schema.json"]) registry.add(readJson(join(oas, f)));
  // Formats stay annotations: asserting uri-reference would reject templated server URLs.
  const validator = compileSchema(readJson(join(oas, "schema-base.json")), { registry, formats: "annotate" });
  const wrong: string[] = [];
  let count = 0;
  for (const kind of ["pass", "fail"] as const) {
    for (const file of readdirSync(join(oas, "tests-json", kind)).sort()) {
      // Upstream's fixture names an unpublished dialect; the README says to substitute the published one.
      const text = readFileSync(join(oas, "tests-json", kind, file), "utf8").replaceAll("WORK-IN-PROGRESS", "2024-11-10");
      const errors = validator.validate(JSON.parse(text));
      count++;
      if ((errors === null) !== (kind === "pass")) wrong.push(`${kind}/${file}: ${JSON.stringify(errors)?.slice(0, 200)}`);
    }
  }
  console.log(`openapi 3.1 schema-base: ${count - wrong.length} of ${count} fixtures agree`);
  assert.ok(count >= 46, `expected the 46 upstream fixtures, found ${count}`);
  assert.deepEqual(wrong, []);
});
