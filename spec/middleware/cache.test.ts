// responseCache(): HIT/MISS, strong ETag and 304, Vary'd variants, credentials never shared,
// response Cache-Control/Set-Cookie honoured, request no-cache/no-store, TTL on an injected clock,
// HEAD from GET entries, bounds, and invalidation by key, prefix and tag.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Readable } from "node:stream";
import { App, reply, route, silentLogger, stream, type ListeningServer } from "../../lib/index.js";
import { negotiated, negotiation } from "../../lib/toon/index.js";
import { responseCache, type CacheEntry } from "../../lib/middleware/index.js";
import { MemoryStore } from "../../lib/middleware/index.js";
import { send } from "../support/http.js";

describe("responseCache over a real socket", () => {
  let server: ListeningServer;
  let t = 10_000_000;
  const calls: Record<string, number> = Object.create(null);
  const bump = (k: string) => (calls[k] = (calls[k] ?? 0) + 1);
  const cache = responseCache({ now: () => t, ttlMs: 10_000 });
  before(async () => {
    const layers = [cache];
    const app = new App({ logger: silentLogger }).routes(
      route.get("/items/{id}", { layers, config: { cache: { tags: ["items"] } } }, [], () => ({ n: bump("items") })),
      route.get("/lang", { layers }, [], () => reply(200, { n: bump("lang") }, { vary: "Accept-Language" })),
      route.get("/star", { layers }, [], () => reply(200, { n: bump("star") }, { vary: "*" })),
      route.get("/cookie", { layers }, [], () => reply(200, { n: bump("cookie") }, { "set-cookie": "s=1" })),
      route.get("/private", { layers }, [], () => reply(200, { n: bump("private") }, { "cache-control": "private, max-age=60" })),
      route.get("/nostore", { layers }, [], () => reply(200, { n: bump("nostore") }, { "cache-control": "no-store" })),
      route.get("/short", { layers }, [], () => reply(200, { n: bump("short") }, { "cache-control": "max-age=2" })),
      route.get("/missing", { layers }, [], () => reply(404, { n: bump("missing") })),
      route.get("/streamed", { layers }, [], () => {
        bump("streamed");
        return stream(Readable.from(["x"]), "text/plain");
      }),
      route.get("/me", { layers, config: { cache: { credentials: "per-user" } } }, [], () => ({ n: bump("me") })),
      route.get("/public", { layers, config: { cache: { credentials: "shared" } } }, [], () => ({ n: bump("public") })),
      route.get("/off", { layers, config: { cache: false } }, [], () => ({ n: bump("off") })),
      route.post("/items/{id}", { layers }, [], () => ({ n: bump("post") })),
      route.get("/users/{id}", { layers }, [], () => ({ n: bump("users") })),
      route.get("/const", { layers }, [], () => ({ same: true })),
    );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  const get = (path: string, headers: Record<string, string> = {}, method = "GET") => send(server.url + path, { method, headers });

  it("misses, then hits with the same body, age and a strong ETag", async () => {
    const a = await get("/items/1");
    assert.equal(a.headers["x-cache"], "MISS");
    assert.match(String(a.headers["etag"]), /^"[A-Za-z0-9_-]{27}"$/);
    t += 3000;
    const b = await get("/items/1");
    assert.equal(b.headers["x-cache"], "HIT");
    assert.equal(b.headers["age"], "3");
    assert.equal(b.body, a.body);
    assert.equal(b.headers["etag"], a.headers["etag"]);
    assert.equal(b.headers["content-type"], "application/json");
    assert.equal(calls["items"], 1);
    const q = await get("/items/1?x=1");
    assert.equal(q.headers["x-cache"], "MISS", "the query is part of the key");
  });

  it("answers 304 to a matching If-None-Match (strong or weak form, or a list)", async () => {
    const a = await get("/items/2");
    const etag = String(a.headers["etag"]);
    const miss304 = await get("/items/3", { "if-none-match": "\"nope\"" });
    assert.equal(miss304.status, 200);
    for (const inm of [etag, "W/" + etag, `"other", ${etag}`, "*"]) {
      const r = await get("/items/2", { "if-none-match": inm });
      assert.equal(r.status, 304, inm);
      assert.equal(r.body, "");
      assert.equal(r.headers["etag"], etag);
      assert.equal(r.headers["x-cache"], "HIT");
    }
  });

  it("answers 304 on the MISS that stores the answer, when the tag matches", async () => {
    const a = await get("/const");
    await cache.invalidate("/const");
    const r = await get("/const", { "if-none-match": String(a.headers["etag"]) });
    assert.equal(r.status, 304);
    assert.equal(r.headers["x-cache"], "MISS");
  });

  it("keeps one variant per value of the Vary'd request headers", async () => {
    const en = await get("/lang", { "accept-language": "en" });
    const fr = await get("/lang", { "accept-language": "fr" });
    assert.notEqual(en.body, fr.body);
    assert.equal(fr.headers["x-cache"], "MISS");
    const en2 = await get("/lang", { "accept-language": "en" });
    const fr2 = await get("/lang", { "accept-language": "fr" });
    assert.equal(en2.headers["x-cache"], "HIT");
    assert.equal(en2.body, en.body);
    assert.equal(fr2.body, fr.body);
    assert.equal(calls["lang"], 2);
  });

  it("never stores Vary: *, Set-Cookie, private, no-store, non-listed statuses or streams", async () => {
    for (const path of ["/star", "/cookie", "/private", "/nostore", "/missing", "/streamed"]) {
      await get(path);
      const r = await get(path);
      assert.equal(r.headers["x-cache"], "MISS", path);
      assert.equal(calls[path.slice(1)], 2, path);
    }
  });

  it("never serves or stores answers to requests with Authorization or Cookie by default", async () => {
    const authed = await get("/users/1", { authorization: "Bearer alice-token" });
    assert.equal(authed.headers["x-cache"], "MISS");
    const anon = await get("/users/1");
    assert.equal(anon.headers["x-cache"], "MISS", "the authorized answer was not stored");
    const anon2 = await get("/users/1");
    assert.equal(anon2.headers["x-cache"], "HIT");
    const withCookie = await get("/users/1", { cookie: "sid=abc" });
    assert.equal(withCookie.headers["x-cache"], "MISS", "a cookie request is not served the shared entry");
    assert.equal(calls["users"], 3);
  });

  it("caches per user when a route allows it, and shares when it says so", async () => {
    const a1 = await get("/me", { authorization: "Bearer alice" });
    const b1 = await get("/me", { authorization: "Bearer bob" });
    const a2 = await get("/me", { authorization: "Bearer alice" });
    const anon = await get("/me");
    assert.notEqual(a1.body, b1.body);
    assert.equal(a2.headers["x-cache"], "HIT");
    assert.equal(a2.body, a1.body);
    assert.equal(anon.headers["x-cache"], "MISS");
    await get("/public", { authorization: "Bearer alice" });
    const shared = await get("/public", { authorization: "Bearer bob" });
    assert.equal(shared.headers["x-cache"], "HIT");
  });

  it("honours request no-cache (refresh) and no-store (no lookup, no store)", async () => {
    await get("/items/20");
    const refreshed = await get("/items/20", { "cache-control": "no-cache" });
    assert.equal(refreshed.headers["x-cache"], "MISS");
    const after = await get("/items/20");
    assert.equal(after.headers["x-cache"], "HIT");
    assert.equal(after.body, refreshed.body, "the refresh replaced the entry");
    const pragma = await get("/items/20", { pragma: "no-cache" });
    assert.equal(pragma.headers["x-cache"], "MISS");
    const ns = await get("/items/21", { "cache-control": "no-store" });
    assert.equal(ns.headers["x-cache"], "MISS");
    assert.equal((await get("/items/21")).headers["x-cache"], "MISS");
  });

  it("expires entries after the TTL, sooner with a response max-age", async () => {
    await get("/items/30");
    await get("/short");
    t += 2000;
    assert.equal((await get("/short")).headers["x-cache"], "MISS");
    assert.equal((await get("/items/30")).headers["x-cache"], "HIT");
    t += 8000;
    assert.equal((await get("/items/30")).headers["x-cache"], "MISS");
  });

  it("serves HEAD from the GET entry and leaves other methods and opted-out routes alone", async () => {
    await get("/items/40");
    const head = await get("/items/40", {}, "HEAD");
    assert.equal(head.headers["x-cache"], "HIT");
    assert.equal(head.body, "");
    const post = await get("/items/40", {}, "POST");
    assert.equal(post.headers["x-cache"], undefined);
    await get("/off");
    assert.equal((await get("/off")).headers["x-cache"], undefined);
    assert.equal(calls["off"], 2);
  });

  it("invalidates by key, by prefix and by tag", async () => {
    await get("/items/50");
    await get("/items/51");
    await get("/users/50");
    assert.equal(await cache.invalidate("/items/50"), true);
    assert.equal((await get("/items/50")).headers["x-cache"], "MISS");
    assert.equal((await get("/items/51")).headers["x-cache"], "HIT");
    assert.ok((await cache.invalidateTag("items")) >= 2);
    assert.equal((await get("/items/51")).headers["x-cache"], "MISS");
    assert.equal((await get("/users/50")).headers["x-cache"], "HIT");
    assert.ok((await cache.invalidatePrefix("/users/")) >= 1);
    assert.equal((await get("/users/50")).headers["x-cache"], "MISS");
  });
});

describe("responseCache bounds", () => {
  it("keeps at most maxEntries URLs and maxBytes under many keys", async () => {
    const store = new MemoryStore<CacheEntry>({ maxEntries: 20, maxBytes: 20_000 });
    const app = new App({ logger: silentLogger }).routes(
      route.get("/p/{id}", { layers: [responseCache({ store })] }, [], () => "x".repeat(500)),
    );
    for (let i = 0; i < 500; i++) await app.inject({ url: "/p/" + i });
    assert.ok(store.size <= 20);
    assert.ok(store.byteSize <= 20_000);
    assert.ok(store.byteSize > 10_000, "sizes are counted");
    assert.equal((await app.inject({ url: "/p/499" })).headers["x-cache"], "HIT");
    assert.equal((await app.inject({ url: "/p/0" })).headers["x-cache"], "MISS");
  });

  it("keeps a hit negotiable: an outer negotiation() layer still answers TOON from a cached JSON entry", async () => {
    let calls = 0;
    const app = new App({ logger: silentLogger })
      .layer(negotiation())
      .routes(route.get("/list", { layers: [responseCache()] }, [], () => negotiated({ users: [{ id: ++calls, name: "a" }] })));
    const json = await app.inject({ url: "/list" });
    assert.equal(json.headers["x-cache"], "MISS");
    const toon = await app.inject({ url: "/list", headers: { accept: "application/toon" } });
    assert.equal(toon.headers["x-cache"], "HIT");
    assert.match(String(toon.headers["content-type"]), /toon/);
    assert.match(toon.body, /users\[1\]/);
    assert.match(String(toon.headers["vary"]), /Accept/);
    assert.equal(calls, 1);
  });

  it("does not store bodies over maxEntryBytes", async () => {
    const app = new App({ logger: silentLogger }).routes(
      route.get("/big", { layers: [responseCache({ maxEntryBytes: 100 })] }, [], () => "x".repeat(101)),
    );
    await app.inject({ url: "/big" });
    assert.equal((await app.inject({ url: "/big" })).headers["x-cache"], "MISS");
  });
});
