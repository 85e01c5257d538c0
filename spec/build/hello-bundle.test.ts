// The schema seams, measured where they matter: a hello app (App + route + listen, minified and
// tree-shaken by esbuild) carries none of keel/schema's engine, and, declaring no schema, none of
// the kernel's code generator or response serializer either (response contracts reach them
// through what builds schemas: lib/schema/contract-compilers.ts); and importing any keel/schema
// name, even only `t`, keeps the statement that registers the engine.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { build as esbuild } from "esbuild";
import { root } from "./build-support.js";

/** Strings only lib/json-schema/ holds: its closure compiler, registry, async rules and long-tail formats. */
const ENGINE_MARKS = [
  "json-schema.org/draft/2020-12/vocab", // compile-context.ts: dialects
  "is not an allowed item", // keywords-applicator.ts: unevaluatedItems
  "matching item", // keywords-array.ts: contains
  "keel.invalid/schema-", // registry.ts: anonymous bases
  "missing_adapter", // async-rules.ts
  "[0-9]+W", // formats.ts: duration
];

async function bundle(contents: string): Promise<string> {
  const result = await esbuild({
    stdin: { contents, resolveDir: root, loader: "ts", sourcefile: "app.ts" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    minify: true,
    treeShaking: true,
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

describe("hello bundle and the schema seam", () => {
  it("a hello app bundles none of keel/schema's engine", async () => {
    const code = await bundle(
      `import { App, route } from "./lib/index.ts"; const app = new App().routes(route.get("/hello", {}, [], async () => ({ hello: "world" }))); await app.listen({ port: 0 });`,
    );
    for (const mark of ENGINE_MARKS) assert.ok(!code.includes(mark), `hello bundle contains ${mark}`);
    // The marks are not vacuous: keel/schema's own bundle holds them all.
    const full = await bundle(`export * from "./lib/json-schema/index.ts";`);
    for (const mark of ENGINE_MARKS) assert.ok(full.includes(mark), `keel/schema bundle lacks ${mark}`);
  });

  it("a hello app bundles no code generator or serializer; building one schema with t brings them", async () => {
    // codegen.ts's anyOf message, serializer.ts's "the root did not fit" description.
    const KERNEL_SCHEMA_MARKS = ["must match at least one of the allowed schemas", "a value that fails its schema"];
    const hello = await bundle(`import { App, route } from "./lib/index.ts"; await new App().routes(route.get("/hello", [], () => "hi")).listen({ port: 0 });`);
    for (const mark of KERNEL_SCHEMA_MARKS) assert.ok(!hello.includes(mark), `hello bundle contains ${mark}`);
    const withT = await bundle(`import { App, route, t } from "./lib/index.ts"; await new App().routes(route.get("/hello", { responses: { 200: t.string() } }, [], () => "hi")).listen({ port: 0 });`);
    for (const mark of KERNEL_SCHEMA_MARKS) assert.ok(withT.includes(mark), `a bundle using t lacks ${mark}`);
  });

  it("importing only t from keel/schema keeps the registration: a $ref into $defs compiles", async () => {
    const code = await bundle(
      `import { t } from "./lib/json-schema/index.ts"; import { json } from "./lib/index.ts";
       json({ type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: t.string() } });
       console.log("registered");`,
    );
    const dir = mkdtempSync(join(tmpdir(), "keel-seam-"));
    try {
      writeFileSync(join(dir, "app.mjs"), code);
      assert.equal(execFileSync(process.execPath, [join(dir, "app.mjs")], { encoding: "utf8" }).trim(), "registered");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
