// RedisJobStore against a real redis-server (started here on a free loopback port): the JobStore
// contract every store keeps, then what only a shared store has to do: atomic claims across
// instances, leases (lapse, take-over, renewal), wake-ups, retention caps. Lease deadlines come
// from the `now` the caller passes, so none of these tests waits for a clock.
import assert from "node:assert/strict";
import { after, describe, it, test } from "node:test";
import { INTERRUPTED_MESSAGE, type JobRecord } from "../../lib/jobs/index.js";
import { RedisConnectionError, RedisJobStore, redisClient, type RedisClient, type RedisJobStoreOptions } from "../../lib/redis/index.js";
import { jobRecord, jobStoreContract } from "../jobs/job-store-contract.js";
import { startRedis } from "../support/redis-server.js";

const server = await startRedis();

if (server === null) {
  test("RedisJobStore", (t) => t.skip("redis-server not installed"));
} else {
  after(() => server.stop());
  const url = server.url;
  let prefixes = 0;
  /** A fresh key prefix: every test its own jobs on the one server. */
  const newPrefix = (): string => `test:jobs:${process.pid}:${prefixes++}:`;

  const clients: RedisClient[] = [];
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
  });
  const connect = (): RedisClient => {
    const c = redisClient(url);
    clients.push(c);
    return c;
  };

  /** An opened store on its own client; `prefix` shared when given. */
  const openStore = async (options: Partial<RedisJobStoreOptions> = {}): Promise<RedisJobStore> => {
    const store = new RedisJobStore({ client: connect(), prefix: newPrefix(), ...options });
    await store.open();
    return store;
  };
  /** Two instances sharing one prefix (two clients: two processes, as far as Redis can tell). */
  const pair = async (options: Partial<RedisJobStoreOptions> = {}): Promise<[RedisJobStore, RedisJobStore]> => {
    const prefix = newPrefix();
    return [await openStore({ ...options, prefix }), await openStore({ ...options, prefix })];
  };
  const ids = (records: readonly JobRecord[]): string[] => records.map((r) => r.id);

  jobStoreContract("RedisJobStore", {
    create(cleanup) {
      const client = connect();
      cleanup(() => client.close());
      return new RedisJobStore({ client, prefix: newPrefix() });
    },
  });

  describe("RedisJobStore across instances", () => {
    it("two instances claiming concurrently hand out each of 1,000 jobs exactly once", async () => {
      const [a, b] = await pair();
      const all: string[] = [];
      for (let i = 0; i < 1000; i++) all.push(`j${i}`);
      await Promise.all(all.map((id, i) => (i % 2 === 0 ? a : b).add(jobRecord(id, { runAt: i % 7 }))));
      const seen = new Map<string, number>();
      const claimer = async (store: RedisJobStore): Promise<void> => {
        for (;;) {
          const got = await store.claim(10, 7);
          if (got.length === 0) return;
          for (const r of got) seen.set(r.id, (seen.get(r.id) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: 16 }, (_, i) => claimer(i % 2 === 0 ? a : b)));
      assert.equal(seen.size, 1000, "every job handed out");
      assert.deepEqual([...new Set(seen.values())], [1], "none twice");
      assert.deepEqual(await a.counts(), { pending: 0, running: 1000, succeeded: 0, dead: 0 });
    });

    it("a lapsed lease is taken back by the other instance's claim; the first holder can then not finish the run", async () => {
      const [a, b] = await pair({ leaseMs: 1_000 });
      await a.add(jobRecord("j", { maxAttempts: 3 }));
      assert.deepEqual(ids(await a.claim(0, 1)), ["j"]);
      assert.deepEqual(await b.claim(1_000, 1), [], "the lease runs until its deadline");
      const [taken] = await b.claim(1_001, 1);
      assert.equal(taken?.id, "j");
      assert.equal(taken?.attempts, 2, "the lapsed run counts as an attempt");
      assert.deepEqual(taken?.errors, [{ attempt: 1, at: 1_001, message: INTERRUPTED_MESSAGE }]);
      assert.equal(await a.complete("j", 1_002), false, "a's lease is gone");
      assert.equal(await a.fail("j", 1_002, "late", null), false);
      assert.equal(await a.release("j", 1_002), false);
      assert.equal(await b.complete("j", 1_003), true);
      assert.equal((await a.get("j"))?.state, "succeeded");
    });

    it("a lapsed lease on the last attempt sends the job to the dead-letter queue", async () => {
      const [a, b] = await pair({ leaseMs: 100 });
      await a.add(jobRecord("last", { maxAttempts: 1 }));
      await a.claim(0, 1);
      assert.deepEqual(await b.claim(500, 1), []);
      const dead = await b.get("last");
      assert.equal(dead?.state, "dead");
      assert.deepEqual(dead?.errors.map((e) => e.message), [INTERRUPTED_MESSAGE]);
    });

    it("renew keeps a lease alive past leaseMs; only the holder can renew", async () => {
      const [a, b] = await pair({ leaseMs: 1_000 });
      await a.add(jobRecord("j"));
      await a.claim(0, 1);
      assert.deepEqual(await a.renew(["j"], 800), [], "renewed to 1800");
      assert.deepEqual(await b.claim(1_500, 1), [], "past the first deadline, still a's");
      assert.deepEqual(await b.renew(["j"], 1_500), ["j"], "b holds no lease on it");
      assert.deepEqual(await a.renew(["j"], 1_700), [], "renewed to 2700");
      assert.deepEqual(await b.claim(2_700, 1), []);
      assert.deepEqual(ids(await b.claim(2_701, 1)), ["j"]);
      assert.deepEqual(await a.renew(["j"], 2_702), ["j"], "taken over: a learns it has lost the lease");
      assert.equal(await a.complete("j", 2_703), false);
    });

    it("delayed jobs wait in line for their time, whichever instance added them", async () => {
      const [a, b] = await pair();
      await a.add(jobRecord("later", { runAt: 5_000 }));
      await a.add(jobRecord("now", { runAt: 0 }));
      assert.equal(await b.nextRunAt(), 0);
      assert.deepEqual(ids(await b.claim(4_999, 10)), ["now"]);
      assert.equal(await b.nextRunAt(), 5_000);
      assert.deepEqual(ids(await b.claim(5_000, 10)), ["later"]);
      assert.equal(await a.nextRunAt(), null);
    });

    it("a due job whose hash is gone (evicted, deleted by hand) is skipped and dropped: it never blocks the jobs behind it", async () => {
      const store = await openStore();
      const client = clients.at(-1)!;
      await store.add(jobRecord("lost", { runAt: 1 }));
      await store.add(jobRecord("next", { runAt: 2 }));
      await client.command(["DEL", store.prefix + "job:lost"]);
      assert.deepEqual(ids(await store.claim(10, 5)), ["next"]);
      assert.equal(await store.nextRunAt(), null, "the orphan left the line");
      assert.deepEqual(await store.counts(), { pending: 0, running: 1, succeeded: 0, dead: 0 });
      assert.equal(await store.complete("next", 11), true);
    });

    it("dead letters are listed, retried and deleted from any instance; de-duplication keys are shared", async () => {
      const [a, b] = await pair();
      await a.add(jobRecord("d", { maxAttempts: 1, key: "k" }));
      assert.deepEqual(await b.add(jobRecord("dup", { key: "k" })), { id: "d", created: false });
      await a.claim(0, 1);
      assert.equal(await a.fail("d", 1, "fatal", null), true);
      assert.deepEqual(ids(await b.list("dead", 10)), ["d"]);
      assert.equal(await b.retryDead("d", 10), true);
      assert.deepEqual(await a.add(jobRecord("dup2", { key: "k" })), { id: "d", created: false }, "a retried job takes its key back");
      const [again] = await a.claim(10, 1);
      assert.equal(again?.attempts, 1);
      await a.fail("d", 11, "fatal again", null);
      assert.equal(await b.deleteDead("d"), true);
      assert.equal(await a.get("d"), undefined);
      assert.deepEqual(await a.counts(), { pending: 0, running: 0, succeeded: 0, dead: 0 });
    });

    it("a store sees a job another instance added through its wake-ups", async () => {
      const [a, b] = await pair();
      let woken!: () => void;
      const wake = new Promise<void>((resolve) => (woken = resolve));
      const stop = b.onWake(() => woken());
      // The subscription is set up in the background: add until the wake-up arrives.
      let n = 0;
      let done = false;
      void wake.then(() => (done = true));
      while (!done) {
        await a.add(jobRecord(`w${n++}`));
        await new Promise((r) => setTimeout(r, 10));
      }
      stop();
      await b.close();
    });
  });

  describe("RedisJobStore records and retention", () => {
    it("payloads and error histories come back as they went in (empty arrays, big numbers, unicode); 20 errors kept", async () => {
      const store = await openStore();
      const payload = { list: [], nested: { empty: {}, arr: [[], [1]] }, big: 9007199254740991, frac: 0.30000000000000004, text: "ünï\u{1F600}\n\"x\"/" };
      await store.add(jobRecord("p", { payload, maxAttempts: 30 }));
      for (let i = 1; i <= 25; i++) {
        await store.claim(i * 10, 1);
        await store.fail("p", i * 10 + 1, `fail ${i} – ü, "quoted", [brackets]`, i * 10 + 5);
      }
      const p = await store.get("p");
      assert.deepEqual(p?.payload, payload);
      assert.equal(p?.errors.length, 20);
      assert.deepEqual(p?.errors[0], { attempt: 6, at: 61, message: `fail 6 – ü, "quoted", [brackets]` });
      assert.equal(p?.errors[19]?.attempt, 25);
      assert.equal(p?.attempts, 25);
      assert.equal(p?.runAt, 255);
    });

    it("keeps succeeded jobs and dead letters within their caps, oldest evicted first, and reports it", async () => {
      const store = await openStore({ retention: { keepSucceeded: 2, keepDead: 1, maxDeadBytes: 1_000_000 } });
      for (const id of ["a", "b", "c", "x", "y"]) await store.add(jobRecord(id, { maxAttempts: 1 }));
      await store.claim(0, 5);
      for (const id of ["a", "b", "c"]) assert.equal(await store.complete(id, 1), true);
      await store.fail("x", 2, "dead x", null);
      await store.fail("y", 3, "dead y", null);
      assert.equal(await store.get("a"), undefined, "the oldest succeeded job is forgotten");
      assert.equal(await store.get("x"), undefined);
      assert.deepEqual(ids(await store.list("succeeded", 10)), ["b", "c"]);
      assert.deepEqual(ids(await store.list("dead", 10)), ["y"]);
      const r = store.retention();
      assert.deepEqual([r.succeeded.count, r.succeeded.maxCount, r.succeeded.evicted], [2, 2, 1]);
      assert.deepEqual([r.dead.count, r.dead.maxCount, r.dead.evicted], [1, 1, 1]);
      assert.ok(r.dead.bytes > 0 && r.succeeded.bytes > 0);
      assert.equal(await store.deleteDead("y"), true);
      await store.counts();
      assert.equal(store.retention().dead.bytes, 0, "a deleted dead letter no longer counts");
    });

    it("a byte cap evicts too", async () => {
      const store = await openStore({ retention: { maxSucceededBytes: 300 } });
      for (const id of ["a", "b", "c"]) await store.add(jobRecord(id, { payload: "x".repeat(100) }));
      await store.claim(0, 3);
      for (const id of ["a", "b", "c"]) await store.complete(id, 1);
      // Each record costs about 170 (64 + type + its 102-character payload): one fits under 300.
      assert.deepEqual(ids(await store.list("succeeded", 10)), ["c"], "only the newest fits");
      const r = store.retention().succeeded;
      assert.ok(r.bytes > 0 && r.bytes <= 300);
      assert.equal(r.evicted, 2);
    });
  });

  describe("RedisJobStore while Redis is down", () => {
    it("operations reject with RedisConnectionError and the store reports a failure; it works again after a restart", async () => {
      const own = await startRedis();
      assert.ok(own);
      const client = redisClient({ url: own.url, reconnect: { baseMs: 20, maxMs: 100 } });
      const store = new RedisJobStore({ client, prefix: newPrefix() });
      try {
        await store.open();
        await store.add(jobRecord("kept"));
        await store.claim(0, 1);
        own.kill();
        await assert.rejects(store.add(jobRecord("lost")), RedisConnectionError);
        await assert.rejects(store.claim(0, 1), RedisConnectionError);
        await assert.rejects(store.complete("kept", 1), RedisConnectionError);
        assert.ok(store.failure instanceof Error, "the store reports it cannot write");
        await own.restart();
        await client.connect();
        assert.equal(store.failure, null);
        const kept = await store.get("kept");
        assert.equal(kept?.state, "running", "the run whose completion failed is still leased: the lease will hand it out again");
      } finally {
        await store.close();
        await client.close();
        await own.stop();
      }
    });
  });
}
