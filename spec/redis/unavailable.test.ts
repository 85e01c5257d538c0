// Error replies that mean "the server cannot serve now" are an outage, not a bug: -OOM (maxmemory
// with noeviction), -READONLY (a replica, as the old primary after a failover), -MASTERDOWN (a
// replica without its primary), -BUSY (a script past its time limit), -LOADING, and a reply out of
// step with its command answer the uniform 503 with Retry-After, as a lost connection does; any
// other error reply (WRONGTYPE) stays a 500. Against a real redis-server put in each state, and a
// scripted server for what a real one cannot be made to send on a ready connection.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { App, route, silentLogger, type InjectResponse } from "../../lib/index.js";
import { idempotency } from "../../lib/middleware/index.js";
import { toApiError } from "../../lib/plugin.js";
import { redisClient, RedisJobStore, redisStore, RedisUnavailableError, type RedisClient } from "../../lib/redis/index.js";
import { jobRecord } from "../jobs/job-store-contract.js";
import { production } from "../../lib/service/index.js";
import { createSampleApp } from "../../lib/sample/index.js";
import { freePort, startRedis, type RedisServerHandle } from "../support/redis-server.js";
import { defaultAnswer, startScriptedRedis, type ScriptedRedis } from "../support/scripted-redis.js";

const clients: RedisClient[] = [];
function track(client: RedisClient): RedisClient {
  clients.push(client);
  return client;
}
after(() => Promise.all(clients.map((c) => c.close())));

/** Routes that each run one kind of command; errors go through the app's usual mapping. */
function appOver(client: RedisClient): App {
  const write = client.script("return redis.call('SET', KEYS[1], ARGV[1])");
  return new App({ logger: silentLogger, env: "development" }).routes([
    route.get("/set", {}, [], async () => ({ ok: await client.command(["SET", "u:k", "v"]) })),
    route.get("/get", {}, [], async () => ({ ok: await client.command(["GET", "u:k"]) })),
    route.get("/script", {}, [], async () => ({ ok: await client.run(write, ["u:s"], ["v"]) })),
    route.get("/wrongtype", {}, [], async () => ({ ok: await client.command(["GET", "u:list"]) })),
  ]);
}

function assertUnavailable(res: InjectResponse, what: string): void {
  assert.equal(res.status, 503, `${what}: ${res.body}`);
  assert.equal(res.json<{ error: { type: string } }>().error.type, "service_unavailable", what);
  assert.match(String(res.headers["retry-after"]), /^\d+$/, `${what}: Retry-After`);
}

/** Injects until the answer is a 503 (bounded), for states the server enters a moment later. */
async function until503(app: App, url: string): Promise<InjectResponse> {
  let res = await app.inject({ url });
  for (let i = 0; i < 300 && res.status !== 503; i++) {
    await new Promise((r) => setTimeout(r, 20));
    res = await app.inject({ url });
  }
  return res;
}

