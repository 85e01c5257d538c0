// The layout rules of docs/ARCHITECTURE.md, read from the import statements of lib/ by
// scripts/import-graph.mjs (`node scripts/import-graph.mjs` prints the same report):
//   1. no import cycle between files, type-only imports included;
//   2. only node: builtins and relative imports (no runtime dependencies);
//   3. lib/util imports only itself; lib/router and lib/schema only themselves and util;
//   4. lib/core (the request model) imports only core, server, router, schema, util; lib/server (the
//      node:http binding) only server, core, util; lib/extract imports extract, core, schema, util;
//   5. lib/index.ts (keel) and lib/plugin.ts (keel/plugin) import only the kernel; lib/shared
//      imports those two entries and itself;
//   6. a feature (any other top-level folder; each subfolder of auth/, middleware/ and web/) imports
//      the kernel only through lib/index.ts and lib/plugin.ts, plus shared, its own files, and other
//      features only through their index.ts;
//   7. lib/sample imports entry points only, and nothing imports lib/sample;
//   8. specs use the public entry points (and the sample's index); the few that need internals
//      live under spec/internals/.
// The synthetic trees prove each rule can fail; the last test holds lib/ itself to them.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
// @ts-expect-error plain .mjs script without declarations
import { checkLayout, formatReport, importsOf } from "../../scripts/import-graph.mjs";

interface Report {
  violations: Array<{ rule: string; from: string; to: string }>;
  cycles: string[][];
  files: number;
}
const check = checkLayout as (dir: string) => Report;
const format = formatReport as (r: Report) => string;
const importsIn = importsOf as (text: string) => Array<{ spec: string; typeOnly: boolean }>;

