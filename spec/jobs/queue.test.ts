import { test } from "node:test";
import assert from "node:assert/strict";
import { t } from "../../lib/index.js";
import { JobPayloadError, JobQueue, JobQueueClosedError, JobTimeoutError, ManualJobClock, defineJob, type JobQueueOptions } from "../../lib/jobs/index.js";
import { captureLogger } from "../support/capture-logger.js";

function gate(): { promise: Promise<void>; open(): void; fail(err: Error): void } {
  let open!: () => void;
  let fail!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    open = res;
    fail = rej;
  });
  return { promise, open, fail };
}

function queueWith(options: JobQueueOptions & { clock: ManualJobClock }): JobQueue {
  return new JobQueue({ logger: captureLogger(), ...options });
}

test("no more than `concurrency` handlers run at once, and every job runs", async () => {
  const clock = new ManualJobClock(1_000);
  let running = 0;
  let maxRunning = 0;
  const gates = new Map<number, ReturnType<typeof gate>>();
  const ran: number[] = [];
  const job = defineJob({
    name: "slow",
    payload: t.object({ n: t.integer() }),
    handler: async ({ n }) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      const g = gate();
      gates.set(n, g);
      await g.promise;
      running--;
      ran.push(n);
    },
  });
  const queue = queueWith({ clock, concurrency: 3, jobs: [job] });
  for (let n = 0; n < 10; n++) await queue.enqueue(job, { n });
  await queue.start();
  await clock.flush();
  assert.equal(running, 3);
  assert.deepEqual([...gates.keys()], [0, 1, 2], "FIFO: the first three jobs started");
  for (let step = 0; step < 10; step++) {
    const open = [...gates.entries()].find(([n]) => !ran.includes(n));
    assert.ok(open, "a job is waiting to be released");
    open[1].open();
    await clock.flush();
    assert.ok(running <= 3);
  }
  assert.equal(maxRunning, 3);
  assert.deepEqual([...ran].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const stats = await queue.stats();
  assert.equal(stats.counts.succeeded, 10);
  assert.equal(stats.counts.pending, 0);
  assert.equal(stats.totals.started, 10);
  await queue.drain(0);
});

test("a payload that fails its schema is refused at enqueue with a JobPayloadError naming the fields, and never stored", async () => {
  const clock = new ManualJobClock();
  const job = defineJob({ name: "mail", payload: t.object({ to: t.string({ email: true }), retries: t.u8() }), handler: () => undefined });
  const queue = queueWith({ clock, jobs: [job] });
  await assert.rejects(
    queue.enqueue(job, { to: "not-an-email", retries: 1000 }),
    (err: unknown) => {
      assert.ok(err instanceof JobPayloadError);
      assert.equal(err.jobType, "mail");
      assert.equal(err.message, "Invalid payload for job mail");
      const fields = err.fields.map((f) => f.field).sort();
      assert.deepEqual(fields, ["retries", "to"]);
      for (const f of err.fields) assert.ok(typeof f.code === "string" && typeof f.message === "string");
      return true;
    },
  );
  const stats = await queue.stats();
  assert.equal(stats.counts.pending, 0);
  assert.equal(stats.totals.enqueued, 0);
  const id = await queue.enqueue(job, { to: "a@example.com", retries: 3 });
  assert.match(id, /^job_[0-9a-f]{32}$/);
  assert.equal((await queue.getJob(id))?.state, "pending");
  await queue.drain(0);
});

test("a draining or stopped queue refuses enqueue and dead-letter retries with a JobQueueClosedError", async () => {
  const clock = new ManualJobClock();
  const job = defineJob({ name: "late", payload: t.object({}), handler: () => undefined });
  const queue = queueWith({ clock, jobs: [job] });
  await queue.start();
  const draining = queue.drain(0);
  await assert.rejects(queue.enqueue(job, {}), (err: unknown) => err instanceof JobQueueClosedError && err.message === "The job queue is shutting down");
  await draining;
  await assert.rejects(queue.enqueue(job, {}), JobQueueClosedError);
  await assert.rejects(queue.retryDead("job_x"), JobQueueClosedError);
});

