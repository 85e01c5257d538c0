// Two sample instances sharing one real redis-server (REDIS_URL), as real processes: a client
// gets one rate-limit budget between them, an idempotency key runs once, a job whose instance is
// SIGKILLed mid-run completes on the other, and a Redis restart mid-load answers 503s while it is
// down (never a hang) and loses no job. Each scenario has its own Redis and its own instances.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it, type TestContext } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { redisClient } from "../../lib/redis/index.js";
import { startRedis, type RedisServerHandle } from "../support/redis-server.js";
import { RequestTimeoutError, sendWithin, startSample, type SampleProcess, type TimedResponse } from "../support/sample-process.js";

const SKIP_REASON = "redis-server not installed";

/** A Redis and the samples started for one scenario, all stopped by `stopAll`. */
interface Cluster {
  redis: RedisServerHandle | null;
  samples: SampleProcess[];
}

function sampleEnv(redis: RedisServerHandle, extra: Record<string, string> = {}): Record<string, string> {
  // LOG_LEVEL stays at info: the "listening" line is how the port is learned (stdout is captured, not printed).
  return { REDIS_URL: redis.url, ...extra };
}

async function stopAll(cluster: Cluster): Promise<void> {
  // SIGTERM (drain), SIGKILL after the grace period; then Redis.
  await Promise.all(cluster.samples.map((s) => s.stop(10_000)));
  await cluster.redis?.stop();
}