const scratch = mkdtempSync(join(tmpdir(), "keel-layout-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let trees = 0;

/** Write a tree of files (path -> source) and check it. */
function tree(files: Record<string, string>): Report {
  const dir = join(scratch, `t${trees++}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return check(dir);
}

const BASE = {
  "index.ts": 'export { App } from "./core/app.js";\n',
  "plugin.ts": 'export { isPromise } from "./util/is-promise.js";\n',
  "core/app.ts": 'import { isPromise } from "../util/is-promise.js";\nexport class App {}\nvoid isPromise;\n',
  "util/is-promise.ts": "export const isPromise = (v: unknown) => v instanceof Promise;\n",
  "toon/index.ts": 'export { encode } from "./encode.js";\n',
  "toon/encode.ts": 'import type { App } from "../index.js";\nimport { isPromise } from "../plugin.js";\nexport const encode = (a: App) => isPromise(a);\n',
};

describe("import rules: the checker", () => {
  it("accepts a tree that keeps the rules", () => {
    const r = tree(BASE);
    assert.equal(format(r), "");
    assert.equal(r.files, 6);
  });

  it("reports a feature or lib/shared reaching a kernel file instead of keel or keel/plugin", () => {
    const r = tree({
      ...BASE,
      "toon/direct.ts": 'import type { App } from "../core/app.js";\nexport type D = App;\n',
      "shared/helper.ts": 'import { isPromise } from "../util/is-promise.js";\nexport const h = isPromise;\n',
      "plugin.ts": 'export { isPromise } from "./util/is-promise.js";\nexport { encode } from "./toon/encode.js";\n',
    });
    assert.deepEqual(
      r.violations.map((v) => `${v.from} -> ${v.to}: ${v.rule}`),
      [
        "plugin.ts -> toon/encode.ts: the kernel entry (lib/plugin.ts) imports only the kernel",
        "shared/helper.ts -> util/is-promise.ts: lib/shared reaches the kernel only through lib/index.ts and lib/plugin.ts",
        "toon/direct.ts -> core/app.ts: a feature reaches the kernel only through lib/index.ts (keel) and lib/plugin.ts (keel/plugin)",
      ],
    );
  });

  it("reports a cycle, and a cycle made only of type imports", () => {
    const r = tree({ ...BASE, "core/a.ts": 'import { b } from "./b.js";\nexport const a = 1;\n', "core/b.ts": 'import { a } from "./a.js";\nexport const b = a;\n' });
    assert.deepEqual(r.cycles, [["core/a.ts", "core/b.ts", "core/a.ts"]]);
    const t = tree({ ...BASE, "core/x.ts": 'import type { Y } from "./y.js";\nexport type X = Y[];\n', "core/y.ts": 'import type { X } from "./x.js";\nexport type Y = X | 1;\n' });
    assert.equal(t.cycles.length, 1);
    assert.match(format(t), /cycle: lib\/core\/x\.ts -> lib\/core\/y\.ts -> lib\/core\/x\.ts/);
  });

  it("reports the node:http binding (lib/server) importing the router or a feature", () => {
    const r = tree({ ...BASE, "server/write.ts": 'import { App } from "../core/app.js";\nimport { R } from "../router/r.js";\nexport const w = [App, R];\n', "router/r.ts": "export const R = 1;\n" });
    assert.deepEqual(
      r.violations.map((v) => `${v.from} -> ${v.to}`),
      ["server/write.ts -> router/r.ts"],
    );
  });

  it("reports the kernel importing a feature, and util importing the kernel", () => {
    const r = tree({ ...BASE, "core/docs.ts": 'import { encode } from "../toon/index.js";\nexport const d = encode;\n', "util/bad.ts": 'import { App } from "../core/app.js";\nexport const b = App;\n' });
    assert.deepEqual(
      r.violations.map((v) => `${v.from} -> ${v.to}`),
      ["core/docs.ts -> toon/index.ts", "util/bad.ts -> core/app.ts"],
    );
  });

  it("reports a feature reaching into another feature's internals, but not through its index", () => {
    const r = tree({
      ...BASE,
      "openapi/index.ts": 'export { a } from "./a.js";\n',
      "openapi/a.ts": 'import { encode } from "../toon/encode.js";\nimport { encode as viaEntry } from "../toon/index.js";\nexport const a = [encode, viaEntry];\n',
      "middleware/cors/index.ts": 'export { cors } from "./cors.js";\n',
      "middleware/cors/cors.ts": 'import { ip } from "../client-ip/client-ip.js";\nexport const cors = ip;\n',
      "middleware/client-ip/index.ts": 'export { ip } from "./client-ip.js";\n',
      "middleware/client-ip/client-ip.ts": "export const ip = 1;\n",
    });
    assert.deepEqual(
      r.violations.map((v) => `${v.from} -> ${v.to}`),
      ["middleware/cors/cors.ts -> middleware/client-ip/client-ip.ts", "openapi/a.ts -> toon/encode.ts"],
    );
  });

  it("reports a bare package import, the sample importing internals, and anything importing the sample", () => {
    const r = tree({
      ...BASE,
      "core/dep.ts": 'import fastify from "fastify";\nexport const f = fastify;\n',
      "sample/app.ts": 'import { App } from "../index.js";\nimport { encode } from "../toon/encode.js";\nexport const s = [App, encode];\n',
      "toon/uses-sample.ts": 'import { s } from "../sample/app.js";\nexport const u = s;\n',
    });
    const lines = format(r).split("\n");
    assert.equal(lines.length, 3, format(r));
    assert.match(lines.find((l) => l.includes("fastify")) ?? "", /no runtime dependencies/);
    assert.match(lines.find((l) => l.startsWith("lib/sample/app.ts")) ?? "", /entry points/);
    assert.match(lines.find((l) => l.startsWith("lib/toon/uses-sample.ts")) ?? "", /imports the sample/);
  });

  it("reads import, import type, export from and import() edges, not comments or template strings", () => {
    const text = [
      'import { a } from "./a.js";',
      'import type { B } from "./b.js";',
      'export * from "./c.js";',
      'export { d } from "./d.js";',
      'const e = await import("./e.js");',
      '// import { x } from "./commented.js";',
      'const worker = `import { y } from "./in-template.js";`;',
    ].join("\n");
    assert.deepEqual(
      importsIn(text).map((i) => `${i.spec}${i.typeOnly ? " (type)" : ""}`),
      ["./a.js", "./b.js (type)", "./c.js", "./d.js", "./e.js"],
    );
  });
});

describe("import rules: lib/", () => {
  it("keeps every rule and has no import cycle", () => {
    const r = check(fileURLToPath(new URL("../../lib", import.meta.url)));
    assert.ok(r.files > 150, `read ${r.files} files`);
    assert.equal(format(r), "", "\n" + format(r));
  });
});

describe("import rules: spec/", () => {
  it("specs outside spec/internals import lib/ only through entry points", () => {
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const entries = new Set(readdirSync(join(root, "lib")).filter((d) => statSync(join(root, "lib", d)).isDirectory()).map((d) => `lib/${d}/index.ts`));
    entries.add("lib/index.ts");
    entries.add("lib/plugin.ts");
    const kernelInternals = ["core", "server", "router", "schema", "extract", "util", "shared"].map((d) => `lib/${d}/index.ts`);
    for (const k of kernelInternals) entries.delete(k);
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const full = join(dir, name);
        if (statSync(full).isDirectory()) {
          if (relative(root, full) !== join("spec", "internals")) walk(full);
        } else if (name.endsWith(".ts")) {
          for (const { spec } of importsIn(readFileSync(full, "utf8"))) {
            if (!spec.startsWith(".")) continue;
            const target = relative(root, resolve(dirname(full), spec.replace(/\.js$/, ".ts"))).split("\\").join("/");
            if (target.startsWith("lib/") && !entries.has(target)) offenders.push(`${relative(root, full)} -> ${target}`);
          }
        }
      }
    };
    walk(join(root, "spec"));
    assert.deepEqual(offenders, []);
  });
});