test("enqueue refuses unregistered job types and bad options", async () => {
  const clock = new ManualJobClock();
  const job = defineJob({ name: "a", payload: t.object({}), handler: () => undefined });
  const other = defineJob({ name: "b", payload: t.object({}), handler: () => undefined });
  const queue = queueWith({ clock, jobs: [job] });
  await assert.rejects(queue.enqueue(other, {}), /not registered/);
  await assert.rejects(queue.enqueue(job, {}, { delay: -1 }), RangeError);
  await assert.rejects(queue.enqueue(job, {}, { maxAttempts: 0 }), RangeError);
  await assert.rejects(queue.enqueue(job, {}, { key: "" }), TypeError);
  assert.throws(() => queue.register(defineJob({ name: "a", payload: t.object({}), handler: () => undefined })), /already registered/);
  assert.throws(() => defineJob({ name: "bad name", payload: t.object({}), handler: () => undefined }), TypeError);
  await queue.drain(0);
});

test("a key de-duplicates while the job is pending, not once it runs", async () => {
  const clock = new ManualJobClock();
  const g = gate();
  const job = defineJob({ name: "report", payload: t.object({ user: t.string() }), handler: () => g.promise });
  const queue = queueWith({ clock, jobs: [job] });
  const first = await queue.enqueue(job, { user: "a" }, { key: "report:a" });
  const again = await queue.enqueue(job, { user: "a" }, { key: "report:a" });
  const otherKey = await queue.enqueue(job, { user: "b" }, { key: "report:b" });
  assert.equal(again, first);
  assert.notEqual(otherKey, first);
  await queue.start();
  await clock.flush();
  assert.equal((await queue.getJob(first))?.state, "running");
  const afterStart = await queue.enqueue(job, { user: "a" }, { key: "report:a" });
  assert.notEqual(afterStart, first);
  const stats = await queue.stats();
  assert.equal(stats.totals.enqueued, 3);
  assert.equal(stats.totals.deduplicated, 1);
  g.open();
  await clock.flush();
  await queue.drain(0);
});

test("delay and runAt hold a job back until its time", async () => {
  const clock = new ManualJobClock(10_000);
  const ran: string[] = [];
  const job = defineJob({ name: "later", payload: t.object({ tag: t.string() }), handler: ({ tag }) => void ran.push(tag) });
  const queue = queueWith({ clock, jobs: [job] });
  await queue.start();
  await queue.enqueue(job, { tag: "at-15s" }, { runAt: new Date(15_000) });
  await queue.enqueue(job, { tag: "in-2s" }, { delay: 2_000 });
  await clock.flush();
  assert.deepEqual(ran, []);
  await clock.advance(1_999);
  assert.deepEqual(ran, []);
  await clock.advance(1);
  assert.deepEqual(ran, ["in-2s"]);
  await clock.advance(2_999);
  assert.deepEqual(ran, ["in-2s"]);
  await clock.advance(1);
  assert.deepEqual(ran, ["in-2s", "at-15s"]);
  await queue.drain(0);
});

