// The sample service's job routes (lib/sample/jobs.ts), and the queue's shutdown hook, through a real App.
import { test } from "node:test";
import assert from "node:assert/strict";
import { App, silentLogger } from "../../lib/index.js";
import { createSampleJobQueue, jobRoutes } from "../../lib/sample/index.js";

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test("POST /api/v1/reports answers 202 with the job id and Location; GET /api/v1/jobs/{id} tracks it", async () => {
  const queue = createSampleJobQueue({ logger: silentLogger });
  const app = new App({ logger: silentLogger }).routes(jobRoutes(queue));
  app.onShutdown(() => queue.drain(5_000));

  const bad = await app.inject({ method: "POST", url: "/api/v1/reports", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "x", month: "2024-13" }) });
  assert.equal(bad.status, 422);

  const res = await app.inject({ method: "POST", url: "/api/v1/reports", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "usage", month: "2024-05" }) });
  assert.equal(res.status, 202);
  const body = res.json<{ id: string; state: string; status_url: string }>();
  assert.match(body.id, /^job_[0-9a-f]{32}$/);
  assert.equal(body.state, "pending", "not started yet");
  assert.equal(res.headers["location"], `/api/v1/jobs/${body.id}`);
  assert.equal(body.status_url, res.headers["location"]);

  const again = await app.inject({ method: "POST", url: "/api/v1/reports", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "usage", month: "2024-05" }) });
  assert.equal(again.json<{ id: string }>().id, body.id, "same report while pending: same job");

  const pending = await app.inject({ url: body.status_url });
  assert.equal(pending.status, 200);
  assert.deepEqual(
    { ...pending.json<Record<string, unknown>>(), created_at: "", updated_at: "" },
    { id: body.id, type: "reports.build", state: "pending", attempts: 0, max_attempts: 3, last_error: null, created_at: "", updated_at: "" },
  );

  await queue.start();
  await until("the report job", async () => (await app.inject({ url: body.status_url })).json<{ state: string }>().state === "succeeded");
  const done = (await app.inject({ url: body.status_url })).json<{ attempts: number }>();
  assert.equal(done.attempts, 1);

  const missing = await app.inject({ url: "/api/v1/jobs/job_nope" });
  assert.equal(missing.status, 404);
  assert.equal(missing.json<{ error: { type: string } }>().error.type, "not_found");
});

test("app shutdown drains the queue; enqueueing afterwards is a 503", async () => {
  const queue = createSampleJobQueue({ logger: silentLogger });
  await queue.start();
  const app = new App({ logger: silentLogger }).routes(jobRoutes(queue));
  app.onShutdown(() => queue.drain(5_000));
  const controller = new AbortController();
  const server = await app.listen({ port: 0, signal: controller.signal });
  const res = await fetch(`${server.url}/api/v1/reports`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "billing", month: "2024-01" }) });
  assert.equal(res.status, 202);
  await res.arrayBuffer();
  controller.abort();
  await server.closed;
  const stats = await queue.stats();
  assert.equal(stats.phase, "stopped");
  assert.equal(stats.active, 0);
  const after = await app.inject({ method: "POST", url: "/api/v1/reports", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "billing", month: "2024-02" }) });
  assert.equal(after.status, 503);
});

test("queue.healthCheck() plugs into the probes' HealthChecks: backlog over the limit degrades /health", async () => {
  const { HealthChecks } = await import("../../lib/service/index.js");
  const queue = createSampleJobQueue({ logger: silentLogger });
  await queue.start();
  const checks = new HealthChecks({ cacheMs: 0 }).add("jobs", queue.healthCheck({ maxBacklog: 1 }), { critical: false });
  assert.equal((await checks.run()).checks["jobs"]?.status, "ok");
  const { buildReport } = await import("../../lib/sample/index.js");
  await queue.enqueue(buildReport, { kind: "usage", month: "2030-01" }, { delay: 3_600_000 });
  await queue.enqueue(buildReport, { kind: "usage", month: "2030-02" }, { delay: 3_600_000 });
  const report = await checks.run();
  assert.equal(report.status, "degraded");
  assert.deepEqual({ ...report.checks["jobs"], duration_ms: 0 }, { status: "degraded", error: "backlog 2 is over 1", duration_ms: 0 });
  await queue.drain(0);
  const stopped = await checks.run();
  assert.equal(stopped.checks["jobs"]?.status, "fail");
});

test("POST /api/v1/reports refuses unknown properties (422) and bodies over 1 KiB (413): nothing arbitrary reaches the queue", async () => {
  const queue = createSampleJobQueue({ logger: silentLogger });
  const app = new App({ logger: silentLogger }).routes(jobRoutes(queue));
  const post = (body: string) => app.inject({ method: "POST", url: "/api/v1/reports", headers: { "content-type": "application/json" }, body });
  const extra = await post(JSON.stringify({ kind: "usage", month: "2024-05", fail: true, blob: "x" }));
  assert.equal(extra.status, 422);
  assert.match(extra.body, /blob/);
  const big = await post(JSON.stringify({ kind: "usage", month: "2024-05", pad: "x".repeat(900 * 1024) }));
  assert.equal(big.status, 413);
  assert.equal((await queue.stats()).counts.pending, 0);
});

test("the sample's /health reports the job queue's retention pressure", async () => {
  const { createSampleApp } = await import("../../lib/sample/index.js");
  const { production } = await import("../../lib/service/index.js");
  const { MemoryJobStore, JobQueue: Queue, ManualJobClock } = await import("../../lib/jobs/index.js");
  const { buildReport } = await import("../../lib/sample/index.js");
  const clock = new ManualJobClock(1_000);
  const jobs = new Queue({ clock, logger: silentLogger, jobs: [buildReport], maxAttempts: 1, store: new MemoryJobStore({ keepDead: 3 }) });
  const prod = production({ service: "t", level: "silent" });
  const adminToken = "jobs-admin-token-0123456789";
  const app = createSampleApp({ logger: silentLogger, jobs, production: prod, adminToken });
  await jobs.start();
  for (let i = 1; i <= 9; i++) await jobs.enqueue(buildReport, { kind: "usage", month: `2024-0${i}`, fail: true });
  await until("dead letters", async () => {
    await clock.flush();
    return (await jobs.stats()).totals.deadLettered === 9;
  });
  // Why a check degrades is shown to the admin token's bearer (anyone else: "check degraded").
  const anonymous = (await app.inject({ url: "/health" })).json<{ checks: Record<string, { status: string; error?: string }> }>();
  assert.deepEqual([anonymous.checks["jobs"]?.status, anonymous.checks["jobs"]?.error], ["degraded", "check degraded"]);
  const health = await app.inject({ url: "/health", headers: { authorization: `Bearer ${adminToken}` } });
  const body = health.json<{ status: string; checks: Record<string, { status: string; error?: string }> }>();
  assert.equal(body.checks["jobs"]?.status, "degraded");
  assert.match(body.checks["jobs"]?.error ?? "", /dead letters at 100% of their cap \(3\/3, .* 6 evicted\)/);
  await jobs.drain(1_000);
});
