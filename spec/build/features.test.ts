// The build-time feature table (scripts/features.mjs) and the package entry table: names expand
// to the right features, unknown names are refused with the valid ones listed, `requires`
// covers every other feature a feature's code runs, and package.json's `exports` is the table.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { build as esbuild } from "esbuild";
import { buildScript, explain, root, run } from "./build-support.js";

interface Feature {
  name: string;
  entry: string;
  requires: string[];
  description: string;
}
interface FeaturesModule {
  FEATURES: Feature[];
  GROUPS: Record<string, string[]>;
  PACKAGE_ENTRIES: Array<{ subpath: string; entry: string; out: string }>;
  resolveFeatures(names: string[]): Feature[];
  validFeatureNames(): string[];
  packageExports(): Record<string, { types: string; default: string }>;
  FeatureError: new (message: string) => Error;
}
// A .mjs build script: loaded by URL so the strict project needs no declarations for it.
const features = (await import(pathToFileURL(join(root, "scripts/features.mjs")).href)) as FeaturesModule;
const names = (list: string[]): string[] => features.resolveFeatures(list).map((f) => f.name);

describe("build-time features", () => {
  it("each feature is an existing index.ts under lib/ with a description; kernel first", () => {
    assert.equal(features.FEATURES[0]?.name, "kernel");
    assert.equal(features.FEATURES[0]?.entry, "lib/index.ts");
    const seen = new Set<string>();
    for (const f of features.FEATURES) {
      assert.ok(!seen.has(f.name), `${f.name} listed twice`);
      seen.add(f.name);
      assert.match(f.entry, f.name === "plugin" ? /^lib\/plugin\.ts$/ : /^lib\/(.+\/)?index\.ts$/, f.name);
      assert.ok(existsSync(join(root, f.entry)), `${f.name}: ${f.entry} exists`);
      assert.ok(f.description.length > 10, `${f.name} has a description`);
      for (const dep of f.requires) assert.ok(features.FEATURES.some((g) => g.name === dep && dep !== "kernel"), `${f.name} requires unknown ${dep}`);
    }
  });

  it("expands names: the kernel is always in, required features come along, order is the table's", () => {
    assert.deepEqual(names(["kernel"]), ["kernel"]);
    assert.deepEqual(names(["cors"]), ["kernel", "cors"]);
    assert.deepEqual(names(["jwt"]), ["kernel", "jose", "jwt", "guards"]);
    assert.deepEqual(names(["rate-limit", "openapi"]), ["kernel", "openapi", "client-ip", "stores", "rate-limit"]);
    assert.deepEqual(names([" cors ", "cors", ""]), ["kernel", "cors"]);
  });

  it("expands groups: auth, middleware (every layer plus stores), all", () => {
    assert.deepEqual(names(["auth"]), ["kernel", "jose", "jwt", "guards", "api-key", "oauth2"]);
    const middleware = names(["middleware"]);
    const layerFolders = features.FEATURES.filter((f) => f.entry.startsWith("lib/middleware/")).map((f) => f.name);
    assert.ok(layerFolders.length >= 12);
    assert.deepEqual(new Set(middleware), new Set(["kernel", ...layerFolders, "stores"]));
    assert.deepEqual(names(["all"]), features.FEATURES.map((f) => f.name));
    assert.deepEqual(features.GROUPS["all"], features.FEATURES.map((f) => f.name));
  });

  it("refuses unknown names (and an empty list) with the valid names listed", () => {
    for (const list of [["nope"], ["cors", "nope", "bad"], [""]]) {
      assert.throws(() => features.resolveFeatures(list), (err: unknown) => {
        assert.ok(err instanceof features.FeatureError);
        for (const valid of ["kernel", "openapi", "rate-limit", "auth", "middleware", "all"]) assert.ok(err.message.includes(valid), `${err.message} lists ${valid}`);
        return true;
      });
    }
    assert.throws(() => features.resolveFeatures(["cors", "nope", "bad"]), /unknown features nope, bad \(valid: kernel, plugin, schema, /);
  });

  it("covers every feature folder under lib/ (each middleware layer and auth part is its own)", () => {
    const folders = features.FEATURES.filter((f) => f.name !== "kernel").map((f) => dirname(f.entry));
    for (const group of ["lib/auth", "lib/middleware"]) {
      const parts = readFileSync(join(root, group, "index.ts"), "utf8").matchAll(/from "\.\/([\w-]+)\/index\.js"/g);
      for (const m of parts) assert.ok(folders.includes(`${group}/${m[1]}`), `${group}/${m[1]} is a feature`);
    }
  });

  it("`requires` names every other feature whose code a feature's entry pulls in; the kernel pulls in none", async () => {
    const inputsOf = async (entry: string): Promise<string[]> => {
      const result = await esbuild({
        absWorkingDir: root,
        entryPoints: [entry],
        bundle: true,
        platform: "node",
        format: "esm",
        external: ["node:*"],
        write: false,
        metafile: true,
        outfile: "out.js",
        logLevel: "silent",
      });
      return Object.keys(result.metafile.inputs);
    };
    const kernelInputs = await inputsOf("lib/index.ts");
    // A feature whose folder the kernel itself is built from (schema: extra names of lib/schema;
    // plugin: more names of the kernel's own files) owns no code of its own.
    const owning = features.FEATURES.filter((f) => f.name !== "kernel" && !kernelInputs.some((i) => i.startsWith(dirname(f.entry) + "/")));
    assert.ok(owning.length >= features.FEATURES.length - 3);
    const folderOf = (file: string): string | undefined =>
      owning
        .filter((f) => file.startsWith(dirname(f.entry) + "/"))
        .sort((a, b) => b.entry.length - a.entry.length)
        .map((f) => f.name)[0];
    for (const feature of features.FEATURES) {
      const allowed = new Set(names([feature.name]));
      for (const input of await inputsOf(feature.entry)) {
        const owner = folderOf(input);
        if (owner !== undefined) assert.ok(allowed.has(owner), `${feature.name} bundles ${input} (feature ${owner}) but does not require ${owner}`);
      }
    }
  });

  it("package.json exports are the package entry table (types from dist/types, code from dist/pkg)", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      exports: unknown;
      main: string;
      types: string;
      scripts: Record<string, string>;
    };
    assert.deepEqual(pkg.exports, features.packageExports());
    const subpaths = features.PACKAGE_ENTRIES.map((e) => e.subpath);
    for (const s of [".", "./schema", "./openapi", "./toon", "./jose", "./auth", "./middleware", "./jobs", "./service", "./db-errors"]) assert.ok(subpaths.includes(s), s);
    for (const e of features.PACKAGE_ENTRIES) assert.ok(existsSync(join(root, e.entry)), e.entry);
    assert.equal(pkg.main, "./dist/pkg/index.js");
    assert.equal(pkg.types, "./dist/types/index.d.ts");
    assert.equal(pkg.scripts["dev"], "tsx lib/sample/main.ts");
    assert.equal(pkg.scripts["start"], "node scripts/start-build.mjs && node dist/server.js");
  });

  it("the build refuses an unknown feature before writing anything, listing the valid names", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "keel-features-"));
    try {
      const out = join(scratch, "dist");
      const r = await run([buildScript, "--features", "openapi,nope", "--outdir", out], root);
      assert.equal(r.status, 1, explain(r));
      assert.match(r.stderr, /^build failed: unknown feature nope \(valid: kernel, plugin, schema, openapi, .*, auth, middleware, web, all\)$/m);
      assert.ok(!existsSync(out), "nothing written");
      const empty = await run([buildScript, "--features"], root);
      assert.equal(empty.status, 1, explain(empty));
      assert.match(empty.stderr, /--features needs a value/);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
