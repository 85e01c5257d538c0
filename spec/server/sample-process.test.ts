// The sample as an operator meets it: `node dist/server.js` (here lib/sample/main.ts through tsx).
// Startup problems are one plain line on stderr that says what to change, exit 2 for
// configuration; the JSON fatal line stays on stdout for log shippers. --version, --help listing
// every variable, and the connection limits and pre-stop delay taken from the environment.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { rawExchange, send } from "../support/http.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = fileURLToPath(new URL("../../lib/sample/main.ts", import.meta.url));
const SECRET = "s".repeat(40);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the sample to completion (it must exit by itself). */
function runSample(args: string[], env: Record<string, string> = {}, timeoutMs = 20_000): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: "test", KEEL_ENV: "development", PORT: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function assertConfigFailure(run: Run, line: RegExp): void {
  assert.equal(run.code, 2, `exit code; stderr: ${run.stderr}`);
  const lines = run.stderr.trim().split("\n");
  assert.equal(lines.length, 1, `one plain line on stderr, got: ${run.stderr}`);
  assert.match(lines[0]!, line);
  assert.doesNotMatch(run.stderr, /^\s+at /m, "no stack trace for a configuration problem");
}

describe("startup failures say what to change", () => {
  it("a port in use: exit 2, the fix on stderr, the JSON fatal line on stdout", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const run = await runSample([], { PORT: String(port) });
      assertConfigFailure(run, new RegExp(`^dist/server\\.js: port ${port} is in use on 127\\.0\\.0\\.1: pass --port or PORT \\(0 picks a free port\\)$`));
      const fatal = run.stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l["level"] === 60);
      assert.ok(fatal, `a level-60 JSON line on stdout: ${run.stdout}`);
      assert.equal(fatal["msg"], "failed to start");
    } finally {
      blocker.close();
    }
  });

  it("production without a JWT secret: exit 2", async () => {
    assertConfigFailure(await runSample([], { KEEL_ENV: "production" }), /KEEL_JWT_SECRET must be set in production/);
  });

  it("a short KEEL_JWT_SECRET: exit 2", async () => {
    assertConfigFailure(await runSample([], { KEEL_JWT_SECRET: "short" }), /KEEL_JWT_SECRET: expected a secret of at least 32 bytes/);
  });

  for (const origins of ["*", "null", "https://a.example/path"]) {
    it(`KEEL_CORS_ORIGINS=${origins}: exit 2`, async () => {
      assertConfigFailure(await runSample([], { KEEL_CORS_ORIGINS: origins }), /KEEL_CORS_ORIGINS: expected comma-separated origins/);
    });
  }

  it("a typo in KEEL_ENV: exit 2 with the allowed values", async () => {
    assertConfigFailure(await runSample([], { KEEL_ENV: "producton" }), /KEEL_ENV: expected one of .*production/);
  });

  it("a host that is not on this machine: exit 2", async () => {
    assertConfigFailure(await runSample([], { HOST: "203.0.113.7" }), /host 203\.0\.113\.7 is not an address of this machine: pass --host or HOST/);
  });

  it("a headers timeout longer than the request timeout: exit 2", async () => {
    assertConfigFailure(await runSample([], { HEADERS_TIMEOUT_MS: "5000", REQUEST_TIMEOUT_MS: "1000" }), /headers timeout \(5000 ms.*must not exceed the request timeout \(1000 ms/);
  });
});

describe("--version and --help", () => {
  it("--version prints the service and its version", async () => {
    const run = await runSample(["--version"]);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, "keel-sample 0.1.0\n");
  });

  it("--help lists every variable the service reads", async () => {
    const run = await runSample(["--help"]);
    assert.equal(run.code, 0);
    const listed = new Set([...run.stdout.matchAll(/env ([A-Z_]+)/g)].map((m) => m[1]));
    for (const v of [
      "HOST", "PORT", "KEEL_ENV", "WORKERS", "LOG_LEVEL", "SHUTDOWN_TIMEOUT_MS", "PRE_STOP_DELAY_MS", "HEADERS_TIMEOUT_MS",
      "REQUEST_TIMEOUT_MS", "KEEP_ALIVE_TIMEOUT_MS", "MAX_HEADER_SIZE", "MAX_REQUESTS_PER_SOCKET", "MAX_CONNECTIONS",
      "TRUST_REQUEST_ID", "KEEL_JWT_SECRET", "KEEL_CORS_ORIGINS",
    ]) {
      assert.ok(listed.has(v), `--help does not list ${v}`);
    }
    assert.match(run.stdout, /--version/);
  });
});

/** Start the sample and wait for its listening line; returns its url and a way to stop it. */
async function startSample(env: Record<string, string>): Promise<{ url: string; port: number; stop(): Promise<number | null>; stdout(): string }> {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "test", KEEL_ENV: "development", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 20_000);
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(out) ?? /"url":"([^"]+)"[^\n]*"msg":"listening"/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    stdout: () => out,
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

describe("limits and shutdown from the environment", () => {
  it("MAX_HEADER_SIZE: larger headers get the uniform 431", async () => {
    const sample = await startSample({ MAX_HEADER_SIZE: "2048", KEEL_JWT_SECRET: SECRET });
    try {
      const raw = await rawExchange(sample.port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(4000)}\r\n\r\n`);
      assert.match(raw, /^HTTP\/1\.1 431 /);
      assert.match(raw, /"type":"request_header_fields_too_large"/);
      assert.match(raw, /"error_id":"err_[0-9a-f]{32}"/);
    } finally {
      assert.equal(await sample.stop(), 0);
    }
  });

  it("PRE_STOP_DELAY_MS: after SIGTERM /ready says 503 draining while requests are still served, then exit 0", async () => {
    const sample = await startSample({ PRE_STOP_DELAY_MS: "1500", KEEL_JWT_SECRET: SECRET });
    assert.equal((await send(sample.url + "/ready")).status, 200);
    const stopped = sample.stop();
    await new Promise((r) => setTimeout(r, 300));
    const ready = await send(sample.url + "/ready");
    assert.equal(ready.status, 503);
    assert.match(ready.body, /draining/);
    const hello = await send(sample.url + "/health");
    assert.ok(hello.status === 200 || hello.status === 503, `status ${hello.status}`);
    assert.equal(hello.headers["connection"], "close");
    assert.equal(await stopped, 0);
  });
});
