// Job types run in node:worker_threads: same retry, timeout and dead-letter semantics.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { t } from "../../lib/index.js";
import { JobQueue, defineJob, type JobQueue as Queue } from "../../lib/jobs/index.js";
import { captureLogger } from "../support/capture-logger.js";

const handlers = new URL("./fixtures/thread-handlers.mjs", import.meta.url);

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function stateOf(queue: Queue, id: string): Promise<string | undefined> {
  return (await queue.getJob(id))?.state;
}

test("thread jobs run in worker threads; handler errors are retried then dead-lettered; timeouts terminate the thread", { timeout: 30_000 }, async (tt) => {
  const dir = await mkdtemp(join(tmpdir(), "keel-jobs-threads-"));
  tt.after(() => rm(dir, { recursive: true, force: true }));
  const out = join(dir, "out.txt");
  const fib = defineJob({ name: "fib", payload: t.object({ out: t.string(), n: t.integer() }), thread: { module: handlers, export: "fibonacci" } });
  const failing = defineJob({ name: "fails", payload: t.object({ n: t.integer() }), maxAttempts: 3, thread: { module: handlers, export: "alwaysFails" } });
  const spin = defineJob({ name: "spin", payload: t.object({}), maxAttempts: 2, timeoutMs: 300, thread: { module: handlers, export: "spin" } });
  const missing = defineJob({ name: "missing-export", payload: t.object({}), maxAttempts: 1, thread: { module: handlers, export: "nope" } });
  const logger = captureLogger();
  const queue = new JobQueue({ logger, jobs: [fib, failing, spin, missing], concurrency: 4, threads: { size: 2 }, backoff: { baseMs: 5, maxMs: 20 } });
  tt.after(() => queue.drain(0));
  await queue.start();

  const fibIds = await Promise.all([10, 20, 30].map((n) => queue.enqueue(fib, { out, n })));
  const failId = await queue.enqueue(failing, { n: 7 });
  const spinId = await queue.enqueue(spin, {});
  const missingId = await queue.enqueue(missing, {});

  await until("fib jobs", async () => (await Promise.all(fibIds.map((id) => stateOf(queue, id)))).every((s) => s === "succeeded"));
  const lines = readFileSync(out, "utf8").trim().split("\n").sort();
  assert.deepEqual(lines.map((l) => l.split(":").slice(0, 2).join(":")), ["10:55", "20:6765", "30:832040"]);
  for (const l of lines) assert.doesNotMatch(l, /thread-0$/, "ran outside the main thread");

  await until("failing job in DLQ", async () => (await stateOf(queue, failId)) === "dead");
  const dead = await queue.getDead(failId);
  assert.equal(dead?.attempts, 3);
  assert.deepEqual(dead?.errors.map((e) => e.message), ["RangeError: bad input 7", "RangeError: bad input 7", "RangeError: bad input 7"]);

  await until("spinning job in DLQ", async () => (await stateOf(queue, spinId)) === "dead");
  assert.deepEqual((await queue.getJob(spinId))?.errors.map((e) => e.message), ["JobTimeoutError: job timed out after 300 ms", "JobTimeoutError: job timed out after 300 ms"]);

  await until("missing export in DLQ", async () => (await stateOf(queue, missingId)) === "dead");
  assert.match((await queue.getJob(missingId))?.lastError ?? "", /no exported function "nope"/);

  // The pool replaced the terminated threads: thread jobs still run.
  const later = await queue.enqueue(fib, { out, n: 5 });
  await until("job after timeouts", async () => (await stateOf(queue, later)) === "succeeded");
  const stats = await queue.stats();
  assert.equal(stats.totals.timedOut, 2);
  assert.equal(stats.counts.dead, 3);
  assert.equal(logger.records.filter((r) => r.fields["job_id"] === failId).length, 3, "one log line per failed attempt");
});

test("TypeScript thread handlers load with a preload module (a loader registration)", { timeout: 20_000 }, async (tt) => {
  const dir = await mkdtemp(join(tmpdir(), "keel-jobs-threads-ts-"));
  tt.after(() => rm(dir, { recursive: true, force: true }));
  const out = join(dir, "out.txt");
  const square = defineJob({
    name: "square",
    payload: t.object({ out: t.string(), n: t.integer() }),
    thread: { module: new URL("./fixtures/thread-handlers.ts", import.meta.url), export: "recordSquare" },
  });
  const queue = new JobQueue({ logger: captureLogger(), jobs: [square], threads: { size: 1, preload: [new URL("./fixtures/tsx-preload.mjs", import.meta.url)] } });
  tt.after(() => queue.drain(0));
  await queue.start();
  const id = await queue.enqueue(square, { out, n: 12 });
  await until("square job", async () => (await stateOf(queue, id)) !== "pending" && (await stateOf(queue, id)) !== "running");
  assert.equal(await stateOf(queue, id), "succeeded", (await queue.getJob(id))?.lastError ?? "");
  assert.ok(existsSync(out));
  assert.match(readFileSync(out, "utf8"), /^144:thread-[1-9]\d*\n$/);
});

test("thread modules must be absolute (a relative path would resolve against an unknown directory)", () => {
  assert.throws(() => defineJob({ name: "rel", payload: t.object({}), thread: { module: "./x.js" } }), /file URL or an absolute path/);
  assert.throws(() => defineJob({ name: "both", payload: t.object({}), handler: () => undefined, thread: { module: handlers } }), /exactly one/);
});
