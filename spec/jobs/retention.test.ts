// Finished jobs are bounded in count and bytes: dead letters and kept results beyond their caps
// are evicted oldest first (the same way after a restart of the file store), counted in the
// queue's totals, logged once per burst, and reported by the health check.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { silentLogger, t } from "../../lib/index.js";
import { defineJob, FileJobStore, JobQueue, ManualJobClock, MemoryJobStore, type JobStore } from "../../lib/jobs/index.js";
import { captureLogger } from "../support/capture-logger.js";

const failing = defineJob({
  name: "always-fails",
  payload: t.object({ n: t.integer(), pad: t.string() }),
  maxAttempts: 1,
  handler: () => Promise.reject(new Error("the data source refused the query")),
});
const succeeding = defineJob({ name: "works", payload: t.object({ n: t.integer(), pad: t.string() }), handler: async () => 1 });

async function runJobs(queue: JobQueue, clock: ManualJobClock, job: typeof failing, count: number, padLength = 10): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) ids.push(await queue.enqueue(job, { n, pad: "x".repeat(padLength) }));
  // Until every job has finished (the file store needs real turns of the event loop for its I/O).
  for (let i = 0; i < 100_000; i++) {
    const c = (await queue.stats()).counts;
    if (c.pending === 0 && c.running === 0) break;
    await clock.flush();
    await new Promise((r) => setImmediate(r));
  }
  return ids;
}

for (const kind of ["memory", "file"] as const) {
  const withStore = async (options: ConstructorParameters<typeof MemoryJobStore>[0], fn: (store: JobStore, reopen: () => JobStore) => Promise<void>): Promise<void> => {
    if (kind === "memory") return fn(new MemoryJobStore(options), () => assert.fail("memory stores do not reopen"));
    const dir = mkdtempSync(join(tmpdir(), "keel-retention-"));
    try {
      await fn(new FileJobStore({ dir, logger: silentLogger, ...options }), () => new FileJobStore({ dir, logger: silentLogger, ...options }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  test(`${kind} store: dead letters past keepDead are evicted oldest first`, async () => {
    await withStore({ keepDead: 5 }, async (store, reopen) => {
      const clock = new ManualJobClock(1_000);
      const queue = new JobQueue({ clock, logger: silentLogger, jobs: [failing], store, concurrency: 1 });
      await queue.start();
      const ids = await runJobs(queue, clock, failing, 20);
      const dead = await queue.listDead(100);
      assert.deepEqual(dead.map((d) => d.id), ids.slice(15), "the newest five are kept");
      assert.equal((await queue.getJob(ids[0]!)), undefined, "the oldest is gone");
      const stats = await queue.stats();
      assert.equal(stats.counts.dead, 5);
      assert.equal(stats.totals.deadLettered, 20);
      assert.equal(stats.totals.evictedDead, 15);
      await queue.drain(1000);
      if (kind === "file") {
        // A replayed journal evicts the same records.
        const again = reopen();
        await again.open(clock.now());
        assert.deepEqual((await again.list("dead", 100)).map((r) => r.id), ids.slice(15));
        await again.close();
      }
    });
  });

  test(`${kind} store: dead letters are bounded in bytes too`, async () => {
    await withStore({ maxDeadBytes: 10_000 }, async (store) => {
      const clock = new ManualJobClock(1_000);
      const queue = new JobQueue({ clock, logger: silentLogger, jobs: [failing], store, concurrency: 2 });
      await queue.start();
      await runJobs(queue, clock, failing, 30, 3_000);
      const r = (await queue.health()).retention!;
      assert.ok(r.dead.bytes <= 10_000, `dead bytes ${r.dead.bytes}`);
      assert.ok(r.dead.count >= 1 && r.dead.count <= 3, `dead count ${r.dead.count}`);
      assert.equal(r.dead.evicted, 30 - r.dead.count);
      await queue.drain(1000);
    });
  });

  test(`${kind} store: kept results are bounded in count and bytes`, async () => {
    await withStore({ keepSucceeded: 4, maxSucceededBytes: 1_000_000 }, async (store) => {
      const clock = new ManualJobClock(1_000);
      const queue = new JobQueue({ clock, logger: silentLogger, jobs: [succeeding], store, concurrency: 2 });
      await queue.start();
      await runJobs(queue, clock, succeeding, 12);
      const stats = await queue.stats();
      assert.equal(stats.counts.succeeded, 4);
      assert.equal(stats.totals.evictedSucceeded, 8);
      await queue.drain(1000);
    });
  });
}

test("evictions are logged once per burst, with counts", async () => {
  const clock = new ManualJobClock(1_000);
  const logger = captureLogger(40);
  const queue = new JobQueue({ clock, logger, jobs: [failing], store: new MemoryJobStore({ keepDead: 3 }), concurrency: 1 });
  await queue.start();
  await runJobs(queue, clock, failing, 50);
  const lines = logger.records.filter((r) => r.msg === "job store at its retention cap; oldest finished jobs evicted");
  assert.equal(lines.length, 1, "one line for the burst, not one per job");
  assert.ok((lines[0]!.fields["evicted_dead"] as number) >= 1);
  await clock.advance(11_000);
  await runJobs(queue, clock, failing, 5);
  const later = logger.records.filter((r) => r.msg === "job store at its retention cap; oldest finished jobs evicted");
  assert.equal(later.length, 2, "another line after the interval");
  const total = later.reduce((n, r) => n + (r.fields["evicted_dead"] as number), 0);
  assert.ok(total <= 52 && total >= 2, `evictions logged: ${total}`);
  await queue.drain(1000);
});

test("health reports the pressure: degraded near a cap, with counts, bytes and evictions", async () => {
  const clock = new ManualJobClock(1_000);
  const queue = new JobQueue({ clock, logger: silentLogger, jobs: [failing], store: new MemoryJobStore({ keepDead: 10 }), concurrency: 1 });
  await queue.start();
  await runJobs(queue, clock, failing, 5);
  const half = await queue.health();
  assert.equal(half.status, "ok");
  assert.equal(half.retention?.dead.count, 5);
  await runJobs(queue, clock, failing, 20);
  const full = await queue.health();
  assert.equal(full.status, "degraded");
  assert.match(full.error ?? "", /dead letters at 100% of their cap \(10\/10, \d+\/16777216 bytes; 15 evicted\)/);
  await queue.drain(1000);
});

test("the issue in miniature: many failing jobs with big payloads keep the retained bytes under the cap", async () => {
  const clock = new ManualJobClock(1_000);
  const cap = 2 * 1024 * 1024;
  const queue = new JobQueue({ clock, logger: silentLogger, jobs: [failing], store: new MemoryJobStore({ maxDeadBytes: cap }), concurrency: 4 });
  await queue.start();
  for (let round = 0; round < 10; round++) await runJobs(queue, clock, failing, 20, 100_000);
  const r = (await queue.health()).retention!;
  assert.ok(r.dead.bytes <= cap, `dead bytes ${r.dead.bytes} over ${cap}`);
  assert.ok(r.dead.evicted >= 180, `evicted ${r.dead.evicted}`);
  await queue.drain(1000);
});
