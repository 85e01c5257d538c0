// The traffic layers on redisStore, two Apps (two processes' worth of layer state) sharing one
// real redis-server: one rate-limit budget through the one-round-trip token bucket, a response
// cache filled by one app and hit by the other, tag invalidation through deleteTagged, one
// execution per idempotency key (the other app polls for the answer, bytes replayed exactly),
// sessions; then, on a server of their own, a Redis outage answered 503 by every layer and the
// rate limit recovering after a restart.
import assert from "node:assert/strict";
import { after, before, describe, it, test } from "node:test";
import { App, bytesReply, route, silentLogger, type InjectResponse } from "../../lib/index.js";
import { circuitBreaker, idempotency, rateLimit, responseCache, type BreakerRecord, type CacheEntry, type IdempotencyRecord, type TokenBucketState } from "../../lib/middleware/index.js";
import type { Store } from "../../lib/stores/index.js";
import { NegotiatedReply, negotiated, negotiation } from "../../lib/toon/index.js";
import { redisClient, redisStore, type RedisClient } from "../../lib/redis/index.js";
import { session, sessionState } from "../../lib/web/index.js";
import { startRedis, type RedisServerHandle } from "../support/redis-server.js";

const KEYS = ["session-key-".padEnd(40, "s")];
const BYTES = Buffer.from([0, 1, 2, 128, 254, 255, 10, 13]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Everything one "process" has: its own client and its own layer objects on shared Redis data. */
function instance(url: string, prefix: string) {
  const client = redisClient({ url, commandTimeoutMs: 1000, reconnect: { baseMs: 20, maxMs: 100 } });
  let runs = 0;
  let gate: Promise<void> = Promise.resolve();
  const limiter = rateLimit({ capacity: 5, refillPerSecond: 0.001, store: redisStore<TokenBucketState>(client, { prefix: prefix + "rl:" }) });
  const cache = responseCache({ store: redisStore<CacheEntry>(client, { prefix: prefix + "cache:" }), replyClasses: [NegotiatedReply] });
  const idemStore = counted(redisStore<IdempotencyRecord>(client, { prefix: prefix + "idem:" }));
  const keyed = idempotency({ store: idemStore, pollIntervalMs: 5, maxPollIntervalMs: 40 });
  const breaker = circuitBreaker({ failureThreshold: 2, resetTimeoutMs: 60_000, store: redisStore<BreakerRecord>(client, { prefix: prefix + "cb:" }) });
  let failing = false;
  const sessions = session({ keys: KEYS, store: redisStore<string>(client, { prefix: prefix + "sess:" }) });
  const app = new App({ logger: silentLogger }).layer(negotiation()).routes(
    route.get("/negotiated", { layers: [cache] }, [], () => {
      runs++;
      return negotiated({ rows: [{ id: 1, name: "a" }, { id: 2, name: "b" }] });
    }),
    route.get("/flaky", { layers: [breaker] }, [], () => {
      if (failing) throw new Error("dependency down");
      return "ok";
    }),
    route.get("/limited", { layers: [limiter] }, [], () => "ok"),
    route.get("/items", { layers: [cache], config: { cache: { tags: ["items"] } } }, [], () => {
      runs++;
      return { items: [1, 2, 3], run: runs };
    }),
    route.get("/blob", { layers: [cache] }, [], () => {
      runs++;
      return bytesReply(BYTES, "application/octet-stream");
    }),
    route.post("/pay", { layers: [keyed] }, [], async () => {
      runs++;
      await gate;
      return bytesReply(BYTES, "application/octet-stream");
    }),
    route.post("/login", { layers: [sessions] }, [sessionState()], (s) => {
      s.regenerate();
      s.set("user", "ada");
      return { ok: true };
    }),
    route.get("/me", { layers: [sessions] }, [sessionState()], (s) => ({ user: s.get<string>("user") ?? null })),
  );
  return {
    client,
    app,
    cache,
    idemStore,
    fail(on: boolean) {
      failing = on;
    },
    get runs() {
      return runs;
    },
    hold(): () => void {
      let release!: () => void;
      gate = new Promise((r) => (release = r));
      return release;
    },
    get: (url: string, headers: Record<string, string> = {}) => app.inject({ url, headers, remoteAddress: "10.0.0.1" }),
    post: (url: string, headers: Record<string, string> = {}, body: unknown = { amount: 5 }) =>
      app.inject({ method: "POST", url, headers, body, remoteAddress: "10.0.0.1" }),
  };
}

/** A store that counts its `get` calls (how often a waiting duplicate reads the shared store). */
function counted<V>(inner: Store<V>): Store<V> & { gets: number } {
  const s = {
    gets: 0,
    get: (k: string) => (s.gets++, inner.get(k)),
    set: inner.set.bind(inner),
    add: inner.add.bind(inner),
    update: inner.update.bind(inner),
    delete: inner.delete.bind(inner),
    deleteWhere: inner.deleteWhere.bind(inner),
    clear: inner.clear.bind(inner),
  };
  return s;
}

function cookieOf(res: InjectResponse): string {
  const set = res.headers["set-cookie"];
  const first = Array.isArray(set) ? set[0] : set;
  assert.ok(first !== undefined, "a Set-Cookie");
  return first.split(";", 1)[0]!;
}

const server = await startRedis();

if (server === null) {
  test("layers on redisStore", (t) => t.skip("redis-server not installed"));
} else {
  after(() => server.stop());

  describe("layers on redisStore: two apps, one Redis", () => {
    const a = instance(server.url, "shared:");
    const b = instance(server.url, "shared:");
    before(() => Promise.all([a.client.connect(), b.client.connect()]));
    after(() => Promise.all([a.client.close(), b.client.close()]));

    it("rateLimit gives a client one budget across both apps (capacity 5: exactly 5 allowed)", async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await (i % 2 === 0 ? a : b).get("/limited")).status);
      assert.equal(statuses.filter((s) => s === 200).length, 5);
      assert.equal(statuses.filter((s) => s === 429).length, 7);
      // One round trip per request: the bucket is the token-bucket script's hash, not an update()'s string.
      assert.equal(await a.client.command(["TYPE", "shared:rl:ip:10.0.0.1"]), "hash");
      const refused = await b.get("/limited");
      assert.equal(refused.status, 429);
      assert.equal(refused.headers["ratelimit-remaining"], "0");
      assert.ok(Number(refused.headers["retry-after"]) >= 1);
      // A concurrent burst from both apps: still one budget (another client address).
      const burst = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).app.inject({ url: "/limited", remoteAddress: "10.0.0.2" })),
      );
      assert.equal(burst.filter((r) => r.status === 200).length, 5);
    });

    it("responseCache: what one app stored, the other serves (bytes exactly); invalidateTag is one deleteTagged", async () => {
      const first = await a.get("/items");
      assert.equal(first.headers["x-cache"], "MISS");
      const hit = await b.get("/items");
      assert.equal(hit.headers["x-cache"], "HIT");
      assert.deepEqual(hit.json(), first.json());
      assert.equal(hit.headers["etag"], first.headers["etag"]);
      assert.equal((await b.get("/items", { "if-none-match": String(first.headers["etag"]) })).status, 304);
      const blob = await a.get("/blob");
      const blobHit = await b.get("/blob");
      assert.equal(blobHit.headers["x-cache"], "HIT");
      assert.ok(blobHit.rawBody.equals(BYTES) && blob.rawBody.equals(BYTES));
      assert.equal(await a.client.command(["EXISTS", "shared:cache:\u0000titems"]), 1); // the tag's set, kept by the writes
      assert.equal(await a.cache.invalidateTag("items"), 1);
      assert.equal((await b.get("/items")).headers["x-cache"], "MISS");
      assert.equal((await b.get("/blob")).headers["x-cache"], "HIT"); // untagged: kept
    });

    it("idempotency: one key sent to both apps runs once; the other app waits for it and replays the bytes", async () => {
      const before = a.runs + b.runs;
      const release = a.hold();
      const headers = { "idempotency-key": "pay-1" };
      const original = a.post("/pay", headers);
      while (a.runs + b.runs === before) await sleep(2); // the original has claimed the key and is running
      const duplicate = b.post("/pay", headers);
      await sleep(30); // the duplicate is polling the shared store
      release();
      const [first, second] = await Promise.all([original, duplicate]);
      assert.equal(a.runs + b.runs - before, 1);
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      assert.equal(second.headers["idempotent-replayed"], "true");
      assert.ok(second.rawBody.equals(BYTES));
      // Later duplicates on either app: replayed; a different body with the key: 422.
      assert.equal((await a.post("/pay", headers)).headers["idempotent-replayed"], "true");
      assert.equal((await b.post("/pay", headers, { amount: 6 })).status, 422);
      assert.equal(a.runs + b.runs - before, 1);
    });

    it("responseCache: a NegotiatedReply stored by one app is re-encoded as TOON on the other's first hit", async () => {
      assert.equal((await a.get("/negotiated")).headers["x-cache"], "MISS");
      const hit = await b.get("/negotiated", { accept: "application/toon" });
      assert.equal(hit.headers["x-cache"], "HIT");
      assert.match(String(hit.headers["content-type"]), /^application\/toon/);
    });

    it("responseCache: a JSON answer made from a class instance (or an array holding undefined) is cached like any other", async () => {
      class Point {
        constructor(
          readonly x: number,
          readonly y: number,
        ) {}
      }
      const cache = responseCache({ store: redisStore<CacheEntry>(a.client, { prefix: "shared:cache-values:" }) });
      let runs = 0;
      const app = new App({ logger: silentLogger }).routes(
        route.get("/point", { layers: [cache] }, [], () => (runs++, new Point(1, 2))),
        route.get("/holes", { layers: [cache] }, [], () => (runs++, [1, undefined, 3])),
      );
      for (const [url, json] of [["/point", { x: 1, y: 2 }], ["/holes", [1, null, 3]]] as const) {
        const miss = await app.inject({ url });
        assert.equal(miss.status, 200, miss.body);
        assert.deepEqual(miss.json(), json);
        const hit = await app.inject({ url });
        assert.equal(hit.headers["x-cache"], "HIT");
        assert.deepEqual(hit.json(), json);
      }
      assert.equal(runs, 2);
    });

    it("idempotency: a duplicate waiting on the other app reads the store with a growing interval", async () => {
      const release = a.hold();
      const headers = { "idempotency-key": "slow-1" };
      const original = a.post("/pay", headers);
      const reads = b.idemStore.gets;
      const duplicate = b.post("/pay", headers);
      await sleep(600);
      release();
      assert.equal((await duplicate).headers["idempotent-replayed"], "true");
      await original;
      // Every 5 ms would be over a hundred reads in 600 ms; doubling to 40 ms is under twenty.
      assert.ok(b.idemStore.gets - reads < 40, `${b.idemStore.gets - reads} reads`);
    });

    it("circuitBreaker: failures seen by one app open the circuit for the other", async () => {
      a.fail(true);
      assert.equal((await a.get("/flaky")).status, 500);
      assert.equal((await a.get("/flaky")).status, 500);
      a.fail(false);
      const open = await b.get("/flaky");
      assert.equal(open.status, 503);
    });

    it("session: logged in on one app, known on the other", async () => {
      const login = await a.post("/login");
      assert.equal(login.status, 200);
      const me = await b.get("/me", { cookie: cookieOf(login) });
      assert.deepEqual(me.json(), { user: "ada" });
    });
  });

  describe("layers on redisStore: Redis down, then back", () => {
    let own: RedisServerHandle;
    let x: ReturnType<typeof instance>;
    let cookie: string;
    before(async () => {
      own = (await startRedis())!;
      x = instance(own.url, "outage:");
      await x.client.connect();
      cookie = cookieOf(await x.post("/login"));
    });
    after(async () => {
      await x.client.close();
      await own.stop();
    });

    it("every layer answers 503 while Redis is down (never hangs), and the rate limit works again after a restart", async () => {
      assert.equal((await x.get("/limited")).status, 200);
      own.kill();
      while (x.client.ready) await sleep(5);
      const down: Array<[string, Promise<InjectResponse>]> = [
        ["rateLimit", x.get("/limited")],
        ["responseCache", x.get("/items")],
        ["idempotency", x.post("/pay", { "idempotency-key": "down-1" })],
        ["session", x.get("/me", { cookie })],
      ];
      for (const [layer, pending] of down) {
        const res = await pending;
        assert.equal(res.status, 503, `${layer}: ${res.status} ${res.body}`);
        assert.equal((res.json() as { error: { type: string } }).error.type, "service_unavailable", layer);
      }
      await own.restart();
      await x.client.connect();
      while (!x.client.ready) await sleep(5);
      const after = await x.get("/limited");
      assert.equal(after.status, 200);
      assert.equal(after.headers["ratelimit-remaining"], "3"); // the budget survived the restart (AOF)
      assert.deepEqual((await x.get("/me", { cookie })).json(), { user: "ada" });
    });
  });
}
