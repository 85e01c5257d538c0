// redisStore against a real redis-server: the Store contract suite (on the store's own clock),
// Redis' own expiry, compare-and-set under contention from two clients, the codec (bytes round
// trip, what JSON cannot carry refused), the key space (prefix isolation, NUL-led keys, glob
// characters, clear never touching other prefixes), scans, tags, and the token bucket shared by
// two clients on the server's clock.
import assert from "node:assert/strict";
import { after, describe, it, test } from "node:test";
import { ApiError } from "../../lib/index.js";
import { RedisJobStore, redisClient, redisStore, type RedisClient } from "../../lib/redis/index.js";
import { startRedis } from "../support/redis-server.js";
import { storeContract } from "../stores/store-contract.js";

const server = await startRedis();

if (server === null) {
  test("redisStore", (t) => t.skip("redis-server not installed"));
} else {
  const a: RedisClient = redisClient(server.url);
  const b: RedisClient = redisClient(server.url);
  await Promise.all([a.connect(), b.connect()]);
  after(async () => {
    await Promise.all([a.close(), b.close()]);
    await server.stop();
  });
  let n = 0;
  const prefix = (): string => `spec${++n}:`;

  storeContract("redisStore (own clock)", { create: (now) => redisStore<unknown>(a, { prefix: prefix(), now }) });

  describe("redisStore: Redis' own expiry (no clock)", () => {
    it("writes PX from ttlMs (or defaultTtlMs) and no expiry without one; add is SET NX", async () => {
      const p = prefix();
      const s = redisStore<string>(a, { prefix: p, defaultTtlMs: 60_000 });
      const forever = redisStore<string>(a, { prefix: p });
      await s.set("d", "x");
      await s.set("t", "x", { ttlMs: 5000 });
      await forever.set("f", "x");
      const pttl = async (k: string) => (await a.command(["PTTL", p + k])) as number;
      assert.ok((await pttl("d")) > 5000 && (await pttl("d")) <= 60_000);
      assert.ok((await pttl("t")) > 0 && (await pttl("t")) <= 5000);
      assert.equal(await pttl("f"), -1);
      assert.equal(await s.add("t", "y"), false);
      assert.equal(await s.add("new", "y", { ttlMs: 1000 }), true);
      assert.ok((await pttl("new")) > 0 && (await pttl("new")) <= 1000);
      // What Redis expired is gone for every operation.
      await a.command(["PEXPIRE", p + "t", 1]);
      while ((await a.command(["EXISTS", p + "t"])) === 1) await new Promise((r) => setTimeout(r, 5));
      assert.equal(await s.get("t"), undefined);
      assert.equal(await s.delete("t"), false);
      assert.equal(await s.add("t", "again"), true);
    });

    it("refuses a TTL that is not a positive number", async () => {
      const s = redisStore<string>(a, { prefix: prefix() });
      await assert.rejects(async () => s.set("k", "v", { ttlMs: 0 }), RangeError);
      await assert.rejects(async () => s.set("k", "v", { ttlMs: Number.NaN }), RangeError);
      assert.throws(() => redisStore(a, { defaultTtlMs: -1 }), RangeError);
    });
  });

  describe("redisStore: update is compare-and-set", () => {
    it("200 concurrent increments from two clients (four store objects) all count", async () => {
      const p = prefix();
      const stores = [a, a, b, b].map((c) => redisStore<number>(c, { prefix: p }));
      await Promise.all(Array.from({ length: 200 }, (_, i) => stores[i % 4]!.update("n", (v) => (v ?? 0) + 1)));
      assert.equal(await stores[0]!.get("n"), 200);
    });

    it("retries on the value another writer put there, and gives up with a 503 after maxUpdateAttempts", async () => {
      const p = prefix();
      // One connection: the interfering SET, sent from inside fn, reaches Redis before the compare-and-set.
      const one = redisClient({ url: server.url, poolSize: 1 });
      after(() => one.close());
      const other = redisStore<number>(b, { prefix: p });
      const s = redisStore<number>(one, { prefix: p, maxUpdateAttempts: 3 });
      await other.set("k", 1);
      // The first run of fn sees 1 and another writer changes the entry before the write: the retry sees 5.
      const seen: Array<number | undefined> = [];
      let interfere = true;
      const result = await s.update("k", (v) => {
        seen.push(v);
        if (interfere) {
          interfere = false;
          void one.command(["SET", p + "k", "5"]);
        }
        return (v ?? 0) * 10;
      });
      assert.deepEqual(seen, [1, 5]);
      assert.equal(result, 50);
      assert.equal(await other.get("k"), 50);
      // A writer that changes the entry on every attempt: a clear error, and the entry is the writer's.
      let w = 100;
      await assert.rejects(
        s.update("k", (v) => {
          void one.command(["SET", p + "k", String(++w)]);
          return (v ?? 0) + 1;
        }),
        (err: unknown) => err instanceof ApiError && err.status === 503 && /compare-and-set/.test(err.detail ?? ""),
      );
      assert.equal(await other.get("k"), w);
    });

    it("an updater returning undefined deletes, and absent stays absent (nothing written)", async () => {
      const p = prefix();
      const s = redisStore<string>(a, { prefix: p });
      assert.equal(await s.update("none", () => undefined), undefined);
      assert.equal(await a.command(["EXISTS", p + "none"]), 0);
      await s.set("x", "v");
      assert.equal(await s.update("x", () => undefined), undefined);
      assert.equal(await a.command(["EXISTS", p + "x"]), 0);
    });
  });

  describe("redisStore: values", () => {
    it("round-trips bytes (Buffer and Uint8Array, nested) and strings that look like the byte tags", async () => {
      const s = redisStore<unknown>(a, { prefix: prefix() });
      const bytes = new Uint8Array([0, 1, 2, 253, 254, 255]);
      const value = {
        buf: Buffer.from("héllo\u0000"),
        u8: bytes,
        slice: Buffer.from("0123456789").subarray(3, 6),
        list: [Buffer.alloc(0), "\u0000buf", { s: '{"\\u0000buf":"AA=="}' }],
        n: 1.5,
        nil: null,
      };
      await s.set("v", value);
      const back = (await s.get("v")) as typeof value;
      assert.ok(Buffer.isBuffer(back.buf));
      assert.equal(back.buf.toString(), "héllo\u0000");
      assert.ok(back.u8 instanceof Uint8Array && !Buffer.isBuffer(back.u8));
      assert.deepEqual(back.u8, bytes);
      assert.deepEqual(back.slice, Buffer.from("345"));
      assert.deepEqual(back.list, [Buffer.alloc(0), "\u0000buf", { s: '{"\\u0000buf":"AA=="}' }]);
      assert.equal(back.n, 1.5);
      assert.equal(back.nil, null);
    });

    it("refuses what JSON cannot carry, before writing anything", async () => {
      const p = prefix();
      const s = redisStore<unknown>(a, { prefix: p });
      const cyclic: Record<string, unknown> = {};
      cyclic["self"] = cyclic;
      for (const bad of [() => 1, { f: () => 1 }, 10n, Number.NaN, { x: Infinity }, [undefined], new Map(), { s: new Set([1]) }, Symbol("s"), undefined, cyclic, { "\u0000buf": "AA==" }]) {
        await assert.rejects(async () => s.set("bad", bad), TypeError, String(typeof bad));
      }
      assert.equal(await a.command(["EXISTS", p + "bad"]), 0);
      // A property set to undefined is dropped (reads back absent), as JSON does.
      await s.set("ok", { a: 1, gone: undefined });
      assert.deepEqual(await s.get("ok"), { a: 1 });
    });

    it("takes a codec", async () => {
      const s = redisStore<string>(a, { prefix: prefix(), codec: { encode: (v) => v.toUpperCase(), decode: (t) => t.toLowerCase() } });
      await s.set("k", "Mixed");
      assert.equal(await a.command(["GET", s.prefix + "k"]), "MIXED");
      assert.equal(await s.get("k"), "mixed");
    });
  });

  describe("redisStore: key space", () => {
    it("keys are prefix + key; a NUL-led key is kept apart from tag sets; lone surrogates are refused", async () => {
      const p = prefix();
      const s = redisStore<string>(a, { prefix: p });
      await s.set("plain", "1");
      assert.equal(await a.command(["GET", p + "plain"]), '"1"');
      await s.set("\u0000tweb", "nul-led", { tags: ["web"] });
      await s.set("other", "tagged", { tags: ["web"] });
      assert.equal(await s.get("\u0000tweb"), "nul-led");
      assert.equal(await a.command(["TYPE", p + "\u0000tweb"]), "set"); // the tag set of "web", untouched by the entry
      assert.equal(await s.deleteWhere((k) => k === "\u0000tweb"), 1);
      assert.equal(await s.get("other"), "tagged");
      await assert.rejects(async () => s.get("\ud800"), TypeError);
    });

    it("clear and deleteWhere stay inside the prefix, even with glob characters in it", async () => {
      const base = prefix();
      const star = redisStore<number>(a, { prefix: base + "*" });
      const sibling = redisStore<number>(a, { prefix: base + "x" });
      const bracket = redisStore<number>(a, { prefix: base + "[ab]" });
      const plainB = redisStore<number>(a, { prefix: base + "b" });
      for (const s of [star, sibling, bracket, plainB]) await s.set("k", 1);
      await a.command(["SET", base + "unrelated", "x"]);
      assert.equal(await star.deleteWhere(() => true), 1);
      await bracket.clear();
      assert.equal(await star.get("k"), undefined);
      assert.equal(await bracket.get("k"), undefined);
      assert.equal(await sibling.get("k"), 1);
      assert.equal(await plainB.get("k"), 1);
      assert.equal(await a.command(["GET", base + "unrelated"]), "x");
    });

    it("the default prefix does not contain the job store's: clear() with defaults leaves the job queue alone", async () => {
      const jobs = new RedisJobStore({ client: a });
      await jobs.open();
      await jobs.add({ id: "default-prefix-job", type: "t", payload: 1, state: "pending", attempts: 0, maxAttempts: 1, runAt: 0, createdAt: 0, updatedAt: 0, key: null, errors: [] });
      const s = redisStore<number>(a);
      await s.set("k", 1);
      await s.clear();
      assert.equal(await s.get("k"), undefined);
      assert.equal((await jobs.get("default-prefix-job"))?.state, "pending");
      assert.ok(!jobs.prefix.startsWith(s.prefix) && !s.prefix.startsWith(jobs.prefix), `${s.prefix} vs ${jobs.prefix}`);
      await jobs.close();
    });

    it("deleteWhere scans in batches, skips token buckets and unreadable values, and counts what it deleted", async () => {
      const p = prefix();
      const s = redisStore<{ n: number }>(a, { prefix: p, scanCount: 7 });
      for (let i = 0; i < 50; i++) await s.set("k" + i, { n: i });
      await s.takeToken("bucket", 5, 1, 10_000);
      await a.command(["SET", p + "foreign", "not json"]);
      assert.equal(await s.deleteWhere((_k, v) => v.n % 2 === 0), 25);
      assert.equal(await s.get("k2"), undefined);
      assert.deepEqual(await s.get("k3"), { n: 3 });
      assert.equal(await a.command(["TYPE", p + "bucket"]), "hash");
      await s.clear();
      assert.deepEqual(await a.command(["KEYS", p + "*"]), []);
    });
  });

  describe("redisStore: tags", () => {
    it("deleteTagged removes the entries written with the tag, and only them, in one call", async () => {
      const p = prefix();
      const s = redisStore<string>(a, { prefix: p });
      await s.set("/users/1", "u1", { tags: ["users"], ttlMs: 60_000 });
      await s.set("/users/2", "u2", { tags: ["users", "vip"], ttlMs: 60_000 });
      assert.equal(await s.add("/users/3", "u3", { tags: ["users"], ttlMs: 60_000 }), true);
      await s.update("/users/4", () => "u4", { tags: ["users"], ttlMs: 60_000 });
      await s.set("/projects", "p", { tags: ["projects"] });
      assert.equal(await s.deleteTagged("users"), 4);
      assert.equal(await s.get("/users/2"), undefined);
      assert.equal(await s.get("/projects"), "p");
      assert.equal(await a.command(["EXISTS", p + "\u0000tusers"]), 0);
      assert.equal(await s.deleteTagged("users"), 0);
      // An entry already gone is not counted.
      await s.set("/vip", "v", { tags: ["vip"] });
      assert.equal(await s.deleteTagged("vip"), 1);
    });

    it("a tag set lives as long as its longest-lived entry, and forever with a forever entry", async () => {
      const p = prefix();
      const s = redisStore<string>(a, { prefix: p });
      const tagTtl = async () => (await a.command(["PTTL", p + "\u0000tt"])) as number;
      await s.set("short", "x", { tags: ["t"], ttlMs: 10_000 });
      assert.ok((await tagTtl()) > 0 && (await tagTtl()) <= 10_000);
      await s.set("long", "x", { tags: ["t"], ttlMs: 100_000 });
      assert.ok((await tagTtl()) > 10_000);
      await s.set("shorter", "x", { tags: ["t"], ttlMs: 1000 });
      assert.ok((await tagTtl()) > 10_000);
      await s.set("forever", "x", { tags: ["t"] });
      assert.equal(await tagTtl(), -1);
    });

    it("writes prune members whose entries are gone, so a busy tag's set does not grow without bound", async () => {
      const p = prefix();
      const s = redisStore<string>(a, { prefix: p });
      for (let i = 0; i < 100; i++) await s.set("gone" + i, "x", { tags: ["busy"] });
      await a.command(["DEL", ...Array.from({ length: 100 }, (_, i) => p + "gone" + i)]);
      for (let i = 0; i < 300; i++) await s.set("live" + (i % 10), "x", { tags: ["busy"] });
      const size = (await a.command(["SCARD", p + "\u0000tbusy"])) as number;
      assert.ok(size < 60, `tag set of ${size} members for 10 live entries`);
    });
  });

  describe("redisStore: token buckets (one script, the server's clock)", () => {
    it("two clients on one key share one budget: capacity N allows exactly N of a burst", async () => {
      const p = prefix();
      const sa = redisStore(a, { prefix: p });
      const sb = redisStore(b, { prefix: p });
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? sa : sb).takeToken("client", 10, 0.001, 60_000)));
      assert.equal(results.filter((r) => r.ok).length, 10);
      for (const r of results) assert.ok(r.tokens >= 0 && r.tokens < 10);
      const pttl = (await a.command(["PTTL", p + "client"])) as number;
      assert.ok(pttl > 0 && pttl <= 60_000);
    });

    it("refills from the elapsed time, up to capacity, with fractional tokens reported exactly", async () => {
      const p = prefix();
      const s = redisStore(a, { prefix: p });
      for (let i = 0; i < 3; i++) assert.equal((await s.takeToken("k", 3, 2, 10_000)).ok, true);
      const empty = await s.takeToken("k", 3, 2, 10_000);
      assert.equal(empty.ok, false);
      assert.ok(empty.tokens < 1);
      // Move the bucket's last take 750 ms into the past: 1.5 tokens have come back since.
      const at = Number(await a.command(["HGET", p + "k", "a"]));
      await a.command(["HSET", p + "k", "a", String(at - 750)]);
      const refilled = await s.takeToken("k", 3, 2, 10_000);
      assert.equal(refilled.ok, true);
      assert.ok(refilled.tokens >= 0.5 && refilled.tokens < 1, String(refilled.tokens));
      assert.ok(!Number.isInteger(refilled.tokens));
      // A long pause refills to capacity, never beyond.
      await a.command(["HSET", p + "k", "a", String(at - 3_600_000)]);
      assert.equal((await s.takeToken("k", 3, 2, 10_000)).tokens, 2);
    });
  });
}
