import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, t } from "../../lib/index.js";
import { FileJobStore, JobDrainError, JobQueue, JobQueueClosedError, ManualJobClock, defineJob } from "../../lib/jobs/index.js";

test("drain: stops taking jobs, lets running ones finish within the deadline, leaves the rest pending", async () => {
  const clock = new ManualJobClock(0);
  let release!: () => void;
  const started: string[] = [];
  const job = defineJob({
    name: "work",
    payload: t.object({ tag: t.string() }),
    handler: ({ tag }) => {
      started.push(tag);
      return tag === "slow" ? new Promise<void>((r) => (release = r)) : undefined;
    },
  });
  const queue = new JobQueue({ clock, logger: silentLogger, jobs: [job], concurrency: 1 });
  await queue.start();
  await queue.enqueue(job, { tag: "slow" });
  await queue.enqueue(job, { tag: "next" });
  await queue.enqueue(job, { tag: "later" }, { delay: 60_000 });
  await clock.flush();
  assert.deepEqual(started, ["slow"]);

  const drained = queue.drain(5_000);
  await assert.rejects(queue.enqueue(job, { tag: "refused" }), JobQueueClosedError);
  await clock.advance(1_000);
  release();
  const result = await drained;
  assert.deepEqual(result, { finished: 1, released: 0, pending: 2 });
  assert.deepEqual(started, ["slow"], "no new job started while draining");
  await clock.advance(120_000);
  assert.deepEqual(started, ["slow"], "nothing runs after the drain");
  assert.equal((await queue.stats()).phase, "stopped");
  assert.equal(await queue.drain(), result, "drain is idempotent");
});

test("drain: a job still running at the deadline is aborted and put back to pending, its attempt refunded", async () => {
  const clock = new ManualJobClock(0);
  const seen: { reason?: unknown } = {};
  const job = defineJob({
    name: "stuck",
    payload: t.object({}),
    handler: (_p, signal) => new Promise((_r, rej) => signal.addEventListener("abort", () => rej((seen.reason = signal.reason)))),
  });
  const queue = new JobQueue({ clock, logger: silentLogger, jobs: [job] });
  await queue.start();
  const id = await queue.enqueue(job, {});
  await clock.flush();
  assert.equal((await queue.getJob(id))?.attempts, 1);
  const drained = queue.drain(2_000);
  await clock.advance(1_999);
  assert.ok(!("reason" in seen), "not aborted before the deadline");
  await clock.advance(1);
  const result = await drained;
  assert.deepEqual(result, { finished: 0, released: 1, pending: 1 });
  assert.ok(seen.reason instanceof JobDrainError);
  const info = await queue.getJob(id);
  assert.equal(info?.state, "pending");
  assert.equal(info?.attempts, 0);
  assert.deepEqual(info?.errors, [], "a drain is not a failure");
});

test("drain with the file store: released and pending jobs run after the next start", async (t_) => {
  const dir = await mkdtemp(join(tmpdir(), "keel-jobs-drain-"));
  t_.after(() => rm(dir, { recursive: true, force: true }));
  const clock = new ManualJobClock(0);
  const ran: string[] = [];
  let hang = true;
  const job = defineJob({
    name: "persisted",
    payload: t.object({ tag: t.string() }),
    handler: ({ tag }, signal) => {
      if (hang && tag === "stuck") return new Promise((_r, rej) => signal.addEventListener("abort", () => rej(signal.reason)));
      ran.push(tag);
      return undefined;
    },
  });
  const first = new JobQueue({ clock, logger: silentLogger, jobs: [job], concurrency: 1, store: new FileJobStore({ dir, logger: silentLogger }) });
  await first.start();
  await first.enqueue(job, { tag: "stuck" });
  await clock.advance(10);
  await first.enqueue(job, { tag: "waiting" });
  await clock.flush(5);
  const drained = first.drain(100);
  await clock.advance(100);
  // (the released job keeps its place in line: it was enqueued first)
  assert.deepEqual(await drained, { finished: 0, released: 1, pending: 2 });

  hang = false;
  const second = new JobQueue({ clock, logger: silentLogger, jobs: [job], concurrency: 1, store: new FileJobStore({ dir, logger: silentLogger }) });
  await second.start();
  for (let i = 0; i < 20 && ran.length < 2; i++) await clock.flush();
  assert.deepEqual(ran, ["stuck", "waiting"]);
  await second.drain(0);
});
