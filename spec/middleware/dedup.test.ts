// idempotency(): one execution per Idempotency-Key, concurrent duplicates wait, later ones get the
// stored answer replayed; body mismatch 422; scoping by method, path and caller; 5xx released.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Readable } from "node:stream";
import { ApiError, App, created, json, route, silentLogger, stream, t, text, type Layer, type ListeningServer } from "../../lib/index.js";
import { setAuthPrincipal } from "../../lib/auth/index.js";
import { idempotency } from "../../lib/middleware/index.js";
import { ERROR_ID, send } from "../support/http.js";

const fakeAuth: Layer = (ctx, next) => {
  const user = ctx.header("x-user");
  if (user !== undefined) setAuthPrincipal(ctx, { scheme: "bearer", claims: { sub: user }, challenge: "Bearer" });
  return next(ctx);
};

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("idempotency over a real socket", () => {
  let server: ListeningServer;
  let t = 1_000_000;
  const counts: Record<string, number> = Object.create(null);
  const bump = (k: string) => (counts[k] = (counts[k] ?? 0) + 1);
  let failNext = true;
  before(async () => {
    const dedup = idempotency({ now: () => t, ttlMs: 60_000 });
    const app = new App({ logger: silentLogger })
      .layer(fakeAuth)
      .layer(dedup)
      .routes(
        route.post("/orders", [text()], async (body) => {
          const n = bump("orders");
          await delay(30);
          return created({ order: n, body }, { location: `/orders/${n}`, "x-extra": ["a", "b"] });
        }),
        route.post("/other", [text()], () => created({ other: bump("other") })),
        route.get("/read", [], () => ({ read: bump("read") })),
        route.post("/flaky", [], () => {
          bump("flaky");
          if (failNext) {
            failNext = false;
            throw ApiError.serviceUnavailable("try later");
          }
          return { ok: true };
        }),
        route.post("/stream", [], () => {
          bump("stream");
          return stream(Readable.from(["a", "b"]), "text/plain");
        }),
        route.post("/strict", { layers: [idempotency({ required: true })] }, [], () => "ok"),
        route.post("/webhook", { config: { idempotency: false } }, [], () => ({ n: bump("webhook") })),
      );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  const post = (path: string, key: string | undefined, body = "{}", extra: Record<string, string> = {}) =>
    send(server.url + path, {
      method: "POST",
      headers: { "content-type": "text/plain", ...(key === undefined ? {} : { "idempotency-key": key }), ...extra },
      body,
    });

  it("runs once and replays status, headers and body to a later duplicate", async () => {
    const first = await post("/orders", "k-1", "hello");
    assert.equal(first.status, 201);
    assert.equal(first.headers["idempotent-replayed"], undefined);
    const second = await post("/orders", "k-1", "hello");
    assert.equal(second.status, 201);
    assert.equal(second.headers["idempotent-replayed"], "true");
    assert.equal(second.body, first.body);
    assert.equal(second.headers["location"], first.headers["location"]);
    assert.equal(second.headers["x-extra"], "a, b");
    assert.equal(second.headers["content-type"], "application/json");
    assert.equal(counts["orders"], 1);
  });

  it("runs 100 parallel duplicates exactly once and gives all the same answer", async () => {
    const before = counts["orders"] ?? 0;
    const answers = await Promise.all(Array.from({ length: 100 }, () => post("/orders", "burst", "same")));
    assert.equal((counts["orders"] ?? 0) - before, 1);
    const bodies = new Set(answers.map((a) => `${a.status} ${a.body}`));
    assert.equal(bodies.size, 1, [...bodies].join(" | "));
    assert.equal(answers.filter((a) => a.headers["idempotent-replayed"] === undefined).length, 1);
  });

  it("refuses the same key with a different body: 422 with a clear message", async () => {
    await post("/orders", "k-2", "one");
    const r = await post("/orders", "k-2", "two");
    assert.equal(r.status, 422);
    const body = JSON.parse(r.body);
    assert.equal(body.error.type, "idempotency_key_reused");
    assert.match(body.error.message, /different request body/);
    assert.match(body.error_id, ERROR_ID);
  });

  it("scopes keys by path and by caller", async () => {
    const n = counts["orders"] ?? 0;
    await post("/orders", "shared", "x", { "x-user": "alice" });
    await post("/orders", "shared", "x", { "x-user": "bob" });
    const replay = await post("/orders", "shared", "x", { "x-user": "alice" });
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.equal((counts["orders"] ?? 0) - n, 2);
    const other = await post("/other", "shared", "x", { "x-user": "alice" });
    assert.equal(other.headers["idempotent-replayed"], undefined);
    assert.equal(counts["other"], 1);
  });

  it("ignores safe methods, requests without the key, and opted-out routes", async () => {
    await send(server.url + "/read", { headers: { "idempotency-key": "g" } });
    await send(server.url + "/read", { headers: { "idempotency-key": "g" } });
    assert.equal(counts["read"], 2);
    await post("/other", undefined);
    await post("/other", undefined);
    await post("/webhook", "w");
    await post("/webhook", "w");
    assert.equal(counts["webhook"], 2);
  });

  it("releases the key after a 5xx so the retry runs", async () => {
    const a = await post("/flaky", "f-1");
    assert.equal(a.status, 503);
    const b = await post("/flaky", "f-1");
    assert.equal(b.status, 200);
    assert.equal(counts["flaky"], 2);
    const c = await post("/flaky", "f-1");
    assert.equal(c.headers["idempotent-replayed"], "true");
    assert.equal(counts["flaky"], 2);
  });

  it("never runs a streamed answer twice: a later duplicate gets 409", async () => {
    const a = await post("/stream", "s-1");
    assert.equal(a.body, "ab");
    const b = await post("/stream", "s-1");
    assert.equal(b.status, 409);
    assert.match(JSON.parse(b.body).error.message, /cannot be replayed/);
    assert.equal(counts["stream"], 1);
  });

  it("validates the key and can require it", async () => {
    assert.equal((await post("/orders", "x".repeat(256))).status, 400);
    assert.equal((await post("/orders", "has space")).status, 400);
    const missing = await post("/strict", undefined);
    assert.equal(missing.status, 400);
    assert.match(JSON.parse(missing.body).error.message, /idempotency-key header is required/);
    assert.equal((await post("/strict", '"quoted-key"')).status, 200);
  });

  it("forgets answers after the TTL", async () => {
    const n = counts["orders"] ?? 0;
    await post("/orders", "k-ttl", "x");
    t += 60_001;
    const again = await post("/orders", "k-ttl", "x");
    assert.equal(again.headers["idempotent-replayed"], undefined);
    assert.equal((counts["orders"] ?? 0) - n, 2);
  });
});

describe("idempotency under a flood from another client", () => {
  /** The scenario in miniature: a small store, one victim, one flooding client. */
  function floodApp(): { app: App; runs: () => number } {
    let runs = 0;
    const app = new App({ logger: silentLogger })
      .layer(idempotency({ maxKeys: 50, maxKeysPerCaller: 10 }))
      .routes(
        route.post("/users", [json(t.object({ email: t.string({ email: true }) }))], (b) => {
          runs++;
          return created({ id: runs, email: b.email });
        }),
      );
    return { app, runs: () => runs };
  }
  const create = (app: App, ip: string, key: string, email: string) =>
    app.inject({ method: "POST", url: "/users", remoteAddress: ip, headers: { "idempotency-key": key }, body: { email } });

  it("refused (422) requests store nothing: a corrected retry with the same key runs", async () => {
    const { app, runs } = floodApp();
    assert.equal((await create(app, "10.0.0.1", "k1", "not-an-email")).status, 422);
    const fixed = await create(app, "10.0.0.1", "k1", "ok@example.com");
    assert.equal(fixed.status, 201);
    assert.equal(fixed.headers["idempotent-replayed"], undefined);
    assert.equal(runs(), 1);
  });

  it("a flood of failing keyed requests from B does not evict A's record: A's retry replays", async () => {
    const { app, runs } = floodApp();
    assert.equal((await create(app, "10.0.0.1", "victim", "a@example.com")).status, 201);
    for (let i = 0; i < 500; i++) await create(app, "10.0.0.2", `flood-${i}`, "bad");
    const retry = await create(app, "10.0.0.1", "victim", "a@example.com");
    assert.equal(retry.status, 201);
    assert.equal(retry.headers["idempotent-replayed"], "true");
    assert.equal(runs(), 1);
  });

  it("a flood of successful keyed requests from B only pushes out B's own oldest", async () => {
    const { app, runs } = floodApp();
    await create(app, "10.0.0.1", "victim", "a@example.com");
    for (let i = 0; i < 200; i++) await create(app, "10.0.0.2", `flood-${i}`, `b${i}@example.com`);
    assert.equal(runs(), 201);
    const retry = await create(app, "10.0.0.1", "victim", "a@example.com");
    assert.equal(retry.headers["idempotent-replayed"], "true");
    assert.equal(runs(), 201, "the victim's request did not run twice");
    // B's recent keys replay; its oldest were dropped to stay within its own 10.
    assert.equal((await create(app, "10.0.0.2", "flood-199", "b199@example.com")).headers["idempotent-replayed"], "true");
    assert.equal((await create(app, "10.0.0.2", "flood-0", "b0@example.com")).headers["idempotent-replayed"], undefined);
  });

  it("the same key from two callers never collides", async () => {
    const { app, runs } = floodApp();
    await create(app, "10.0.0.1", "same", "a@example.com");
    const other = await create(app, "10.0.0.2", "same", "a@example.com");
    assert.equal(other.headers["idempotent-replayed"], undefined);
    assert.equal(runs(), 2);
  });
});
