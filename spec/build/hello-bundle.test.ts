// The schema seam, measured where it matters: a hello app (App + route + listen, minified and
// tree-shaken by esbuild) carries the kernel's code generator and response serializer but none
// of keel/schema's engine; and importing any keel/schema name, even only `t`, keeps the
// statement that registers the engine.
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
    // The kernel's own schema code is there (response contracts): the marks are not vacuous.
    const full = await bundle(`export * from "./lib/json-schema/index.ts";`);
    for (const mark of ENGINE_MARKS) assert.ok(full.includes(mark), `keel/schema bundle lacks ${mark}`);
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