describe("a real redis-server that cannot serve now", () => {
  let server: RedisServerHandle | null = null;
  let admin: RedisClient;
  let client: RedisClient;
  let app: App;
  before(async () => {
    server = await startRedis({ appendonly: false });
    if (server === null) return;
    admin = track(redisClient(server.url));
    client = track(redisClient({ url: server.url, commandTimeoutMs: 5000 }));
    await Promise.all([admin.connect(), client.connect()]);
    await admin.command(["RPUSH", "u:list", "x"]);
    app = appOver(client);
  });
  after(() => server?.stop());

  it("WRONGTYPE is a bug of the caller: 500", async (t) => {
    if (server === null) return t.skip("redis-server not installed");
    const res = await app.inject({ url: "/wrongtype" });
    assert.equal(res.status, 500, res.body);
    assert.equal((await app.inject({ url: "/set" })).status, 200);
  });

  it("-OOM (maxmemory reached, noeviction): writes and scripts answer 503 with Retry-After; WRONGTYPE still 500", async (t) => {
    if (server === null) return t.skip("redis-server not installed");
    await admin.command(["CONFIG", "SET", "maxmemory-policy", "noeviction"]);
    await admin.command(["CONFIG", "SET", "maxmemory", "1"]);
    try {
      await assert.rejects(client.command(["SET", "u:k", "v"]), (e: unknown) => e instanceof RedisUnavailableError && e.code === "OOM");
      assertUnavailable(await app.inject({ url: "/set" }), "SET under OOM");
      assertUnavailable(await app.inject({ url: "/script" }), "a writing script under OOM");
      assert.equal((await app.inject({ url: "/wrongtype" })).status, 500);
    } finally {
      await admin.command(["CONFIG", "SET", "maxmemory", "0"]);
    }
    assert.equal((await app.inject({ url: "/set" })).status, 200);
  });

  it("-READONLY (now a replica) and -MASTERDOWN (a replica without its primary): 503 with Retry-After", async (t) => {
    if (server === null) return t.skip("redis-server not installed");
    await admin.command(["REPLICAOF", "127.0.0.1", String(await freePort())]);
    try {
      assertUnavailable(await app.inject({ url: "/set" }), "SET on a replica");
      assertUnavailable(await app.inject({ url: "/script" }), "a writing script on a replica");
      await admin.command(["CONFIG", "SET", "replica-serve-stale-data", "no"]);
      await assert.rejects(client.command(["GET", "u:k"]), (e: unknown) => e instanceof RedisUnavailableError && e.code === "MASTERDOWN");
      assertUnavailable(await app.inject({ url: "/get" }), "GET on a replica without its primary");
    } finally {
      await admin.command(["CONFIG", "SET", "replica-serve-stale-data", "yes"]);
      await admin.command(["REPLICAOF", "NO", "ONE"]);
    }
    assert.equal((await app.inject({ url: "/set" })).status, 200);
  });

  it("-BUSY (a script past busy-reply-threshold): 503 with Retry-After", async (t) => {
    if (server === null) return t.skip("redis-server not installed");
    await admin.command(["CONFIG", "SET", "busy-reply-threshold", "20"]);
    // A read-only endless script on its own socket (SCRIPT KILL can stop it).
    const socket: Socket = connect({ host: "127.0.0.1", port: server.port });
    socket.on("error", () => undefined);
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const body = "while true do end";
    socket.write(`*3\r\n$4\r\nEVAL\r\n$${body.length}\r\n${body}\r\n$1\r\n0\r\n`);
    try {
      assertUnavailable(await until503(app, "/get"), "GET while a script is busy");
    } finally {
      for (let i = 0; i < 100; i++) {
        const killed = await admin.command(["SCRIPT", "KILL"]).then(
          () => true,
          (e: Error) => /NOTBUSY/.test(e.message),
        );
        if (killed) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      socket.destroy();
      // SCRIPT KILL answers before the script has stopped: BUSY may still come for a moment.
      for (let i = 0; ; i++) {
        try {
          await admin.command(["CONFIG", "SET", "busy-reply-threshold", "5000"]);
          break;
        } catch (err) {
          if (!(err instanceof RedisUnavailableError) || i > 100) throw err;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    }
    assert.equal((await app.inject({ url: "/get" })).status, 200);
  });

  it("under -OOM every store operation the sample uses (buckets, idempotency records, jobs) maps to 503, the idempotency layer too", async (t) => {
    if (server === null) return t.skip("redis-server not installed");
    const store = redisStore<{ n: number }>(client, { prefix: "u:store:" });
    const jobs = new RedisJobStore({ client, prefix: "u:jobs:" });
    await jobs.open();
    const idem = new App({ logger: silentLogger, env: "development" }).routes([
      route.post("/once", { layers: [idempotency({ store: redisStore(client, { prefix: "u:idem:" }) })] }, [], () => ({ ran: true })),
    ]);
    await admin.command(["CONFIG", "SET", "maxmemory-policy", "noeviction"]);
    await admin.command(["CONFIG", "SET", "maxmemory", "1"]);
    try {
      const operations: Array<[string, () => Promise<unknown>]> = [
        ["takeToken", () => store.takeToken("bucket", 10, 1, 60_000)],
        ["add", () => store.add("k", { n: 1 }, { ttlMs: 60_000 })],
        ["set", () => store.set("k", { n: 1 })],
        ["update", () => store.update("k", () => ({ n: 2 }))],
        ["job add", () => jobs.add(jobRecord("oom-1"))],
      ];
      for (const [what, run] of operations) {
        const error = await run().then(() => undefined, (e: unknown) => e);
        assert.ok(error instanceof RedisUnavailableError, `${what}: ${String(error)}`);
        const answer = toApiError(error);
        assert.deepEqual([answer.status, answer.headers?.["retry-after"]], [503, "1"], what);
      }
      assertUnavailable(await idem.inject({ method: "POST", url: "/once", headers: { "idempotency-key": "oom-key-1" } }), "an idempotent POST");
    } finally {
      await admin.command(["CONFIG", "SET", "maxmemory", "0"]);
      await jobs.close();
    }
    assert.equal((await idem.inject({ method: "POST", url: "/once", headers: { "idempotency-key": "oom-key-1" } })).status, 200);
  });

  it("the sample in Redis mode under -OOM: /api/v1 routes (rate limits, idempotency, jobs) answer 503, not 500", async (t) => {
    if (server === null) return t.skip("redis-server not installed");
    const sampleClient = track(redisClient(server.url));
    await sampleClient.connect();
    const prod = production({ service: "keel-sample", level: "silent" });
    const sample = createSampleApp({ env: "development", redis: sampleClient, production: prod });
    assert.equal((await sample.inject({ url: "/api/v1/ping" })).status, 200);
    await admin.command(["CONFIG", "SET", "maxmemory-policy", "noeviction"]);
    await admin.command(["CONFIG", "SET", "maxmemory", "1"]);
    try {
      assertUnavailable(await sample.inject({ url: "/api/v1/ping" }), "GET /api/v1/ping");
      const report = await sample.inject({ method: "POST", url: "/api/v1/reports", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "billing", month: "2032-01" }) });
      assertUnavailable(report, "POST /api/v1/reports");
      const user = await sample.inject({ method: "POST", url: "/users", headers: { "content-type": "application/json", "idempotency-key": "k-oom-1" }, body: JSON.stringify({ email: "oom@example.com", password: "correct horse" }) });
      assertUnavailable(user, "POST /users with an Idempotency-Key");
    } finally {
      await admin.command(["CONFIG", "SET", "maxmemory", "0"]);
    }
    assert.equal((await sample.inject({ url: "/api/v1/ping" })).status, 200);
  });
});

describe("a scripted server: replies a real one sends only at odd moments", () => {
  let server: ScriptedRedis;
  let loading = false;
  let outOfStep = 0;
  before(async () => {
    server = await startScriptedRedis(async (command, connection) => {
      const answer = defaultAnswer(command);
      if (answer !== undefined) return void (await connection.write(answer));
      if (loading) return void (await connection.write("-LOADING Redis is loading the dataset in memory\r\n"));
      if (command[0] === "EVALSHA") {
        // The token bucket's script answers [ok, tokens, at]; "+OK" is some other command's reply.
        if (outOfStep > 0) {
          outOfStep--;
          return void (await connection.write("+OK\r\n"));
        }
        return void (await connection.write("*3\r\n:1\r\n:99\r\n:0\r\n"));
      }
      await connection.write("$-1\r\n");
    });
  });
  after(() => server.close());

  it("-LOADING on a ready connection (the server restarted behind a proxy): 503 with Retry-After", async () => {
    const client = track(redisClient({ url: server.url, poolSize: 1 }));
    await client.connect();
    const app = appOver(client);
    assert.equal((await app.inject({ url: "/get" })).status, 200);
    loading = true;
    try {
      assertUnavailable(await app.inject({ url: "/get" }), "GET while loading");
    } finally {
      loading = false;
    }
  });

  it("a reply out of step with its command: 503 with Retry-After, the connection is reset, then 200 again", async () => {
    const client = track(redisClient({ url: server.url, poolSize: 1, reconnect: { baseMs: 10, maxMs: 50 } }));
    await client.connect();
    const sample = createSampleApp({ env: "development", redis: client, production: production({ service: "keel-sample", level: "silent" }) });
    assert.equal((await sample.inject({ url: "/api/v1/ping" })).status, 200);
    const acceptedBefore = server.accepted;
    outOfStep = 1;
    assertUnavailable(await sample.inject({ url: "/api/v1/ping" }), "a rate-limit reply out of step");
    let res = await sample.inject({ url: "/api/v1/ping" });
    for (let i = 0; i < 200 && res.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 10));
      res = await sample.inject({ url: "/api/v1/ping" });
    }
    assert.equal(res.status, 200, res.body);
    assert.ok(server.accepted > acceptedBefore, "the client dropped the connection and made a new one");
  });
});
