// `npm pack` makes a package that installs and imports. The tarball is made the way `npm pack`
// makes it from this repository (its package.json, README, LICENSE and ignore files; `prepack`
// is the build, whose output lands in dist/ here through --outdir), installed offline into a
// scratch project (the package has no dependencies), and imported there by plain node: "keel"
// and a subpath entry. The vendored single file (dist/keel.js) stays the main way to use keel;
// this is the other one.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { buildScript, childEnv, explain, root, run, type RunResult } from "./build-support.js";

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; version: string; files?: string[]; scripts: Record<string, string> };

function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv): RunResult {
  const r = spawnSync("npm", args, { cwd, env, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? "", stderr: (r.stderr ?? "") + (r.error ? String(r.error) : "") };
}

describe("npm pack", () => {
  const scratch = mkdtempSync(join(tmpdir(), "keel-pack-"));
  const source = join(scratch, "source");
  const consumer = join(scratch, "consumer");
  // npm's own cache and config stay inside the scratch directory.
  const env = childEnv({ npm_config_cache: join(scratch, "npm-cache"), npm_config_userconfig: join(scratch, "npmrc"), npm_config_update_notifier: "false" });
  let built: RunResult | undefined;
  let packed: RunResult | undefined;
  let tarball = "";
  let files: string[] = [];
  after(() => rmSync(scratch, { recursive: true, force: true }));

  before(async () => {
    mkdirSync(source, { recursive: true });
    for (const f of ["package.json", "README.md", "LICENSE", ".gitignore", ".npmignore"]) if (existsSync(join(root, f))) cpSync(join(root, f), join(source, f));
    // What prepack (npm run build) writes into dist/; the package files do not depend on --features.
    built = await run([buildScript, "--no-typecheck", "--features", "kernel", "--outdir", join(source, "dist")], root, 180_000);
    if (built.status !== 0) return;
    // --ignore-scripts: prepack's build is the one above (this copy has no scripts/ or lib/).
    packed = npm(["pack", "--ignore-scripts", "--json", "--pack-destination", scratch], source, env);
    if (packed.status !== 0) return;
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    tarball = join(scratch, info!.filename);
    files = info!.files.map((f) => f.path);
  });

  it("ships dist/pkg and dist/types, and builds them first (prepack)", () => {
    assert.ok(built !== undefined && packed !== undefined, built && explain(built));
    assert.equal(built.status, 0, explain(built));
    assert.equal(packed.status, 0, explain(packed));
    for (const f of ["package.json", "README.md", "dist/pkg/index.js", "dist/pkg/openapi.js", "dist/types/index.d.ts", "dist/types/openapi/index.d.ts"]) {
      assert.ok(files.includes(f), `the tarball has ${f} (it has ${files.slice(0, 20).join(", ")}${files.length > 20 ? ", ..." : ""})`);
    }
    assert.ok(!files.some((f) => f.startsWith("lib/") || f.startsWith("spec/") || f.startsWith("node_modules/")), "no sources or tests in the package");
    assert.equal(pkg.scripts["prepack"], "npm run build", "npm pack (and publish) build dist/ first");
  });

  it("installs offline into a scratch project and imports keel and keel/openapi", () => {
    assert.ok(tarball !== "", `npm pack made a tarball: ${packed && explain(packed)}`);
    mkdirSync(consumer, { recursive: true });
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    const installed = npm(["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], consumer, env);
    assert.equal(installed.status, 0, explain(installed));
    writeFileSync(
      join(consumer, "main.js"),
      `import { App, route, silentLogger } from "keel";
import { docs } from "keel/openapi";
const app = new App({ logger: silentLogger }).routes(route.get("/hello", {}, [], () => "hi")).register(docs("/docs"));
const hello = await app.inject({ url: "/hello" });
const doc = await app.inject({ url: "/docs/openapi.json" });
process.stdout.write(JSON.stringify({ hello: hello.body, paths: Object.keys(JSON.parse(doc.body).paths) }) + "\\n");
`,
    );
    const ran = spawnSync(process.execPath, ["main.js"], { cwd: consumer, env, encoding: "utf8", timeout: 60_000 });
    assert.equal(ran.status, 0, `${ran.stdout}\n${ran.stderr}`);
    assert.deepEqual(JSON.parse(ran.stdout), { hello: JSON.stringify("hi"), paths: ["/hello"] });
  });
});
