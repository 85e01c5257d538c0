import { test } from "node:test";
import assert from "node:assert/strict";
import { t } from "../../lib/index.js";
import { DEFAULT_JOB_BACKOFF, JobQueue, ManualJobClock, jobBackoffCeiling, jobBackoffDelay, defineJob } from "../../lib/jobs/index.js";
import { captureLogger } from "../support/capture-logger.js";

test("the ceiling grows by `factor` per attempt up to `maxMs`; defaults are 1 s, x2, 5 min", () => {
  assert.deepEqual({ ...DEFAULT_JOB_BACKOFF }, { baseMs: 1000, factor: 2, maxMs: 300_000 });
  const ceilings = [1, 2, 3, 4, 5, 9, 10, 50].map((a) => jobBackoffCeiling(a, DEFAULT_JOB_BACKOFF));
  assert.deepEqual(ceilings, [1000, 2000, 4000, 8000, 16000, 256000, 300000, 300000]);
  assert.equal(jobBackoffCeiling(10_000, DEFAULT_JOB_BACKOFF), 300_000, "no overflow to NaN/Infinity");
});

test("full jitter: the delay is uniform in [0, ceiling)", () => {
  const policy = { baseMs: 1000, factor: 3, maxMs: 20_000 };
  assert.equal(jobBackoffDelay(1, policy, () => 0), 0);
  assert.equal(jobBackoffDelay(2, policy, () => 0.5), 1500);
  assert.equal(jobBackoffDelay(3, policy, () => 0.999999), 8999);
  assert.equal(jobBackoffDelay(9, policy, () => 0.25), 5000, "capped ceiling");
  // A broken random source never yields a delay outside the range.
  assert.equal(jobBackoffDelay(2, policy, () => 7), 0);
  assert.equal(jobBackoffDelay(2, policy, () => Number.NaN), 0);
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < 2000; i++) {
    const d = jobBackoffDelay(4, policy);
    min = Math.min(min, d);
    max = Math.max(max, d);
  }
  assert.ok(min >= 0 && max < 20_000, `delays within [0, 20000): ${min}..${max}`);
  assert.ok(max - min > 10_000, "delays are spread over the range");
});

test("retry delays of a failing job grow exponentially, measured on a controllable clock", async () => {
  const clock = new ManualJobClock(0);
  const startedAt: number[] = [];
  const job = defineJob({
    name: "always-fails",
    payload: t.object({}),
    handler: () => {
      startedAt.push(clock.now());
      throw new Error("nope");
    },
  });
  const draws: number[] = [];
  const queue = new JobQueue({
    clock,
    logger: captureLogger(),
    jobs: [job],
    maxAttempts: 7,
    backoff: { baseMs: 1000, factor: 2, maxMs: 16_000 },
    random: () => {
      draws.push(0.999);
      return 0.999;
    },
  });
  await queue.start();
  const id = await queue.enqueue(job, {});
  while (await clock.advanceToNextTimer()) {
    if ((await queue.getJob(id))?.state === "dead") break;
  }
  assert.equal(startedAt.length, 7);
  const gaps = startedAt.slice(1).map((at, i) => at - startedAt[i]!);
  assert.deepEqual(gaps, [999, 1998, 3996, 7992, 15984, 15984]);
  for (let i = 1; i < 5; i++) assert.ok(gaps[i]! > gaps[i - 1]!, "each delay is longer than the one before, until the cap");
  assert.equal(draws.length, 6, "one jitter draw per retry, none after the last attempt");
  const info = await queue.getJob(id);
  assert.equal(info?.state, "dead");
  await queue.drain(0);
});

test("per-type backoff overrides the queue's, and the log line carries the delay", async () => {
  const clock = new ManualJobClock(0);
  const logger = captureLogger();
  const job = defineJob({ name: "own-policy", payload: t.object({}), maxAttempts: 3, backoff: { baseMs: 50, factor: 10 }, handler: () => Promise.reject(new Error("x")) });
  const queue = new JobQueue({ clock, logger, jobs: [job], random: () => 0.5 });
  await queue.start();
  await queue.enqueue(job, {});
  for (let i = 0; i < 5; i++) await clock.advanceToNextTimer();
  assert.deepEqual(
    logger.records.filter((r) => r.msg.startsWith("job failed")).map((r) => r.fields["retry_in_ms"] ?? null),
    [25, 250, null],
  );
  await queue.drain(0);
});
