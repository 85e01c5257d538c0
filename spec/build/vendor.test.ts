// The vendored build, proven from outside the repo: build into a scratch folder in the OS temp
// dir, copy dist/keel.js + dist/keel.d.ts into a tiny consumer project there, typecheck the
// consumer against the bundled types (strict, NodeNext, skipLibCheck off), run its compiled JS
// with plain node, and run dist/server.js from that folder (no node_modules in reach).
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { STRICT_CONSUMER_OPTIONS } from "../support/strict-consumer.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tscBin = join(root, "node_modules/typescript/bin/tsc");

/** Child environment without the test runner's own settings (tsx loader, test context). */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env["NODE_OPTIONS"];
  delete env["NODE_TEST_CONTEXT"];
  return env;
}

interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], cwd: string, timeoutMs = 60_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

function explain(r: RunResult): string {
  return `exit ${r.status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

// The consumer: type-level assertions that must pass, lines that must fail, and a runtime part
// whose output the test checks. tsc both checks it and emits main.js next to it.
const CONSUMER_TS = `import { App, ApiError, json, path, route, silentLogger, t, type InjectResponse, type Static } from "./vendor/keel.js";
import * as keel from "./vendor/keel.js";
// @ts-expect-error internal helpers are not part of the public surface
const internal: unknown = keel.composeLayers;

type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;

const NewItem = t.object({ name: t.string({ length: { min: 1 } }), qty: t.u64() });
type NewItem = Static<typeof NewItem>;
const itemShape: Equal<NewItem, { name: string; qty: number }> = true;

export const putItem = route.put("/items/{id}", { summary: "Replace an item" }, [path("id", t.u64()), json(NewItem)], (id, item) => {
  const idIsNumber: number = id;
  // @ts-expect-error a u64 path parameter is a number, not a string
  const idIsString: string = id;
  void idIsString;
  if (item.name === "forbidden") throw ApiError.forbidden("not this one");
  return { id: idIsNumber, name: item.name.toUpperCase(), qty: item.qty };
});

const app = new App({ logger: silentLogger }).routes(putItem);
const results: Array<{ status: number; body: unknown }> = [];
for (const [url, body] of [
  ["/items/7", { name: "bolt", qty: 3 }],
  ["/items/7", { name: "bolt", qty: -1 }],
  ["/items/x", { name: "bolt", qty: 3 }],
  ["/items/7", { name: "forbidden", qty: 1 }],
] as const) {
  const res: InjectResponse = await app.inject({ method: "PUT", url, body });
  results.push({ status: res.status, body: res.json() });
}
process.stdout.write(JSON.stringify({ itemShape, internal: typeof internal, results }) + "\\n");
`;

const CONSUMER_TSCONFIG = {
  compilerOptions: { ...STRICT_CONSUMER_OPTIONS, noEmitOnError: true },
  files: ["main.ts"],
};

describe("vendored build (dist/keel.js + dist/keel.d.ts) from outside the repo", () => {
  let scratch = "";
  let consumer = "";
  let built: RunResult | undefined;
  const children: ChildProcess[] = [];

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), "keel-vendor-"));
    assert.ok(relative(root, scratch).startsWith(".."), "scratch folder must be outside the repo");
    built = await run([join(root, "scripts/build.mjs"), "--outdir", join(scratch, "dist")], root);
    consumer = join(scratch, "consumer");
    mkdirSync(join(consumer, "vendor"), { recursive: true });
    if (built.status === 0) {
      copyFileSync(join(scratch, "dist/keel.js"), join(consumer, "vendor/keel.js"));
      copyFileSync(join(scratch, "dist/keel.d.ts"), join(consumer, "vendor/keel.d.ts"));
    }
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ type: "module", private: true }));
    writeFileSync(join(consumer, "tsconfig.json"), JSON.stringify(CONSUMER_TSCONFIG, null, 2));
    writeFileSync(join(consumer, "main.ts"), CONSUMER_TS);
  });

  after(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    if (scratch !== "") rmSync(scratch, { recursive: true, force: true });
  });

  it("npm run build succeeds and reports the bundle size", () => {
    assert.ok(built !== undefined);
    assert.equal(built.status, 0, explain(built));
    assert.match(built.stdout, /keel\.js\s+[\d.]+ KiB raw, [\d.]+ KiB gzipped/);
  });

  it("produces self-contained files: node builtins are the only imports", () => {
    const js = readFileSync(join(scratch, "dist/keel.js"), "utf8");
    const dts = readFileSync(join(scratch, "dist/keel.d.ts"), "utf8");
    const server = readFileSync(join(scratch, "dist/server.js"), "utf8");
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
    for (const [name, text] of [["keel.js", js], ["keel.d.ts", dts], ["server.js", server]] as const) {
      assert.ok(text.includes(`keel v${pkg.version}`) && text.includes("MIT"), `${name} banner names keel, version and license`);
      const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^;'"]*?from\s*["']([^"']+)["']/gm)].map((m) => m[1]);
      for (const spec of specifiers) assert.match(String(spec), /^node:/, `${name} imports only node builtins, found ${spec}`);
    }
    assert.doesNotMatch(dts, /import\(\s*["']\./, "no import() of other keel files in keel.d.ts");
    assert.doesNotMatch(js, /\brequire\(/, "keel.js is pure ESM");
  });

  it("the bundled types typecheck a strict NodeNext consumer (and reject what they must)", async () => {
    const r = await run([tscBin, "-p", "tsconfig.json"], consumer);
    assert.equal(r.status, 0, explain(r));
    assert.ok(existsSync(join(consumer, "main.js")), "tsc emitted main.js");
  });

  it("the consumer's compiled JS runs with plain node against the vendored keel.js", async () => {
    assert.ok(existsSync(join(consumer, "main.js")), "main.js missing: the typecheck step failed");
    const r = await run(["main.js"], consumer, 15_000);
    assert.equal(r.status, 0, explain(r));
    const out = JSON.parse(r.stdout) as { itemShape: boolean; internal: string; results: Array<{ status: number; body: { error?: { type: string } } }> };
    assert.equal(out.internal, "undefined", "internal names are not exported at runtime either");
    const [ok, badBody, badPath, forbidden] = out.results;
    assert.deepEqual(ok, { status: 200, body: { id: 7, name: "BOLT", qty: 3 } });
    assert.equal(badBody?.status, 422);
    assert.equal(badBody?.body.error?.type, "validation_error");
    assert.equal(badPath?.status, 422);
    assert.equal(forbidden?.status, 403);
    assert.equal(forbidden?.body.error?.type, "forbidden");
  });

  it("node dist/server.js listens on PORT=0, answers /hello, / and /static/keel.css, and exits 0 on SIGTERM", async () => {
    const server = spawn(process.execPath, [join("dist", "server.js")], {
      cwd: scratch,
      env: childEnv({ PORT: "0", HOST: "127.0.0.1" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(server);
    let stderr = "";
    server.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => server.on("exit", (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let buffered = "";
      const timer = setTimeout(() => reject(new Error(`no "listening" line within 10 s; stderr: ${stderr}`)), 10_000);
      server.stdout.setEncoding("utf8").on("data", (d: string) => {
        buffered += d;
        for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === "listening" && typeof entry.url === "string") {
            clearTimeout(timer);
            resolve(entry.url);
          }
        }
      });
      void exited.then((code) => reject(new Error(`server exited early (${code}); stderr: ${stderr}`)));
    });
    const res = await fetch(`${url}/hello`);
    assert.equal(res.status, 200);
    assert.equal(await res.json(), "Hello, World!");
    // The static files ship beside server.js (dist/public) and the home page links them.
    const css = await fetch(`${url}/static/keel.css`);
    assert.equal(css.status, 200);
    assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
    assert.equal(await css.text(), readFileSync(join(root, "lib/sample/public/keel.css"), "utf8"));
    const home = await fetch(`${url}/`);
    assert.equal(home.status, 200);
    assert.match(await home.text(), /<link rel="stylesheet" href="\/static\/keel.css">/);
    server.kill("SIGTERM");
    assert.equal(await exited, 0, `exit code after SIGTERM; stderr: ${stderr}`);
  });
});