test("after the last attempt a job is dead with its error history; retry from the DLQ runs it again", async () => {
  const clock = new ManualJobClock(0);
  const logger = captureLogger();
  let failing = true;
  let calls = 0;
  const job = defineJob({
    name: "flaky",
    payload: t.object({ n: t.integer() }),
    handler: ({ n }) => {
      calls++;
      if (failing) throw new Error(`boom ${n} #${calls}`);
    },
  });
  const queue = new JobQueue({ clock, logger, jobs: [job], maxAttempts: 3, backoff: { baseMs: 100, factor: 2, maxMs: 10_000 } });
  await queue.start();
  const id = await queue.enqueue(job, { n: 7 });
  for (let i = 0; i < 10 && (await queue.getJob(id))?.state !== "dead"; i++) await clock.advanceToNextTimer();
  const dead = await queue.getDead(id);
  assert.ok(dead, "the job is in the dead-letter queue");
  assert.equal(calls, 3);
  assert.equal(dead.attempts, 3);
  assert.equal(dead.lastError, "boom 7 #3");
  assert.deepEqual(dead.errors.map((e) => [e.attempt, e.message]), [[1, "boom 7 #1"], [2, "boom 7 #2"], [3, "boom 7 #3"]]);
  assert.deepEqual((await queue.listDead()).map((j) => j.id), [id]);

  // One JSON-ready log line per failure: two retries (warn) and one dead letter (error).
  const lines = logger.records.filter((r) => r.fields["job_id"] === id);
  assert.equal(lines.length, 3);
  assert.deepEqual(lines.map((l) => [l.level, l.fields["attempt"], l.fields["dead_letter"] ?? false]), [[40, 1, false], [40, 2, false], [50, 3, true]]);
  for (const l of lines) assert.doesNotThrow(() => JSON.stringify(l.fields));
  assert.equal(lines[0]!.fields["error"], "boom 7 #1");

  let stats = await queue.stats();
  assert.equal(stats.counts.dead, 1);
  assert.equal(stats.totals.failed, 3);
  assert.equal(stats.totals.retried, 2);
  assert.equal(stats.totals.deadLettered, 1);

  failing = false;
  assert.equal(await queue.retryDead(id), true);
  await clock.flush();
  const done = await queue.getJob(id);
  assert.equal(done?.state, "succeeded");
  assert.equal(done?.attempts, 1, "attempts were reset by the retry");
  assert.equal(calls, 4);
  stats = await queue.stats();
  assert.equal(stats.counts.dead, 0);
  assert.equal(stats.totals.deadRetried, 1);
  assert.equal(await queue.retryDead(id), false, "only dead jobs can be retried");
  await queue.drain(0);
});

test("dead letters can be deleted", async () => {
  const clock = new ManualJobClock();
  const job = defineJob({ name: "doomed", payload: t.object({}), maxAttempts: 1, handler: () => Promise.reject(new TypeError("nope")) });
  const queue = queueWith({ clock, jobs: [job] });
  await queue.start();
  const id = await queue.enqueue(job, {});
  await clock.flush();
  assert.equal((await queue.getDead(id))?.lastError, "TypeError: nope");
  assert.equal(await queue.deleteDead(id), true);
  assert.equal(await queue.getJob(id), undefined);
  assert.equal(await queue.deleteDead(id), false);
  assert.deepEqual(await queue.listDead(), []);
  await queue.drain(0);
});

test("a timeout aborts the handler's signal and counts as a failed attempt", async () => {
  const clock = new ManualJobClock();
  const reasons: unknown[] = [];
  const job = defineJob({
    name: "hang",
    payload: t.object({}),
    timeoutMs: 5_000,
    maxAttempts: 2,
    handler: (_p, signal) =>
      new Promise((_res, rej) => {
        signal.addEventListener("abort", () => {
          reasons.push(signal.reason);
          rej(signal.reason);
        });
      }),
  });
  const queue = queueWith({ clock, jobs: [job], random: () => 0 });
  await queue.start();
  const id = await queue.enqueue(job, {});
  await clock.advance(4_999);
  assert.equal((await queue.getJob(id))?.state, "running");
  await clock.advance(1);
  assert.equal(reasons.length, 1);
  assert.ok(reasons[0] instanceof JobTimeoutError);
  // random() = 0: the retry is due at once, and times out again: dead after two attempts.
  await clock.advance(5_000);
  const info = await queue.getJob(id);
  assert.equal(info?.state, "dead");
  assert.deepEqual(info?.errors.map((e) => e.message), ["JobTimeoutError: job timed out after 5000 ms", "JobTimeoutError: job timed out after 5000 ms"]);
  assert.equal((await queue.stats()).totals.timedOut, 2);
  await queue.drain(0);
});

