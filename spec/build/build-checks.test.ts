// The build's consistency guard: keel.d.ts must promise exactly the values keel.js exports.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

interface DtsExport {
  name: string;
  typeOnly: boolean;
  kinds: string[];
}
interface BuildModule {
  checkExportsAgree(jsExports: string[], dtsExports: DtsExport[], names?: { js: string; dts: string }): void;
  parseArgs(argv: string[]): { outDir?: string; features?: string[]; typecheck?: boolean; minify?: boolean };
  BuildError: new (message: string) => Error;
}
const root = fileURLToPath(new URL("../..", import.meta.url));
// A .mjs build script: loaded by URL so the strict project needs no declarations for it.
const build = (await import(pathToFileURL(join(root, "scripts/build.mjs")).href)) as BuildModule;

const value = (name: string, kind = "function"): DtsExport => ({ name, typeOnly: false, kinds: [kind] });
const type = (name: string, kind = "interface"): DtsExport => ({ name, typeOnly: false, kinds: [kind] });

describe("build: JS and d.ts exports agree", () => {
  it("accepts matching exports; types and namespace re-exports need no runtime value", () => {
    build.checkExportsAgree(["App", "route", "t"], [value("App", "class"), value("route", "const"), value("t", "const"), type("Layer", "type"), type("AppOptions")]);
    build.checkExportsAgree(["units"], [{ name: "units", typeOnly: false, kinds: [] }]);
  });

  it("refuses a runtime export the types do not declare", () => {
    assert.throws(() => build.checkExportsAgree(["App", "secret"], [value("App", "class")]), (err: unknown) => {
      assert.ok(err instanceof build.BuildError);
      assert.match(err.message, /keel\.js exports secret, keel\.d\.ts does not declare it/);
      return true;
    });
  });

  it("refuses a declared value keel.js lacks, and a runtime value typed as type-only", () => {
    assert.throws(() => build.checkExportsAgree([], [value("route", "const")]), /declares value route/);
    assert.throws(() => build.checkExportsAgree(["App"], [{ name: "App", typeOnly: true, kinds: ["class"] }]), /only as a type/);
    assert.throws(() => build.checkExportsAgree(["Shape"], [type("Shape")]), /only as a type/);
  });
});

describe("build: command line", () => {
  it("reads --features (both spellings), --minify, --outdir and --no-typecheck", () => {
    assert.deepEqual(build.parseArgs([]), {});
    assert.deepEqual(build.parseArgs(["--features", "openapi,jwt", "--no-typecheck", "--minify"]), { features: ["openapi", "jwt"], typecheck: false, minify: true });
    assert.deepEqual(build.parseArgs(["--features=kernel"]), { features: ["kernel"] });
    assert.equal(build.parseArgs(["--outdir", "x"]).outDir, join(process.cwd(), "x"));
  });

  it("refuses unknown arguments and a missing value, with the usage", () => {
    assert.throws(() => build.parseArgs(["--feature", "cors"]), /unknown argument --feature \(usage: node scripts\/build\.mjs \[--features/);
    assert.throws(() => build.parseArgs(["--outdir"]), /--outdir needs a value/);
  });

  it("names the package files it compares", () => {
    assert.throws(
      () => build.checkExportsAgree(["a"], [], { js: "dist/pkg/jose.js", dts: "dist/types/jose/index.d.ts" }),
      /dist\/pkg\/jose\.js exports a, dist\/types\/jose\/index\.d\.ts does not declare it/,
    );
  });
});
