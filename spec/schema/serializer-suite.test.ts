// The serializer against the official JSON Schema Test Suite (draft 2020-12): for every schema it
// compiles and every instance the suite calls valid, it must write (a valid value always fits its
// shape), write JSON, write what it wrote again when given its own output (nothing left to drop),
// and, for a schema with nothing to leave out (no object or array keywords), write exactly what
// JSON.stringify writes. Instances the suite calls invalid may be written (the serializer checks
// shape, not value rules) but may only fail with SerializationMismatch.
// Data comes from KEEL_CONFORMANCE_DIR or ../shared/conformance (never copied into the repo).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { compileSerializer, SerializationMismatch, type JsonSchema } from "../../lib/json-schema/index.js";

const repo = resolve(fileURLToPath(new URL(".", import.meta.url)), "../..");
const conformance = process.env["KEEL_CONFORMANCE_DIR"] ?? resolve(repo, "../shared/conformance");
const tests2020 = join(conformance, "json-schema-test-suite", "tests", "draft2020-12");

interface SuiteCase {
  description: string;
  schema: JsonSchema;
  tests: Array<{ description: string; data: unknown; valid: boolean }>;
}

/** Keywords whose presence means the writer may leave something out, or choose a branch. */
const SHAPING = /"(properties|additionalProperties|patternProperties|items|prefixItems|anyOf|oneOf|required|\$ref|\$dynamicRef|allOf|not|if|unevaluatedProperties|unevaluatedItems|dependentSchemas|contains|propertyNames)"/;

test("serializer: JSON Schema Test Suite (draft 2020-12) valid instances", { skip: !existsSync(tests2020) && "conformance data not found" }, () => {
  let written = 0;
  let skippedSchemas = 0;
  let invalidWritten = 0;
  const failures: string[] = [];
  for (const file of readdirSync(tests2020).filter((f) => f.endsWith(".json")).sort()) {
    const cases = JSON.parse(readFileSync(join(tests2020, file), "utf8")) as SuiteCase[];
    for (const c of cases) {
      const where = `${file} > ${c.description}`;
      let write: (v: unknown) => string;
      try {
        write = compileSerializer(c.schema);
      } catch (err) {
        // Remote refs, $id-based refs and other keywords the serializer refuses at compile time.
        if (!(err instanceof TypeError) && !(err instanceof Error)) throw err;
        skippedSchemas++;
        continue;
      }
      // An object schema lists what goes out (none listed: `{}`), so only schemas that shape no
      // object or array must match JSON.stringify exactly.
      const text = JSON.stringify(c.schema);
      const plain = !SHAPING.test(text) && !/"(object|array)"/.test(text);
      for (const t of c.tests) {
        const at = `${where} > ${t.description}`;
        let out: string;
        try {
          out = write(t.data);
        } catch (err) {
          if (!(err instanceof SerializationMismatch)) failures.push(`${at}: threw ${(err as Error).name}: ${(err as Error).message}`);
          else if (t.valid) failures.push(`${at}: valid instance refused: ${err.describe()}`);
          continue;
        }
        if (!t.valid) {
          invalidWritten++;
          continue;
        }
        written++;
        let parsed: unknown;
        try {
          parsed = JSON.parse(out);
        } catch {
          failures.push(`${at}: not JSON: ${out.slice(0, 80)}`);
          continue;
        }
        try {
          if (write(parsed) !== out) failures.push(`${at}: its own output is written differently`);
        } catch (err) {
          failures.push(`${at}: its own output is refused: ${(err as Error).message}`);
        }
        if (plain && out !== JSON.stringify(t.data)) failures.push(`${at}: ${out} differs from JSON.stringify ${JSON.stringify(t.data)}`);
      }
    }
  }
  console.log(`serializer suite: ${written} valid instances written, ${invalidWritten} invalid ones written (shape only), ${skippedSchemas} schemas not compiled`);
  assert.deepEqual(failures, []);
  assert.ok(written > 500, `only ${written} instances written: the suite was not read`);
});
