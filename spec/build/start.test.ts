// `npm start` on a clone: the first start builds the sample, later starts reuse dist/server.js
// until an input changes, and a stale or broken build is never served. Runs package.json's own
// start command (and its build half, the part before `&&`) in a scratch copy of the repo, so the
// checkout's dist/ is left alone. "Rebuilt" is observed from outside: dist/server.js rewritten
// (its mtime and content), not how long a start took.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createInterface } from "node:readline";
import { childEnv, explain, root, runCommand, type RunResult } from "./build-support.js";

const START = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts["start"] ?? "";
/** The build half of the start command: what runs before `node dist/server.js`. */
const BUILD_HALF = START.split("&&")[0]?.trim() ?? "";

let clone = "";
const server = (): string => join(clone, "dist/server.js");

const sh = (command: string, timeoutMs = 180_000): Promise<RunResult> => runCommand("sh", ["-c", command], clone, timeoutMs);

/**
 * The whole start command, as npm runs it, on an ephemeral port: resolves with what it printed
 * once the service logged "listening" and answered GET /health, then stops it (SIGTERM, drain).
 */
async function startService(): Promise<{ output: string; health: number }> {
  const child = spawn("sh", ["-c", START], { cwd: clone, env: childEnv({ PORT: "0", HOST: "127.0.0.1" }), stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const stop = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-(child.pid ?? 0), signal);
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => stop("SIGKILL"), 180_000);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.on("line", (line) => {
        output += line + "\n";
        const m = /"msg":"listening","url":"(http:\/\/[^"]+)"/.exec(line);
        if (m !== null) resolve(String(m[1]));
      });
      void exited.then((code) => reject(new Error(`start exited ${code} before listening:\n${output}`)));
    });
    const health = (await fetch(`${url}/health`)).status;
    return { output, health };
  } finally {
    stop("SIGTERM");
    await exited;
    clearTimeout(timer);
  }
}

interface Snapshot {
  mtimeMs: number;
  text: string;
}
const snapshot = (): Snapshot => ({ mtimeMs: statSync(server()).mtimeMs, text: readFileSync(server(), "utf8") });

/** Run the build half; assert it succeeded and whether it rewrote dist/server.js. */
async function startBuild(expect: "rebuilt" | "untouched", why: string): Promise<RunResult> {
  const before = existsSync(server()) ? snapshot() : null;
  // A rewrite within the filesystem's mtime granularity must still show: age the file first.
  if (before !== null) utimesSync(server(), new Date(before.mtimeMs - 10_000), new Date(before.mtimeMs - 10_000));
  const aged = existsSync(server()) ? statSync(server()).mtimeMs : null;
  const r = await sh(BUILD_HALF);
  assert.equal(r.status, 0, explain(r));
  assert.ok(existsSync(server()), `${why}: no dist/server.js\n${explain(r)}`);
  const rewritten = aged === null || statSync(server()).mtimeMs !== aged;
  assert.equal(rewritten, expect === "rebuilt", `${why}: expected dist/server.js ${expect}\n${explain(r)}`);
  return r;
}

const edit = (path: string, change: (text: string) => string): void => writeFileSync(join(clone, path), change(readFileSync(join(clone, path), "utf8")));