function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<TimedResponse> {
  return sendWithin(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

function postText(url: string, body: string): Promise<TimedResponse> {
  return sendWithin(url, { method: "POST", headers: { "content-type": "text/plain" }, body });
}

function json(res: TimedResponse): Record<string, unknown> {
  return JSON.parse(res.body) as Record<string, unknown>;
}

/** The uniform error body's type: {"error":{"type",...},"error_id"}. */
function errorType(res: TimedResponse): unknown {
  const error = json(res)["error"] as Record<string, unknown> | undefined;
  return error?.["type"];
}

/** Poll `probe` every `everyMs` until it answers a value, or fail after `withinMs` with `what`. */
async function waitFor<T>(what: string, withinMs: number, everyMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + withinMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms${last === undefined ? "" : ` (last error: ${String(last)})`}`);
    await sleep(everyMs);
  }
}

interface JobView {
  state: string;
  attempts: number;
}

async function jobOn(sample: SampleProcess, id: string): Promise<JobView | undefined> {
  const res = await sendWithin(`${sample.url}/api/v1/jobs/${id}`);
  if (res.status !== 200) return undefined;
  const body = json(res);
  return { state: String(body["state"]), attempts: Number(body["attempts"]) };
}

/** `keel_jobs_started_total` of one instance: how many job attempts this process began. */
async function jobsStarted(sample: SampleProcess): Promise<number> {
  const res = await sendWithin(`${sample.url}/metrics`);
  assert.equal(res.status, 200);
  const m = /^keel_jobs_started_total\{queue="reports"\} (\d+)/m.exec(res.body);
  return m === null ? 0 : Number(m[1]);
}

async function enqueueReport(sample: SampleProcess, month: string): Promise<string> {
  const res = await postJson(`${sample.url}/api/v1/reports`, { kind: "usage", month });
  assert.equal(res.status, 202, `enqueue ${month}: ${res.status} ${res.body}`);
  return String(json(res)["id"]);
}

/** Empty every rate-limit bucket of the sample in this Redis, so a scenario starts with full budgets. */
async function resetRateLimits(redis: RedisServerHandle): Promise<void> {
  const client = redisClient(redis.url);
  try {
    const keys = await client.command(["KEYS", "keel-sample:rl:*"]);
    if (Array.isArray(keys) && keys.length > 0) await client.command(["DEL", ...(keys as string[])]);
  } finally {
    await client.close();
  }
}

describe("two sample instances sharing one Redis: rate limits and idempotency", () => {
  const cluster: Cluster = { redis: null, samples: [] };
  let a: SampleProcess;
  let b: SampleProcess;

  before(async () => {
    cluster.redis = await startRedis();
    if (cluster.redis === null) return;
    [a, b] = await Promise.all([startSample(sampleEnv(cluster.redis)), startSample(sampleEnv(cluster.redis))]);
    cluster.samples.push(a, b);
  });
  after(() => stopAll(cluster));

  it("a burst alternating A and B gets one `writes` budget (20, then 2/s), not one per instance", async (t: TestContext) => {
    const redis = cluster.redis;
    if (redis === null) return t.skip(SKIP_REASON);
    await resetRateLimits(redis);
    const started = Date.now();
    // Three in sequence first: each instance's RateLimit-Remaining shows the other's take.
    const first = [await postText(`${a.url}/echo-text`, "1"), await postText(`${b.url}/echo-text`, "2"), await postText(`${a.url}/echo-text`, "3")];
    const remaining = first.map((r) => Number(r.headers["ratelimit-remaining"]));
    assert.deepEqual(first.map((r) => r.status), [200, 200, 200]);
    assert.ok(remaining[0]! > remaining[1]! && remaining[1]! > remaining[2]!, `RateLimit-Remaining A, B, A: ${remaining.join(", ")}`);
    // Then 57 more at once, alternating.
    const rest = await Promise.all(Array.from({ length: 57 }, (_, i) => postText(`${(i % 2 === 0 ? b : a).url}/echo-text`, `n${i}`)));
    const elapsedS = (Date.now() - started) / 1000;
    const answers = [...first, ...rest];
    const allowed = answers.filter((r) => r.status !== 429);
    assert.ok(allowed.every((r) => r.status === 200), `statuses: ${answers.map((r) => r.status).join(",")}`);
    const bound = 20 + 2 * elapsedS + 1;
    assert.ok(allowed.length >= 20, `only ${allowed.length} of 60 allowed`);
    assert.ok(allowed.length <= bound, `${allowed.length} of 60 allowed in ${elapsedS.toFixed(2)} s; one shared budget allows at most ${bound.toFixed(1)}`);
    t.diagnostic(`${allowed.length} of 60 allowed in ${elapsedS.toFixed(2)} s (bound ${bound.toFixed(1)})`);
    const refusals = answers.filter((r) => r.status === 429);
    for (const r of refusals) {
      assert.equal(errorType(r), "rate_limit_exceeded");
      assert.match(String(r.headers["retry-after"]), /^\d+$/);
    }
    // Both instances refused: each enforces the shared budget.
    const refusedBy = new Set(rest.map((r, i) => (r.status === 429 ? i % 2 : -1)).filter((x) => x >= 0));
    assert.deepEqual([...refusedBy].sort(), [0, 1], "both A and B refused part of the burst");
  });

  it("one Idempotency-Key sent to A and B runs once; the other instance replays the answer", async (t: TestContext) => {
    const redis = cluster.redis;
    if (redis === null) return t.skip(SKIP_REASON);
    await resetRateLimits(redis);
    const key1 = randomUUID();
    const body1 = { email: `once-${key1}@example.com`, password: "correct horse battery" };
    const [fromA, fromB] = await Promise.all([
      postJson(`${a.url}/users`, body1, { "idempotency-key": key1 }),
      postJson(`${b.url}/users`, body1, { "idempotency-key": key1 }),
    ]);
    assert.equal(fromA.status, 201, fromA.body);
    assert.equal(fromB.status, 201, fromB.body);
    assert.deepEqual(json(fromA), json(fromB));
    const replayed = [fromA.headers["idempotent-replayed"], fromB.headers["idempotent-replayed"]];
    assert.equal(replayed.filter((h) => h === "true").length, 1, `exactly one replayed answer: ${JSON.stringify(replayed)}`);
    const [executor, other] = replayed[0] === "true" ? [b, a] : [a, b];
    const user = json(fromA);
    assert.equal(user["email"], body1.email);
    const id = Number(user["id"]);
    // Each instance has its own user table: only the one that ran the request has the user.
    const onExecutor = await sendWithin(`${executor.url}/users/${id}`);
    assert.equal(onExecutor.status, 200);
    assert.equal(json(onExecutor)["email"], body1.email);
    assert.equal((await sendWithin(`${other.url}/users/${id}`)).status, 404, "the replaying instance did not create the user");

    // The same key again, in sequence, to both: replays only, no new user anywhere.
    for (const target of [a, b]) {
      const again = await postJson(`${target.url}/users`, body1, { "idempotency-key": key1 });
      assert.equal(again.status, 201);
      assert.equal(again.headers["idempotent-replayed"], "true");
      assert.deepEqual(json(again), user);
    }
    assert.equal((await sendWithin(`${executor.url}/users/${id + 1}`)).status, 404, "no second user on the executing instance");
    assert.equal((await sendWithin(`${other.url}/users/${id}`)).status, 404, "still no user on the other instance");

    // A fresh key in sequence, this time first to the other instance: it runs there, A-or-B order does not matter.
    const key2 = randomUUID();
    const body2 = { email: `second-${key2}@example.com`, password: "correct horse battery" };
    const firstTry = await postJson(`${other.url}/users`, body2, { "idempotency-key": key2 });
    assert.equal(firstTry.status, 201, firstTry.body);
    assert.equal(firstTry.headers["idempotent-replayed"], undefined);
    const retry = await postJson(`${executor.url}/users`, body2, { "idempotency-key": key2 });
    assert.equal(retry.status, 201);
    assert.equal(retry.headers["idempotent-replayed"], "true");
    assert.deepEqual(json(retry), json(firstTry));
    const id2 = Number(json(firstTry)["id"]);
    assert.equal(json(await sendWithin(`${other.url}/users/${id2}`))["email"], body2.email);
    // The executor's table did not grow: its next id is still free.
    assert.equal((await sendWithin(`${executor.url}/users/${id + 1}`)).status, 404, "the retry did not run on the first executor");
  });
});

describe("a job whose instance is SIGKILLed mid-run completes on the other instance", () => {
  const cluster: Cluster = { redis: null, samples: [] };
  after(() => stopAll(cluster));

  it("A claims the job, A is killed, B takes it back after the lease and runs it (attempts 2)", async (t: TestContext) => {
    cluster.redis = await startRedis();
    const redis = cluster.redis;
    if (redis === null) return t.skip(SKIP_REASON);
    const env = sampleEnv(redis, { KEEL_REPORT_DELAY_MS: "6000", KEEL_JOB_LEASE_MS: "1500" });
    // A alone first, so the claim is A's; B starts while the job runs (well within its 6 s, even on a slow machine).
    const a = await startSample(env);
    cluster.samples.push(a);
    const id = await enqueueReport(a, "2031-04");
    await waitFor("the job running on A", 5_000, 20, async () => ((await jobOn(a, id))?.state === "running" ? true : undefined));
    const b = await startSample(env);
    cluster.samples.push(b);
    assert.deepEqual(await jobOn(b, id), { state: "running", attempts: 1 }, "B sees A's run still going (B started in time)");
    assert.equal(await jobsStarted(a), 1, "A started the job");
    assert.equal(await jobsStarted(b), 0, "B did not");

    // B serves throughout: a steady trickle of pings, each bounded.
    let trickling = true;
    const pings: number[] = [];
    const trickle = (async () => {
      while (trickling) {
        pings.push((await sendWithin(`${b.url}/api/v1/ping`)).status);
        await sleep(100);
      }
    })();

    await a.kill();
    try {
      const done = await waitFor("the job succeeded on B", 30_000, 200, async () => {
        const job = await jobOn(b, id);
        return job?.state === "succeeded" ? job : undefined;
      });
      assert.equal(done.attempts, 2, "the second attempt, B's, completed it");
      assert.equal(await jobsStarted(b), 1, "B ran it");
    } finally {
      trickling = false;
      await trickle;
    }
    assert.ok(pings.length > 0 && pings.every((s) => s === 200), `B's pings: ${pings.join(",")}`);
  });
});