test("health reports backlog and dead letters, degraded over the limits", async () => {
  const clock = new ManualJobClock();
  const job = defineJob({ name: "h", payload: t.object({}), maxAttempts: 1, handler: () => Promise.reject(new Error("x")) });
  const queue = queueWith({ clock, jobs: [job], concurrency: 1 });
  const check = queue.healthCheck({ maxBacklog: 2, maxDeadLetters: 0 });
  assert.equal((await check()).status, "fail", "not started yet");
  await queue.start();
  const { retention, ...rest } = await check();
  assert.deepEqual(rest, { status: "ok", phase: "running", backlog: 0, running: 0, dead: 0 });
  assert.deepEqual(retention?.dead, { count: 0, bytes: 0, maxCount: 1000, maxBytes: 16 * 1024 * 1024, evicted: 0 });
  await queue.enqueue(job, {});
  await clock.flush();
  let h = await check();
  assert.equal(h.status, "degraded");
  assert.equal(h.dead, 1);
  assert.match(h.error ?? "", /1 dead letters/);
  for (let i = 0; i < 3; i++) await queue.enqueue(job, {}, { delay: 60_000 });
  h = await check();
  assert.equal(h.backlog, 3);
  assert.match(h.error ?? "", /backlog 3 is over 2/);
  await queue.drain(0);
  assert.equal((await check()).status, "fail");
});

test("a handler that throws synchronously or rejects with a non-error still counts as a failure", async () => {
  const clock = new ManualJobClock();
  const sync = defineJob({ name: "sync-throw", payload: t.object({}), maxAttempts: 1, handler: () => { throw new Error("sync"); } });
  const odd = defineJob({ name: "odd-reject", payload: t.object({}), maxAttempts: 1, handler: () => Promise.reject(undefined) });
  const queue = queueWith({ clock, jobs: [sync, odd] });
  await queue.start();
  const a = await queue.enqueue(sync, {});
  const b = await queue.enqueue(odd, {});
  await clock.flush();
  assert.equal((await queue.getJob(a))?.lastError, "sync");
  assert.equal((await queue.getJob(b))?.state, "dead");
  await queue.drain(0);
});

test("onChange reports each state change: pending, running, a retry, succeeded, dead; unsubscribing stops it; a throwing listener cannot stop a job", async () => {
  const clock = new ManualJobClock(1_000);
  let calls = 0;
  const flaky = defineJob({
    name: "flaky",
    payload: t.object({ fail: t.integer() }),
    maxAttempts: 2,
    handler: ({ fail }) => {
      calls++;
      if (calls <= fail) throw new Error(`attempt ${calls} failed`);
    },
  });
  const logger = captureLogger();
  const queue = new JobQueue({ logger, clock, jobs: [flaky], backoff: { baseMs: 10, factor: 1, maxMs: 10 }, random: () => 0.5 });
  const changes: string[] = [];
  const stop = queue.onChange((c) => changes.push(`${c.state}:${c.attempt}${c.retryAt === undefined ? "" : "+retry"}${c.error === undefined ? "" : `:${c.error}`}`));
  queue.onChange(() => {
    throw new Error("listener bug");
  });
  const id = await queue.enqueue(flaky, { fail: 1 });
  await queue.start();
  await clock.flush();
  await clock.advance(10);
  await clock.flush();
  assert.deepEqual(changes, ["pending:0", "running:1", "pending:1+retry:attempt 1 failed", "running:2", "succeeded:2"]);
  assert.equal((await queue.getJob(id))?.state, "succeeded");
  assert.ok(logger.records.some((r) => r.msg === "job queue: a change listener failed"));
  changes.length = 0;
  calls = 0;
  await queue.enqueue(flaky, { fail: 5 });
  await clock.flush();
  await clock.advance(10);
  await clock.flush();
  assert.deepEqual(changes, ["pending:0", "running:1", "pending:1+retry:attempt 1 failed", "running:2", "dead:2:attempt 2 failed"]);
  stop();
  await queue.enqueue(flaky, { fail: 0 });
  await clock.flush();
  assert.equal(changes.length, 5, "no change reported after unsubscribing");
  await queue.drain(0);
});
