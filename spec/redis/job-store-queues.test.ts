// JobQueues sharing one real Redis through RedisJobStore: jobs run exactly once between two
// queues, a job stuck on an abandoned queue finishes on the other after its lease, and a Redis
// outage mid-job loses nothing. These run on the real clock (leases of a few hundred ms); they wait
// for outcomes and never assert on how long anything took.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, describe, it, test } from "node:test";
import { t } from "../../lib/index.js";
import { defineJob, INTERRUPTED_MESSAGE, JobQueue } from "../../lib/jobs/index.js";
import { RedisConnectionError, RedisJobStore, redisClient, type RedisClient } from "../../lib/redis/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { startRedis } from "../support/redis-server.js";

const server = await startRedis();

/** Wait until `check` holds (polling); fails after `limitMs` so a broken build cannot hang the run. */
async function until(what: string, check: () => boolean | Promise<boolean>, limitMs = 20_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await sleep(10);
  }
}

if (server === null) {
  test("JobQueue on RedisJobStore", (t) => t.skip("redis-server not installed"));
} else {
  after(() => server.stop());
  let prefixes = 0;
  const newPrefix = (): string => `test:queues:${process.pid}:${prefixes++}:`;
  const clients: RedisClient[] = [];
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
  });
  const connect = (url = server.url): RedisClient => {
    const c = redisClient({ url, reconnect: { baseMs: 20, maxMs: 100 } });
    clients.push(c);
    return c;
  };

  describe("JobQueue on RedisJobStore", () => {
    it("two queues on one Redis run 200 jobs exactly once between them", async () => {
      const prefix = newPrefix();
      const runs = new Map<number, string[]>();
      const jobFor = (queueName: string) =>
        defineJob({
          name: "count",
          payload: t.object({ n: t.integer() }),
          handler: async ({ n }) => {
            await sleep(1);
            runs.set(n, [...(runs.get(n) ?? []), queueName]);
          },
        });
      const typeA = jobFor("a");
      const queueA = new JobQueue({ store: new RedisJobStore({ client: connect(), prefix }), logger: captureLogger(), jobs: [typeA], concurrency: 4 });
      const queueB = new JobQueue({ store: new RedisJobStore({ client: connect(), prefix }), logger: captureLogger(), jobs: [jobFor("b")], concurrency: 4 });
      await queueA.start();
      await queueB.start();
      // Everything is enqueued on A; B learns about the jobs from the store's wake-ups.
      for (let n = 0; n < 200; n++) await queueA.enqueue(typeA, { n });
      await until("200 jobs succeeded", async () => (await queueA.stats()).counts.succeeded === 200);
      assert.equal(runs.size, 200);
      for (const [n, by] of runs) assert.equal(by.length, 1, `job ${n} ran ${by.length} times (${by.join(", ")})`);
      const byA = [...runs.values()].filter((by) => by[0] === "a").length;
      assert.ok(byA > 0 && byA < 200, `both queues ran jobs (a ran ${byA} of 200)`);
      const stats = [await queueA.stats(), await queueB.stats()];
      assert.equal(stats[0]!.totals.started + stats[1]!.totals.started, 200);
      assert.deepEqual(stats[0]!.counts, { pending: 0, running: 0, succeeded: 200, dead: 0 });
      await queueA.drain(1_000);
      await queueB.drain(1_000);
    });

    it("a job stuck on an abandoned queue (its Redis client closed) finishes on the other queue after the lease", async () => {
      const prefix = newPrefix();
      let startedOnA!: () => void;
      const onA = new Promise<void>((resolve) => (startedOnA = resolve));
      const stuck = defineJob({
        name: "stuck",
        payload: t.object({}),
        timeoutMs: 60_000,
        handler: () => {
          startedOnA();
          return new Promise<void>(() => undefined); // never finishes: its worker is as good as dead
        },
      });
      let finishedOnB!: (attempt: number) => void;
      const onB = new Promise<number>((resolve) => (finishedOnB = resolve));
      const healthy = defineJob({ name: "stuck", payload: t.object({}), handler: () => undefined });

      const clientA = connect();
      const loggerA = captureLogger();
      const queueA = new JobQueue({ store: new RedisJobStore({ client: clientA, prefix, leaseMs: 600 }), logger: loggerA, jobs: [stuck] });
      await queueA.start();
      const id = await queueA.enqueue(stuck, {});
      await onA;
      await clientA.close(); // A's renewals now fail: its lease lapses

      const queueB = new JobQueue({ store: new RedisJobStore({ client: connect(), prefix, leaseMs: 600 }), logger: captureLogger(), jobs: [healthy] });
      queueB.onChange((change) => {
        if (change.id === id && change.state === "succeeded") finishedOnB(change.attempt);
      });
      await queueB.start();
      assert.equal(await onB, 2, "the second attempt, on B");
      const job = await queueB.getJob(id);
      assert.equal(job?.state, "succeeded");
      assert.deepEqual(job?.errors.map((e) => e.message), [INTERRUPTED_MESSAGE]);
      await until("A has noticed it cannot renew", () => loggerA.records.some((r) => r.msg === "job queue: cannot renew job leases"));
      await queueA.drain(0); // the release fails (no connection): logged, not thrown
      await queueB.drain(1_000);
    });

    it("a Redis outage mid-job: enqueue rejects, the queue keeps going, and the job whose completion was lost runs again after its lease", async () => {
      const own = await startRedis();
      assert.ok(own);
      try {
        let calls = 0;
        let release!: () => void;
        const firstRunMayEnd = new Promise<void>((resolve) => (release = resolve));
        let firstStarted!: () => void;
        const started = new Promise<void>((resolve) => (firstStarted = resolve));
        const job = defineJob({
          name: "important",
          payload: t.object({}),
          handler: async () => {
            calls++;
            if (calls === 1) {
              firstStarted();
              await firstRunMayEnd;
            }
          },
        });
        const logger = captureLogger();
        const queue = new JobQueue({ store: new RedisJobStore({ client: connect(own.url), prefix: newPrefix(), leaseMs: 500 }), logger, jobs: [job] });
        await queue.start();
        const id = await queue.enqueue(job, {});
        await started;

        own.kill();
        await assert.rejects(queue.enqueue(job, {}), RedisConnectionError, "enqueue answers the outage (a 503 in a handler)");
        release(); // the first run ends while Redis is down: its completion cannot be written
        await until("the lost completion is logged", () => logger.records.some((r) => r.msg === "job queue: job store write failed" && r.fields["job_id"] === id));

        await own.restart();
        await until("the job ran again and succeeded", async () => (await queue.getJob(id).catch(() => undefined))?.state === "succeeded");
        assert.equal(calls, 2, "at least once: the run whose outcome was lost ran again");
        const info = await queue.getJob(id);
        assert.deepEqual(info?.errors.map((e) => e.message), [INTERRUPTED_MESSAGE]);
        assert.equal((await queue.stats()).phase, "running", "the queue survived the outage");
        await queue.drain(1_000);
      } finally {
        await own.stop();
      }
    });
  });
}