interface Sampled {
  instance: "A" | "B";
  phase: "up" | "down" | "restarted";
  /** The phase when the answer came (a ping sent just before the kill may answer after it). */
  phaseAfter: "up" | "down" | "restarted";
  status: number | "timeout" | "error";
  res?: TimedResponse;
}

describe("Redis restarted mid-load", () => {
  const cluster: Cluster = { redis: null, samples: [] };
  after(() => stopAll(cluster));

  it("503s while it is down (never a hang), 200 again after, and every accepted job succeeds", async (t: TestContext) => {
    cluster.redis = await startRedis();
    const redis = cluster.redis;
    if (redis === null) return t.skip(SKIP_REASON);
    // Jobs long enough that some are pending or running when Redis goes away.
    const env = sampleEnv(redis, { KEEL_REPORT_DELAY_MS: "700", KEEL_JOB_LEASE_MS: "2000" });
    const [a, b] = await Promise.all([startSample(env), startSample(env)]);
    cluster.samples.push(a, b);

    let phase: Sampled["phase"] = "up";
    let trickling = true;
    const samples: Sampled[] = [];
    const trickleTo = async (instance: "A" | "B", sample: SampleProcess): Promise<void> => {
      while (trickling) {
        const at = phase;
        try {
          const res = await sendWithin(`${sample.url}/api/v1/ping`, { timeoutMs: 5_000 });
          samples.push({ instance, phase: at, phaseAfter: phase, status: res.status, res });
        } catch (err) {
          samples.push({ instance, phase: at, phaseAfter: phase, status: err instanceof RequestTimeoutError ? "timeout" : "error" });
        }
        await sleep(250);
      }
    };
    const trickles = [trickleTo("A", a), trickleTo("B", b)];

    try {
      const ids: string[] = [];
      for (let m = 1; m <= 6; m++) ids.push(await enqueueReport(m % 2 === 0 ? b : a, `2032-${String(m).padStart(2, "0")}`));

      // Down: SIGKILL (the AOF, fsynced on every write, keeps what was acknowledged).
      redis.kill();
      phase = "down";
      for (const sample of [a, b]) {
        await waitFor("pings answer 503 while Redis is down", 10_000, 100, async () => ((await sendWithin(`${sample.url}/api/v1/ping`)).status === 503 ? true : undefined));
        const ping = await sendWithin(`${sample.url}/api/v1/ping`);
        assert.equal(ping.status, 503);
        assert.equal(errorType(ping), "service_unavailable", ping.body);
        assert.match(String(ping.headers["retry-after"]), /^\d+$/);
        const report = await postJson(`${sample.url}/api/v1/reports`, { kind: "billing", month: "2032-12" });
        assert.equal(report.status, 503, report.body);
        assert.equal(errorType(report), "service_unavailable");
        const health = await sendWithin(`${sample.url}/health`);
        const checks = json(health)["checks"] as Record<string, { status: string }>;
        assert.equal(checks["redis"]?.status, "fail", health.body);
      }
      await sleep(1_000);

      await redis.restart();
      phase = "restarted";
      for (const sample of [a, b]) {
        await waitFor("pings answer 200 after the restart", 15_000, 100, async () => ((await sendWithin(`${sample.url}/api/v1/ping`)).status === 200 ? true : undefined));
      }
      for (let m = 7; m <= 10; m++) ids.push(await enqueueReport(m % 2 === 0 ? b : a, `2032-${String(m).padStart(2, "0")}`));

      // No lost job: every 202 reaches succeeded (one poll per unfinished job a second, to stay in budget).
      const unfinished = new Set(ids);
      const states = new Map<string, string>();
      await waitFor(`every accepted job succeeded (${ids.length})`, 60_000, 1_000, async () => {
        let i = 0;
        for (const id of [...unfinished]) {
          const job = await jobOn(i++ % 2 === 0 ? a : b, id);
          if (job !== undefined) states.set(id, `${job.state}/${job.attempts}`);
          if (job?.state === "succeeded") unfinished.delete(id);
        }
        return unfinished.size === 0 ? true : undefined;
      }).catch((err: unknown) => {
        throw new Error(`${String(err)}; states: ${JSON.stringify(Object.fromEntries(states))}`);
      });
      t.diagnostic(`jobs (state/attempts): ${[...states.values()].join(" ")}`);
    } finally {
      trickling = false;
      await Promise.all(trickles);
    }

    t.diagnostic(`pings: ${samples.length}, 503 while down: ${samples.filter((s) => s.phase === "down" && s.status === 503).length}`);
    const timedOut = samples.filter((s) => s.status === "timeout" || s.status === "error");
    assert.equal(timedOut.length, 0, `pings without an answer: ${timedOut.length}`);
    const odd = samples.filter((s) => s.status !== 200 && s.status !== 503);
    assert.equal(odd.length, 0, `pings neither 200 nor 503: ${odd.map((s) => `${s.instance}/${s.phase}/${s.status}`).join(", ")}`);
    for (const s of samples.filter((x) => x.status === 503)) {
      assert.equal(errorType(s.res!), "service_unavailable");
    }
    for (const instance of ["A", "B"] as const) {
      const mine = samples.filter((s) => s.instance === instance);
      assert.ok(mine.some((s) => s.phase === "down" && s.status === 503), `${instance} answered 503 while Redis was down`);
      assert.equal(mine.filter((s) => s.phaseAfter === "up").every((s) => s.status === 200), true, `${instance} answered 200 before the outage`);
      assert.equal(mine.at(-1)?.status, 200, `${instance} answers 200 at the end`);
    }
  });
});

