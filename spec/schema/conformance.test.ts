// Runs the official JSON Schema Test Suite (draft 2020-12) against compileSchema.
// Required tests and the formats keel claims are assertions; the rest of optional/ is reported only.
// Data comes from KEEL_CONFORMANCE_DIR or ../shared/conformance (never copied into the repo).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { schemaFormats, compileSchema, SchemaRegistry, type JsonSchema } from "../../lib/json-schema/index.js";

const repo = resolve(fileURLToPath(new URL(".", import.meta.url)), "../..");
const conformance = process.env["KEEL_CONFORMANCE_DIR"] ?? resolve(repo, "../shared/conformance");
const suite = join(conformance, "json-schema-test-suite");
const tests2020 = join(suite, "tests/draft2020-12");

interface SuiteTest { description: string; data: unknown; valid: boolean }
interface SuiteCase { description: string; schema: JsonSchema; tests: SuiteTest[] }
interface FileResult { file: string; passed: number; failed: string[]; skipped: number }

/** Tests we skip on purpose: "file > case > test" (test "*" = the whole case), with the reason. */
const SKIPS: Record<string, string> = {
  // IDNA2008 (RFC 5892) code-point tables and CONTEXTJ/CONTEXTO rules are not implemented: we check
  // hostname syntax and that A-labels are valid punycode, not what they decode to.
};

function skipReason(file: string, caseDesc: string, testDesc: string): string | undefined {
  return SKIPS[`${file} > ${caseDesc} > ${testDesc}`] ?? SKIPS[`${file} > ${caseDesc} > *`];
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

function listJson(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith(".json")).sort().map((f) => join(dir, f));
}

function buildRegistry(): SchemaRegistry {
  const registry = new SchemaRegistry();
  const metas = join(conformance, "json-schema-metaschemas");
  for (const path of [join(metas, "draft2020-12/schema.json"), ...listJson(join(metas, "draft2020-12/meta"))]) {
    registry.add(readJson(path) as JsonSchema);
  }
  registry.add(readJson(join(metas, "draft-07/schema.json")) as JsonSchema, "http://json-schema.org/draft-07/schema");
  const remotes = join(suite, "remotes");
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(".json")) {
        registry.add(readJson(full) as JsonSchema, `http://localhost:1234/${relative(remotes, full).split("\\").join("/")}`);
      }
    }
  };
  walk(remotes);
  return registry;
}

function runFile(path: string, registry: SchemaRegistry, formats: "assert" | "annotate", label: string, codegen = true): FileResult {
  const result: FileResult = { file: label, passed: 0, failed: [], skipped: 0 };
  for (const c of readJson(path) as SuiteCase[]) {
    let validate: ((v: unknown) => boolean) | undefined;
    let compileError: unknown;
    try {
      const compiled = compileSchema(c.schema, { registry, formats, codegen });
      validate = (v) => compiled.validate(v) === null;
    } catch (error) {
      compileError = error;
    }
    for (const t of c.tests) {
      if (skipReason(label, c.description, t.description) !== undefined) {
        result.skipped++;
        continue;
      }
      let outcome: string;
      try {
        if (validate === undefined) throw compileError;
        const valid = validate(t.data);
        outcome = valid === t.valid ? "ok" : `expected ${t.valid ? "valid" : "invalid"}`;
      } catch (error) {
        outcome = `threw ${(error as Error).message}`;
      }
      if (outcome === "ok") result.passed++;
      else result.failed.push(`${c.description} > ${t.description}: ${outcome}`);
    }
  }
  return result;
}

function summary(group: string, results: FileResult[]): string {
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed.length, 0);
  const skipped = results.reduce((n, r) => n + r.skipped, 0);
  return `json-schema 2020-12 ${group}: ${passed} passed, ${failed} failed, ${skipped} skipped`;
}

const present = existsSync(tests2020);

test("JSON Schema Test Suite 2020-12", { skip: present ? false : `conformance data not found at ${suite} (set KEEL_CONFORMANCE_DIR)` }, async (t) => {
  const registry = buildRegistry();
  if (Object.keys(SKIPS).length > 0) {
    console.log("skipped on purpose:");
    for (const [key, reason] of Object.entries(SKIPS)) console.log(`  ${key}: ${reason}`);
  }

  const required = listJson(tests2020).map((p) => runFile(p, registry, "annotate", relative(tests2020, p)));
  console.log(summary("required", required));
  for (const r of required) {
    await t.test(`required ${r.file}`, () => {
      assert.deepEqual(r.failed, [], `${r.file}: ${r.failed.length} failed`);
    });
  }

  // The same suite with code generation off: the closure compiler alone must conform too.
  const closures = listJson(tests2020).map((p) => runFile(p, registry, "annotate", relative(tests2020, p), false));
  console.log(summary("required (closure compiler only)", closures));
  await t.test("required, closure compiler only", () => {
    assert.deepEqual(closures.flatMap((r) => r.failed.map((f) => `${r.file}: ${f}`)), []);
  });

  const formatDir = join(tests2020, "optional/format");
  const formatResults = listJson(formatDir).map((p) => runFile(p, registry, "assert", relative(tests2020, p)));
  const claimed = formatResults.filter((r) => schemaFormats.has(r.file.replace(/^optional\/format\//, "").replace(/\.json$/, "")));
  const unclaimed = formatResults.filter((r) => !claimed.includes(r));
  console.log(summary("optional/format (claimed formats)", claimed));
  for (const r of claimed) {
    await t.test(`format ${r.file}`, () => {
      assert.deepEqual(r.failed, [], `${r.file}: ${r.failed.length} failed`);
    });
  }
  console.log(summary("optional/format (unclaimed, not asserted)", unclaimed));
  for (const r of unclaimed) console.log(`  ${r.file}: ${r.passed} passed, ${r.failed.length} failed`);

  const optional = listJson(join(tests2020, "optional")).map((p) => runFile(p, registry, "annotate", relative(tests2020, p)));
  console.log(summary("optional (not asserted)", optional));
  for (const r of optional) {
    console.log(`  ${r.file}: ${r.passed} passed, ${r.failed.length} failed`);
    for (const f of r.failed) console.log(`    - ${f}`);
  }
});
