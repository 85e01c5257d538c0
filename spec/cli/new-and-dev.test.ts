// keel new and keel dev as processes: a starter made in an empty folder outside the repo (no
// node_modules in reach) passes its own tests with plain node; a folder holding anything is
// refused untouched; keel dev serves the starter and, after its source changes, the new code.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { buildTool, cleanEnv, explain, runNode } from "./cli-support.js";

let tool: Awaited<ReturnType<typeof buildTool>>;
let scratch: string;
before(async () => {
  tool = await buildTool();
  scratch = mkdtempSync(join(tmpdir(), "keel-new-"));
});
after(() => {
  tool?.cleanup();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe("keel new", () => {
  it("writes a starter whose own tests pass with node --test (npm test's command)", async () => {
    const made = await runNode([tool.cli, "new", "my-app"], scratch);
    assert.equal(made.status, 0, explain(made));
    const dir = join(scratch, "my-app");
    assert.deepEqual(readdirSync(dir).sort(), ["README.md", "app.js", "package.json", "server.js", "test", "vendor"]);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; type: string; scripts: Record<string, string>; dependencies?: unknown };
    assert.deepEqual([pkg.name, pkg.type, pkg.scripts], ["my-app", "module", { start: "node server.js", test: "node --test" }]);
    assert.equal(pkg.dependencies, undefined, "no dependencies");
    assert.equal(readFileSync(join(dir, "vendor/keel.js"), "utf8"), readFileSync(join(tool.dir, "keel.js"), "utf8"), "the built bundle, vendored");
    // npm test's command; TAP asked for, as the default reporter differs between Node lines.
    const tested = await runNode(["--test", "--test-reporter=tap"], dir);
    assert.equal(tested.status, 0, explain(tested));
    assert.match(tested.stdout, /# pass 3/);
    assert.match(tested.stdout, /# fail 0/);

    // routes and openapi read the starter's app.js without --app (its own vendored copy of keel,
    // not the tool's: the document is built from a route table made by another copy).
    const routes = await runNode([tool.cli, "routes"], dir);
    assert.equal(routes.status, 0, explain(routes));
    assert.match(routes.stdout, /^POST\s+\/notes\s+-\s+201$/m);
    assert.match(routes.stdout, /^GET\s+\/notes\/\{id\}\s+-\s+200, 404$/m);
    const openapi = await runNode([tool.cli, "openapi"], dir);
    assert.equal(openapi.status, 0, explain(openapi));
    const doc = JSON.parse(openapi.stdout) as { paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>> };
    assert.deepEqual(Object.keys(doc.paths), ["/hello/{name}", "/notes", "/notes/{id}"]);
    assert.ok(doc.paths["/notes"]?.["post"]?.requestBody !== undefined && "422" in (doc.paths["/notes"]?.["post"]?.responses ?? {}));
  });

  it("refuses a folder that is not empty, and leaves it as it was", async () => {
    const dir = join(scratch, "taken");
    const first = await runNode([tool.cli, "new", dir], scratch);
    assert.equal(first.status, 0, explain(first));
    writeFileSync(join(dir, "app.js"), "// mine\n");
    const again = await runNode([tool.cli, "new", dir], scratch);
    assert.equal(again.status, 1, explain(again));
    assert.match(again.stderr, /is not empty/);
    assert.equal(readFileSync(join(dir, "app.js"), "utf8"), "// mine\n");
  });
});

describe("keel dev", () => {
  // Once with the platform's recursive fs.watch, once with the polling fallback (--poll).
  for (const mode of ["events", "polling"] as const) {
    it(`serves the entry and restarts it with the new code after a change; SIGTERM stops both (${mode})`, { timeout: 60_000 }, async () => {
      const dir = join(scratch, `dev-app-${mode}`);
      const made = await runNode([tool.cli, "new", dir], scratch);
      assert.equal(made.status, 0, explain(made));
      const dev = spawn(process.execPath, [tool.cli, "dev", ...(mode === "polling" ? ["--poll"] : [])], { cwd: dir, env: cleanEnv({ PORT: "0" }), stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      const waiters: Array<() => void> = [];
      dev.stdout.setEncoding("utf8").on("data", (d: string) => {
        stdout += d;
        for (const w of waiters.splice(0)) w();
      });
      dev.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      const exited = new Promise<number | null>((resolve) =>
        dev.on("exit", (code) => {
          resolve(code);
          for (const w of waiters.splice(0)) w();
        }),
      );
      // The server's nth "listening on <url>" line (each start picks a free port: PORT=0).
      const listening = async (n: number): Promise<string> => {
        for (;;) {
          const urls = [...stdout.matchAll(/listening on (http:\/\/\S+)/g)].map((m) => m[1] as string);
          if (urls.length >= n) return urls[n - 1] as string;
          if (dev.exitCode !== null) throw new Error(`keel dev exited\n${stdout}\n${stderr}`);
          await new Promise<void>((resolve) => waiters.push(resolve));
        }
      };
      try {
        const first = await listening(1);
        assert.deepEqual(await (await fetch(`${first}/hello/ada`)).json(), { message: "hello, ada" });
        const app = join(dir, "app.js");
        writeFileSync(app, readFileSync(app, "utf8").replace('"hello, " + name', '"hi there, " + name'));
        const second = await listening(2);
        assert.deepEqual(await (await fetch(`${second}/hello/ada`)).json(), { message: "hi there, ada" });
        assert.match(stderr, /restarting: app\.js changed/);
        assert.match(stderr, new RegExp(`watching \\. \\(${mode}\\)`));
        dev.kill("SIGTERM");
        assert.equal(await exited, 0, `${stdout}\n${stderr}`);
        await assert.rejects(fetch(`${second}/hello/ada`), "the server stopped with keel dev");
      } finally {
        dev.kill("SIGKILL");
      }
    });
  }
});