describe("an instance started while Redis is down", () => {
  const cluster: Cluster = { redis: null, samples: [] };
  after(() => stopAll(cluster));

  it("serves, keeps trying to start its job queue, and runs jobs once Redis is up", async (t: TestContext) => {
    cluster.redis = await startRedis();
    const redis = cluster.redis;
    if (redis === null) return t.skip(SKIP_REASON);
    redis.kill();
    const a = await startSample(sampleEnv(redis));
    cluster.samples.push(a);
    const down = await postJson(`${a.url}/api/v1/reports`, { kind: "billing", month: "2032-01" });
    assert.equal(down.status, 503, "no Redis: the enqueue is refused, not hung");
    // Wait until the queue's first start has failed (it gives the connection a few seconds).
    await waitFor("the job queue's first start to fail", 15_000, 100, async () => (a.output().includes("job queue failed to start") ? true : undefined));
    await redis.restart();
    const id = await waitFor("an enqueue accepted once Redis is back", 15_000, 200, async () => {
      const res = await postJson(`${a.url}/api/v1/reports`, { kind: "billing", month: "2032-01" });
      return res.status === 202 ? String(json(res)["id"]) : undefined;
    });
    // The queue's first start failed (Redis down); without a retry this job would wait forever.
    const done = await waitFor("the job succeeded on the instance that booted without Redis", 30_000, 200, async () => {
      const job = await jobOn(a, id);
      return job?.state === "succeeded" ? job : undefined;
    });
    assert.equal(done.attempts, 1);
  });
});
