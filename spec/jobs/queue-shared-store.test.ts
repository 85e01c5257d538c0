// JobQueue against a store that fails on purpose and a store with leases: a test double of our own
// JobStore interface (a MemoryJobStore behind switches), driven by a ManualJobClock. The same
// behaviour against a real Redis is in spec/redis/job-store-queues.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { t } from "../../lib/index.js";
import { defineJob, JobLeaseLostError, JobQueue, ManualJobClock, MemoryJobStore, type JobRecord, type JobStore } from "../../lib/jobs/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { jobRecord } from "./job-store-contract.js";

class StoreDown extends Error {
  constructor(op: string) {
    super(`store down (${op})`);
    this.name = "StoreDown";
  }
}

/** A MemoryJobStore whose operations named in `broken` reject, with optional leases, renewals and wake-ups. */
class SwitchableStore extends MemoryJobStore implements JobStore {
  readonly broken = new Set<string>();
  readonly renewals: Array<{ ids: string[]; now: number }> = [];
  readonly lost = new Set<string>();
  wakeListener: (() => void) | null = null;
  readonly leaseMs?: number;

  constructor(leaseMs?: number) {
    super();
    if (leaseMs !== undefined) this.leaseMs = leaseMs;
  }

  private guard(op: string): void {
    if (this.broken.has(op)) throw new StoreDown(op);
  }

  override async open(): Promise<void> {
    this.guard("open");
    return super.open();
  }
  override async add(record: JobRecord): Promise<{ id: string; created: boolean }> {
    this.guard("add");
    return super.add(record);
  }
  override async claim(now: number, limit: number): Promise<JobRecord[]> {
    this.guard("claim");
    return super.claim(now, limit);
  }
  override async complete(id: string, now: number): Promise<boolean> {
    this.guard("complete");
    return super.complete(id, now);
  }
  override async counts(): ReturnType<MemoryJobStore["counts"]> {
    this.guard("counts");
    return super.counts();
  }
  async renew(ids: readonly string[], now: number): Promise<string[]> {
    this.guard("renew");
    this.renewals.push({ ids: [...ids], now });
    return ids.filter((id) => this.lost.has(id));
  }
  onWake(listener: () => void): () => void {
    this.wakeListener = listener;
    return () => {
      this.wakeListener = null;
    };
  }
}

function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((res) => (open = res));
  return { promise, open };
}

test("store errors while looking for work are logged and retried with a growing backoff; the queue survives and runs the job once the store answers", async () => {
  const clock = new ManualJobClock(0);
  const logger = captureLogger();
  const store = new SwitchableStore();
  const ran: number[] = [];
  const job = defineJob({ name: "work", payload: t.object({ n: t.integer() }), handler: ({ n }) => void ran.push(n) });
  const queue = new JobQueue({ clock, logger, store, jobs: [job], random: () => 0.999 });
  await queue.start();
  await queue.enqueue(job, { n: 1 });
  await clock.flush();
  assert.deepEqual(ran, [1]);

  store.broken.add("add");
  store.broken.add("claim");
  await assert.rejects(queue.enqueue(job, { n: 2 }), StoreDown, "enqueue rejects with the store's error");
  store.broken.delete("add");
  await queue.enqueue(job, { n: 3 }); // stored; looking for work fails
  for (let i = 0; i < 3; i++) await clock.advanceToNextTimer();
  const failures = logger.records.filter((r) => r.msg === "job queue: cannot read the job store");
  assert.ok(failures.length >= 3, "every failed look is logged");
  const delays = failures.map((r) => r.fields["retry_in_ms"] as number);
  assert.deepEqual(failures.slice(0, 3).map((r) => r.fields["failures"]), [1, 2, 3]);
  assert.ok(delays[0]! < delays[1]! && delays[1]! < delays[2]!, `the backoff grows: ${delays.join(", ")}`);
  assert.deepEqual(ran, [1], "nothing ran while the store was down");

  store.broken.delete("claim");
  await clock.advanceToNextTimer();
  assert.deepEqual(ran, [1, 3]);
  assert.ok(logger.records.some((r) => r.msg === "job queue: the job store answers again"));
  assert.equal((await queue.stats()).phase, "running");
  await queue.drain(0);
});

test("a completion the store cannot write leaves the job running in the store, is logged with its id, and the queue goes on", async () => {
  const clock = new ManualJobClock(0);
  const logger = captureLogger();
  const store = new SwitchableStore();
  const ran: number[] = [];
  const job = defineJob({ name: "work", payload: t.object({ n: t.integer() }), handler: ({ n }) => void ran.push(n) });
  const queue = new JobQueue({ clock, logger, store, jobs: [job] });
  await queue.start();
  store.broken.add("complete");
  const first = await queue.enqueue(job, { n: 1 });
  await clock.flush();
  store.broken.delete("complete");
  const second = await queue.enqueue(job, { n: 2 });
  await clock.flush();
  assert.deepEqual(ran, [1, 2]);
  assert.equal((await store.get(first))?.state, "running", "not lost: still running, for the lease (or a restart) to hand out again");
  assert.equal((await store.get(second))?.state, "succeeded");
  const line = logger.records.find((r) => r.msg === "job queue: job store write failed");
  assert.equal(line?.fields["job_id"], first);
  await queue.drain(0);
});

