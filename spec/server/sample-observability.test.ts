// The sample's observability: /metrics by route pattern (and accepted by promtool when it is
// installed), traffic insight behind the admin token (absent without one), the audit log of
// 401s written as a hash chain that `audit verify` checks, and tampering detected.
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { ListeningServer } from "../../lib/index.js";
import { createSampleApp } from "../../lib/sample/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { send } from "../support/http.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "lib/sample/main.ts");
const TOKEN = "sample-admin-token-0123456789";
const hasPromtool = spawnSync("promtool", ["--version"]).status === 0;

/** Run the sample's executable without blocking this process (its server may be the target). */
function runMain(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: ROOT, env }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : 1, out: stdout + stderr });
    });
  });
}

describe("sample observability", () => {
  let server: ListeningServer;
  let auditDir = "";
  before(async () => {
    auditDir = mkdtempSync(join(tmpdir(), "keel-sample-audit-"));
    server = await createSampleApp({ logger: captureLogger(100), env: "development", adminToken: TOKEN, auditDir }).listen({ port: 0 });
    for (const p of ["/users/1", "/users/2", "/hello", "/nope/1", "/nope/2"]) await send(server.url + p);
  });
  after(async () => {
    await server.close();
    rmSync(auditDir, { recursive: true, force: true });
  });

  it("GET /metrics: one series per route pattern, never per raw path; job-queue and process metrics", async () => {
    const r = await send(server.url + "/metrics");
    assert.equal(r.status, 200);
    assert.match(String(r.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
    const users = r.body.split("\n").filter((l) => l.startsWith("http_server_request_duration_seconds_count{") && l.includes('http_route="/users/{id}"'));
    assert.equal(users.length, 1, users.join("\n"));
    assert.match(users[0]!, / 2$/);
    assert.doesNotMatch(r.body, /\/users\/1"|\/nope\/1"/, "no raw paths as labels");
    assert.match(r.body, /^keel_jobs\w* .*|^keel_jobs\w*\{/m);
    assert.match(r.body, /^process_resident_memory_bytes \d+/m);
  });

  it("GET /metrics passes promtool check metrics", { skip: hasPromtool ? false : "promtool not installed (Debian package prometheus)" }, async () => {
    const body = (await send(server.url + "/metrics")).body;
    const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const child = execFile("promtool", ["check", "metrics"], (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, text: stdout + stderr }));
      child.stdin!.end(body);
    });
    assert.equal(out.code, 0, out.text);
  });

  it("/admin/insight: 401 without the token, per-route figures with it", async () => {
    assert.equal((await send(server.url + "/admin/insight")).status, 401);
    const r = await send(server.url + "/admin/insight", { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(r.status, 200);
    const body = JSON.parse(r.body) as { routes: Array<{ method: string; route: string; count: number }> };
    const users = body.routes.find((x) => x.method === "GET" && x.route === "/users/{id}");
    assert.equal(users?.count, 2);
  });

  it("the audit log records a 401 and `audit verify` finds the chain intact, then a tampered line", async () => {
    assert.equal((await send(server.url + "/api/v1/me")).status, 401);
    await server.close(); // closes the audit log (flushes it)
    const files = readdirSync(auditDir).filter((f) => f.endsWith(".jsonl"));
    assert.ok(files.length >= 1);
    const text = readFileSync(join(auditDir, files[0]!), "utf8");
    assert.match(text, /"action":"auth\.failed"/);
    const ok = spawnSync(process.execPath, ["--import", "tsx", MAIN, "audit", "verify", auditDir], { cwd: ROOT, encoding: "utf8" });
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    writeFileSync(join(auditDir, files[0]!), text.replace('"auth.failed"', '"auth.fine"'));
    const bad = spawnSync(process.execPath, ["--import", "tsx", MAIN, "audit", "verify", auditDir], { cwd: ROOT, encoding: "utf8" });
    assert.equal(bad.status, 1, bad.stdout + bad.stderr);
  });
});

describe("sample without an admin token", () => {
  it("has no admin endpoints at all", async () => {
    const app = createSampleApp({ logger: captureLogger(100), env: "development" });
    const r = await app.inject({ url: "/admin/insight", headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(r.status, 404);
  });
});

describe("sample replay recording", () => {
  it("records requests with the password redacted, lists them for the admin, and `replay <id> --target` diffs a re-sent one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-sample-replay-"));
    const replayFile = join(dir, "replays.jsonl");
    const server = await createSampleApp({ logger: captureLogger(100), env: "development", adminToken: TOKEN, replayFile, replaySampleRate: 1 }).listen({ port: 0 });
    try {
      await send(server.url + "/users/1");
      const created = await send(server.url + "/users", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "replay@example.com", password: "hunter2-hunter2" }) });
      assert.equal(created.status, 201);
      assert.equal((await send(server.url + "/admin/replays")).status, 401);
      const list = JSON.parse((await send(server.url + "/admin/replays", { headers: { authorization: `Bearer ${TOKEN}` } })).body) as { records?: Array<{ id: string; route: string; method: string }> } | Array<{ id: string; route: string; method: string }>;
      const records = Array.isArray(list) ? list : (list.records ?? []);
      const get = records.find((r) => r.method === "GET" && r.route === "/users/{id}");
      const post = records.find((r) => r.method === "POST" && r.route === "/users");
      assert.ok(get && post, JSON.stringify(list));
      const stored = readFileSync(replayFile, "utf8");
      assert.ok(!stored.includes("hunter2"), "the password never reaches the record");
      // Asynchronously: the server answering the replay lives in this process.
      const env = { ...process.env, KEEL_REPLAY_FILE: replayFile };
      const same = await runMain(["replay", get.id, "--target", server.url], env);
      assert.equal(same.code, 0, same.out);
      const changed = await runMain(["replay", post.id, "--target", server.url], env);
      assert.equal(changed.code, 1, changed.out);
      assert.match(changed.out, /409|\$\.id|status/, "the diff names what changed");
      const unknown = await runMain(["replay", "no-such-id", "--target", server.url], env);
      assert.notEqual(unknown.code, 0);
      const noFile = await runMain(["replay", get.id, "--target", server.url], { ...process.env, KEEL_REPLAY_FILE: "" });
      assert.equal(noFile.code, 2, noFile.out);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
