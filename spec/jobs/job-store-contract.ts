// The contract every JobStore keeps (the in-memory and journal stores today, shared stores later):
// one suite, run against each implementation, as Hono runs one router suite against each router.
// It holds a store to the JobStore interface only; durability (reopen, torn lines, compaction,
// fsync) is the file store's own spec.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JobRecord, JobStore } from "../../lib/jobs/index.js";

export interface JobStoreUnderTest {
  /** A new, empty, unopened store; `after` registers cleanup (temporary directories). */
  create(after: (fn: () => unknown) => void): JobStore | Promise<JobStore>;
}

export function jobRecord(id: string, extra: Partial<JobRecord> = {}): JobRecord {
  return { id, type: "t", payload: { id }, state: "pending", attempts: 0, maxAttempts: 3, runAt: 0, createdAt: 0, updatedAt: 0, key: null, errors: [], ...extra };
}

export function jobStoreContract(name: string, subject: JobStoreUnderTest): void {
  describe(`JobStore contract: ${name}`, () => {
    /** An opened store, closed when the test ends (before the subject's own cleanup runs). */
    const fresh = async (t: { after(fn: () => unknown): void }, now = 0): Promise<JobStore> => {
      const cleanup: Array<() => unknown> = [];
      const store = await subject.create((fn) => cleanup.push(fn));
      t.after(async () => {
        await store.close();
        for (const fn of cleanup) await fn();
      });
      await store.open(now);
      return store;
    };
    const ids = (records: readonly JobRecord[]): string[] => records.map((r) => r.id);

    it("add stores a pending job; get returns it, unknown ids answer undefined", async (t) => {
      const store = await fresh(t);
      assert.deepEqual(await store.add(jobRecord("a", { payload: { text: "héllo\nworld", n: [1, 2] } })), { id: "a", created: true });
      const a = await store.get("a");
      assert.equal(a?.state, "pending");
      assert.equal(a?.attempts, 0);
      assert.deepEqual(a?.payload, { text: "héllo\nworld", n: [1, 2] });
      assert.equal(await store.get("nope"), undefined);
      assert.deepEqual(await store.counts(), { pending: 1, running: 0, succeeded: 0, dead: 0 });
      assert.ok(store.failure === undefined || store.failure === null, "a healthy store reports no failure");
    });

    it("the key of a pending job de-duplicates: the first job's id, created false; a running job's key does not", async (t) => {
      const store = await fresh(t);
      await store.add(jobRecord("first", { key: "k" }));
      assert.deepEqual(await store.add(jobRecord("second", { key: "k" })), { id: "first", created: false });
      assert.equal(await store.get("second"), undefined);
      assert.deepEqual(await store.counts(), { pending: 1, running: 0, succeeded: 0, dead: 0 });
      await store.claim(0, 1);
      assert.deepEqual(await store.add(jobRecord("third", { key: "k" })), { id: "third", created: true });
      assert.deepEqual(await store.add(jobRecord("other", { key: "k2" })), { id: "other", created: true });
    });

    it("claim takes due jobs only, earliest run-at first (then first added), up to the limit", async (t) => {
      const store = await fresh(t);
      await store.add(jobRecord("late", { runAt: 500 }));
      await store.add(jobRecord("b", { runAt: 100 }));
      await store.add(jobRecord("c", { runAt: 100 }));
      await store.add(jobRecord("a", { runAt: 50 }));
      await store.add(jobRecord("future", { runAt: 10_000 }));
      assert.deepEqual(ids(await store.claim(600, 2)), ["a", "b"]);
      assert.deepEqual(ids(await store.claim(600, 10)), ["c", "late"]);
      assert.deepEqual(await store.claim(600, 10), [], "claimed jobs are not handed out again; future ones wait");
      assert.deepEqual(ids(await store.claim(10_000, 10)), ["future"]);
    });

    it("a claimed job is running, its attempt counted and updatedAt set", async (t) => {
      const store = await fresh(t);
      await store.add(jobRecord("j"));
      const [claimed] = await store.claim(42, 1);
      assert.equal(claimed?.id, "j");
      const j = await store.get("j");
      assert.equal(j?.state, "running");
      assert.equal(j?.attempts, 1);
      assert.equal(j?.updatedAt, 42);
      assert.deepEqual(await store.counts(), { pending: 0, running: 1, succeeded: 0, dead: 0 });
    });

    it("nextRunAt is the earliest pending run-at, null when nothing is pending", async (t) => {
      const store = await fresh(t);
      assert.equal(await store.nextRunAt(), null);
      await store.add(jobRecord("x", { runAt: 300 }));
      await store.add(jobRecord("y", { runAt: 200 }));
      assert.equal(await store.nextRunAt(), 200);
      await store.claim(250, 10);
      assert.equal(await store.nextRunAt(), 300, "running jobs do not count");
      await store.claim(300, 10);
      assert.equal(await store.nextRunAt(), null);
    });

    it("complete moves a running job to succeeded; other states answer false", async (t) => {
      const store = await fresh(t);
      await store.add(jobRecord("run"));
      await store.add(jobRecord("wait", { runAt: 1_000 }));
      await store.claim(0, 10);
      assert.equal(await store.complete("run", 5), true);
      const run = await store.get("run");
      assert.equal(run?.state, "succeeded");
      assert.equal(run?.updatedAt, 5);
      assert.equal(await store.complete("run", 6), false, "already succeeded");
      assert.equal(await store.complete("wait", 6), false, "pending");
      assert.equal(await store.complete("nope", 6), false, "unknown");
      assert.deepEqual(await store.counts(), { pending: 1, running: 0, succeeded: 1, dead: 0 });
    });

    it("fail with a retry time puts the job back to pending at that time, with the error recorded", async (t) => {
      const store = await fresh(t);
      await store.add(jobRecord("f"));
      await store.claim(0, 1);
      assert.equal(await store.fail("f", 10, "boom", 1_000), true);
      const f = await store.get("f");
      assert.equal(f?.state, "pending");
      assert.equal(f?.runAt, 1_000);
      assert.equal(f?.attempts, 1);
      assert.deepEqual(f?.errors, [{ attempt: 1, at: 10, message: "boom" }]);
      assert.equal(await store.nextRunAt(), 1_000);
      assert.deepEqual(await store.claim(999, 1), []);
      assert.deepEqual(ids(await store.claim(1_000, 1)), ["f"]);
      assert.equal((await store.get("f"))?.attempts, 2);
      assert.equal(await store.fail("nope", 10, "x", 20), false);
    });

    it("fail without a retry time moves the job to the dead-letter queue with its history", async (t) => {
      const store = await fresh(t);
      await store.add(jobRecord("d", { maxAttempts: 2 }));
      await store.claim(0, 1);
      await store.fail("d", 1, "first", 2);
      await store.claim(2, 1);
      assert.equal(await store.fail("d", 3, "second", null), true);
      const d = await store.get("d");
      assert.equal(d?.state, "dead");
      assert.deepEqual(d?.errors.map((e) => [e.attempt, e.message]), [[1, "first"], [2, "second"]]);
      assert.equal(await store.fail("d", 4, "again", null), false, "only running jobs fail");
      assert.deepEqual(await store.counts(), { pending: 0, running: 0, succeeded: 0, dead: 1 });
    });

    it("release puts a running job back to pending, its attempt refunded and its place in line kept", async (t) => {
      const store = await fresh(t);
      await store.add(jobRecord("r", { runAt: 10 }));
      await store.add(jobRecord("s", { runAt: 20 }));
      await store.claim(10, 1);
      assert.equal(await store.release("r", 15), true);
      const r = await store.get("r");
      assert.equal(r?.state, "pending");
      assert.equal(r?.attempts, 0);
      assert.equal(r?.runAt, 10);
      assert.deepEqual(ids(await store.claim(20, 10)), ["r", "s"]);
      assert.equal(await store.release("nope", 15), false);
      await store.complete("r", 21);
      assert.equal(await store.release("r", 22), false, "succeeded");
    });

    it("list answers jobs in a state, oldest entry into it first, up to the limit", async (t) => {
      const store = await fresh(t);
      for (const id of ["a", "b", "c", "d"]) await store.add(jobRecord(id));
      await store.claim(0, 4);
      for (const id of ["c", "a", "d"]) await store.complete(id, 1);
      assert.deepEqual(ids(await store.list("succeeded", 10)), ["c", "a", "d"]);
      assert.deepEqual(ids(await store.list("succeeded", 2)), ["c", "a"]);
      assert.deepEqual(await store.list("succeeded", 0), []);
      assert.deepEqual(ids(await store.list("running", 10)), ["b"]);
      assert.deepEqual(await store.list("dead", 10), []);
    });

    it("retryDead moves a dead job back to pending now with attempts reset and history kept", async (t) => {
      const store = await fresh(t);
      await store.add(jobRecord("x", { maxAttempts: 1 }));
      await store.add(jobRecord("alive"));
      await store.claim(0, 1);
      await store.fail("x", 1, "fatal", null);
      assert.equal(await store.retryDead("x", 50), true);
      const x = await store.get("x");
      assert.equal(x?.state, "pending");
      assert.equal(x?.attempts, 0);
      assert.equal(x?.runAt, 50);
      assert.deepEqual(x?.errors.map((e) => e.message), ["fatal"]);
      assert.equal(await store.retryDead("x", 51), false, "no longer dead");
      assert.equal(await store.retryDead("alive", 51), false, "pending");
      assert.equal(await store.retryDead("nope", 51), false, "unknown");
    });

    it("deleteDead forgets a dead job; other states answer false", async (t) => {
      const store = await fresh(t);
      await store.add(jobRecord("x"));
      await store.add(jobRecord("alive", { runAt: 100 }));
      await store.claim(0, 1);
      await store.fail("x", 1, "fatal", null);
      assert.equal(await store.deleteDead("alive"), false);
      assert.equal(await store.deleteDead("x"), true);
      assert.equal(await store.get("x"), undefined);
      assert.equal(await store.deleteDead("x"), false);
      assert.deepEqual(await store.counts(), { pending: 1, running: 0, succeeded: 0, dead: 0 });
    });
  });
}