test("a store that cannot open fails start(); a later start opens it", async () => {
  const clock = new ManualJobClock(0);
  const store = new SwitchableStore();
  const job = defineJob({ name: "work", payload: t.object({}), handler: () => undefined });
  const queue = new JobQueue({ clock, logger: captureLogger(), store, jobs: [job] });
  store.broken.add("open");
  await assert.rejects(queue.start(), StoreDown);
  store.broken.delete("open");
  await queue.start();
  const id = await queue.enqueue(job, {});
  await clock.flush();
  assert.equal((await queue.getJob(id))?.state, "succeeded");
  await queue.drain(0);
});

test("health() reports an unreachable store as a failed check instead of rejecting", async () => {
  const clock = new ManualJobClock(0);
  const store = new SwitchableStore();
  const queue = new JobQueue({ clock, logger: captureLogger(), store });
  await queue.start();
  store.broken.add("counts");
  const health = await queue.health();
  assert.equal(health.status, "fail");
  assert.match(health.error ?? "", /store down \(counts\)/);
  store.broken.delete("counts");
  assert.equal((await queue.health()).status, "ok");
  await queue.drain(0);
});

test("with a leased store the queue renews running jobs every third of the lease, and stops when none runs", async () => {
  const clock = new ManualJobClock(0);
  const store = new SwitchableStore(3_000);
  const g = gate();
  const job = defineJob({ name: "long", payload: t.object({}), timeoutMs: 60_000, handler: () => g.promise });
  const queue = new JobQueue({ clock, logger: captureLogger(), store, jobs: [job] });
  await queue.start();
  const id = await queue.enqueue(job, {});
  await clock.flush();
  await clock.advance(3_500);
  assert.deepEqual(store.renewals, [{ ids: [id], now: 1_000 }, { ids: [id], now: 2_000 }, { ids: [id], now: 3_000 }]);
  g.open();
  await clock.flush();
  await clock.advance(5_000);
  assert.equal(store.renewals.length, 3, "the next renewal timer found nothing running and did not renew or re-arm");
  assert.equal((await queue.getJob(id))?.state, "succeeded");
  await queue.drain(0);
});

test("a failed renewal is logged and retried; a lost lease is logged once with the job id, aborts the run and is not renewed again", async () => {
  const clock = new ManualJobClock(0);
  const logger = captureLogger();
  const store = new SwitchableStore(300);
  const g = gate();
  let signal: AbortSignal | null = null;
  const job = defineJob({
    name: "long",
    payload: t.object({}),
    timeoutMs: 60_000,
    handler: (_p, s) => {
      signal = s;
      return g.promise;
    },
  });
  const queue = new JobQueue({ clock, logger, store, jobs: [job] });
  await queue.start();
  const id = await queue.enqueue(job, {});
  await clock.flush();
  store.broken.add("renew");
  await clock.advance(100);
  assert.ok(logger.records.some((r) => r.msg === "job queue: cannot renew job leases"));
  store.broken.delete("renew");
  store.lost.add(id);
  await clock.advance(100);
  const lost = logger.records.find((r) => r.msg.startsWith("job lease lost"));
  assert.equal(lost?.fields["job_id"], id);
  // Another worker owns the job now: this run is told to stop, and its lease is not asked for again.
  assert.ok(signal !== null && (signal as AbortSignal).aborted);
  assert.ok((signal as unknown as AbortSignal).reason instanceof JobLeaseLostError);
  const renewalsThen = store.renewals.length;
  await clock.advance(500);
  assert.equal(logger.records.filter((r) => r.msg.startsWith("job lease lost")).length, 1);
  assert.ok(store.renewals.slice(renewalsThen).every((r) => !r.ids.includes(id)));
  g.open();
  await clock.flush();
  await queue.drain(0);
});

test("with a leased store an idle queue polls at least every half lease; the store's wake-up makes it look at once", async () => {
  const clock = new ManualJobClock(0);
  const store = new SwitchableStore(10_000);
  const ran: string[] = [];
  const job = defineJob({ name: "t", payload: t.object({ id: t.string() }), handler: ({ id }) => void ran.push(id) });
  const queue = new JobQueue({ clock, logger: captureLogger(), store, jobs: [job] });
  await queue.start();
  await clock.flush();
  assert.deepEqual(clock.pendingTimers(), [5_000], "the poll");

  // Another process adds a job and the store says so.
  await store.add(jobRecord("from-elsewhere", { type: "t", payload: { id: "woken" } }));
  store.wakeListener?.();
  await clock.flush();
  assert.deepEqual(ran, ["woken"]);

  // Without a wake-up the poll finds it.
  await store.add(jobRecord("silent", { type: "t", payload: { id: "polled" } }));
  await clock.advance(4_999);
  assert.deepEqual(ran, ["woken"]);
  await clock.advance(1);
  assert.deepEqual(ran, ["woken", "polled"]);

  await queue.drain(0);
  assert.equal(store.wakeListener, null, "the drain stops listening");
});