describe("npm start: rebuilds the sample only when an input changed", () => {
  before(() => {
    clone = mkdtempSync(join(tmpdir(), "keel-start-"));
    for (const path of ["lib", "scripts", "package.json", "tsconfig.json"]) cpSync(join(root, path), join(clone, path), { recursive: true });
    symlinkSync(realpathSync(join(root, "node_modules")), join(clone, "node_modules"), "dir");
  });
  after(() => rmSync(clone, { recursive: true, force: true }));

  it("a fresh clone: the first start builds dist/server.js and the service answers /health", async () => {
    assert.ok(!existsSync(join(clone, "dist")));
    const { health } = await startService();
    assert.equal(health, 200);
    assert.ok(existsSync(server()));
  });

  it("a second start on an unchanged checkout serves the same dist/server.js without rebuilding", async () => {
    const first = snapshot();
    const { output, health } = await startService();
    assert.equal(health, 200);
    assert.equal(statSync(server()).mtimeMs, first.mtimeMs, `dist/server.js was rewritten:\n${output}`);
    assert.match(output, /dist\/server\.js is up to date/);
    await startBuild("untouched", "unchanged again");
  });

  it("a source whose content changed rebuilds, and the new code is what is served", async () => {
    // Touching alone (same bytes) rebuilds nothing: the stamp holds content hashes, and the same
    // bytes make the same bundle.
    const now = new Date();
    utimesSync(join(clone, "lib/sample/app.ts"), now, now);
    await startBuild("untouched", "touched, same content");
    edit("lib/sample/main.ts", (t) => t.replace('description: "The keel sample service:', 'description: "start-test-marker-1 The keel sample service:'));
    const r = await startBuild("rebuilt", "main.ts changed");
    assert.match(r.stdout, /rebuilding dist\/server\.js: lib\/sample\/main\.ts changed/);
    assert.ok(snapshot().text.includes("start-test-marker-1"), "the rebuilt bundle holds the change");
    await startBuild("untouched", "after the rebuild");
  });

  it("a file added under lib/, the build script, package.json and tsconfig.json are inputs too", async () => {
    writeFileSync(join(clone, "lib/sample/start-test-extra.ts"), "export const extra = 1;\n");
    await startBuild("rebuilt", "a file added under lib/");
    edit("scripts/build.mjs", (t) => t + "\n// changed by spec/build/start.test.ts\n");
    await startBuild("rebuilt", "scripts/build.mjs changed");
    edit("package.json", (t) => t.replace('"version": "0.1.0"', '"version": "0.1.1"'));
    await startBuild("rebuilt", "package.json changed");
    assert.match(snapshot().text, /keel v0\.1\.1 sample service/);
    edit("tsconfig.json", (t) => t + "\n");
    await startBuild("rebuilt", "tsconfig.json changed");
    await startBuild("untouched", "after the rebuilds");
  });

  it("a build made by another esbuild rebuilds", async () => {
    const stampPath = join(clone, "dist/.server-build.json");
    const stamp = JSON.parse(readFileSync(stampPath, "utf8")) as { inputs: Record<string, string> };
    const installed = stamp.inputs["esbuild"];
    stamp.inputs["esbuild"] = "0.0.1";
    writeFileSync(stampPath, JSON.stringify(stamp));
    const r = await startBuild("rebuilt", "esbuild version changed");
    assert.match(r.stdout, /esbuild 0\.0\.1 -> /);
    assert.equal((JSON.parse(readFileSync(stampPath, "utf8")) as { inputs: Record<string, string> }).inputs["esbuild"], installed);
  });

  it("a missing dist/, a missing or edited dist/server.js, a missing stamp or static file rebuild", async () => {
    const built = snapshot().text;
    rmSync(join(clone, "dist"), { recursive: true });
    await startBuild("rebuilt", "no dist/");
    writeFileSync(server(), built.slice(0, 1000));
    await startBuild("rebuilt", "server.js cut short");
    assert.equal(snapshot().text, built);
    rmSync(join(clone, "dist/.server-build.json"));
    await startBuild("rebuilt", "no stamp");
    rmSync(join(clone, "dist/public"), { recursive: true });
    await startBuild("rebuilt", "no dist/public");
    assert.ok(existsSync(join(clone, "dist/public")));
    rmSync(server());
    await startBuild("rebuilt", "no server.js");
    await startBuild("untouched", "after the rebuilds");
  });

  it("what `npm run build` wrote (any --features) is up to date for the next start", async () => {
    const built = await sh("node scripts/build.mjs --no-typecheck --features kernel");
    assert.equal(built.status, 0, explain(built));
    const r = await startBuild("untouched", "after npm run build");
    assert.match(r.stdout, /dist\/server\.js is up to date/);
  });

  it("a source that no longer builds fails the start: the old dist/server.js is not served", async () => {
    edit("lib/sample/main.ts", (t) => t + "\nconst broken = ;\n");
    const r = await sh(START);
    assert.notEqual(r.status, 0, explain(r));
    assert.doesNotMatch(r.stdout, /"msg":"listening"/);
    // Refused again on the next start: the stamp still vouches only for the old main.ts.
    const again = await sh(BUILD_HALF);
    assert.notEqual(again.status, 0, explain(again));
  });
});
