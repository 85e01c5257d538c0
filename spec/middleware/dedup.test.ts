// idempotency(): one execution per Idempotency-Key, concurrent duplicates wait, later ones get the
// stored answer replayed; body mismatch 422; scoping by method, path and caller; 4xx/5xx released;
// per-caller budgets and a full store that never takes another caller's only answer.
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

describe("idempotency when the store is full", () => {
  function fullApp(options: Parameters<typeof idempotency>[0]): { app: App; runs: () => number; clock: { t: number } } {
    let runs = 0;
    const clock = { t: 1_000_000 };
    const app = new App({ logger: silentLogger })
      .layer(idempotency({ now: () => clock.t, ttlMs: 60_000, ...options }))
      .routes(
        route.post("/users", [json(t.object({ email: t.string() }))], (b) => {
          runs++;
          return created({ id: runs, email: b.email, pad: "x".repeat(b.email.startsWith("big") ? 2000 : 0) });
        }),
        route.post("/boom", [], () => {
          runs++;
          throw new Error("failed after doing part of the work");
        }),
      );
    return { app, runs: () => runs, clock };
  }
  const create = (app: App, ip: string, key: string, email = "a@example.com") =>
    app.inject({ method: "POST", url: "/users", remoteAddress: ip, headers: { "idempotency-key": key }, body: { email } });

  it("never takes a caller's only answer for someone else: a newcomer gets 503 + Retry-After, the victim still replays", async () => {
    const { app, runs, clock } = fullApp({ maxKeys: 20, maxKeysPerCaller: 5 });
    assert.equal((await create(app, "10.0.0.1", "victim")).status, 201);
    for (let i = 2; i <= 20; i++) assert.equal((await create(app, `10.0.0.${i}`, "k")).status, 201);
    assert.equal(runs(), 20);
    clock.t += 10_000;
    const refused = await create(app, "10.0.1.1", "k");
    assert.equal(refused.status, 503);
    assert.equal(refused.headers["retry-after"], "50");
    assert.match(refused.json<{ error_id: string }>().error_id, ERROR_ID);
    assert.equal(runs(), 20, "the refused request did not run");
    const retry = await create(app, "10.0.0.1", "victim");
    assert.equal(retry.status, 201);
    assert.equal(retry.headers["idempotent-replayed"], "true");
    assert.equal(runs(), 20);
    // Once the answers expire there is room again.
    clock.t += 50_001;
    assert.equal((await create(app, "10.0.1.1", "k")).status, 201);
  });

  it("makes room from the caller holding the most, never from a caller with one answer", async () => {
    const { app, runs } = fullApp({ maxKeys: 10, maxKeysPerCaller: 5 });
    await create(app, "10.0.0.1", "victim");
    for (let i = 0; i < 5; i++) await create(app, "10.0.0.2", `b-${i}`);
    for (let i = 3; i <= 6; i++) await create(app, `10.0.0.${i}`, "c");
    assert.equal(runs(), 10);
    // Full: each newcomer (holding 0) takes the oldest answer of B (holding 5, then 4, ...), down
    // to B holding 1: from then on everyone holds one answer, and a newcomer is refused.
    for (let i = 0; i < 4; i++) assert.equal((await create(app, `10.0.2.${i}`, "n")).status, 201);
    assert.equal((await create(app, "10.0.2.9", "n")).status, 503, "B's last answer and everyone's single answers stay");
    const before = runs();
    assert.equal((await create(app, "10.0.0.1", "victim")).headers["idempotent-replayed"], "true");
    assert.equal((await create(app, "10.0.0.2", "b-4")).headers["idempotent-replayed"], "true");
    assert.equal((await create(app, "10.0.0.3", "c")).headers["idempotent-replayed"], "true");
    assert.equal(runs(), before);
    // B's oldest went first (and B, full, now trades its own last answer for a new one).
    assert.equal((await create(app, "10.0.0.2", "b-3")).headers["idempotent-replayed"], undefined);
    assert.equal((await create(app, "10.0.0.1", "victim")).headers["idempotent-replayed"], "true");
  });

  it("gives an IPv6 /64 one budget while keys stay scoped to the full address", async () => {
    const { app, runs } = fullApp({ maxKeys: 100, maxKeysPerCaller: 3 });
    await create(app, "10.0.0.1", "victim");
    for (let i = 1; i <= 50; i++) await create(app, `2001:db8:0:1::${i.toString(16)}`, `k-${i}`);
    assert.equal((await create(app, "2001:db8:0:1::32", "k-50")).headers["idempotent-replayed"], "true");
    assert.equal((await create(app, "2001:db8:0:1::4", "k-4")).headers["idempotent-replayed"], undefined, "one budget of 3 for the /64");
    const n = runs();
    assert.equal((await create(app, "2001:db8:0:1::1", "same")).status, 201);
    assert.equal((await create(app, "2001:db8:0:1::2", "same")).headers["idempotent-replayed"], undefined);
    assert.equal(runs(), n + 2, "the same key from two addresses of one /64 does not collide");
    assert.equal((await create(app, "10.0.0.1", "victim")).headers["idempotent-replayed"], "true");
  });

  it("keeps an answer too big for the bytes left as a stub: a duplicate gets 409, never a second run", async () => {
    const { app, runs } = fullApp({ maxBytes: 4000, maxBytesPerCaller: 3000 });
    assert.equal((await create(app, "10.0.0.1", "a1", "big-a1")).status, 201);
    assert.equal((await create(app, "10.0.0.2", "b1", "big-b1")).status, 201);
    assert.equal(runs(), 2);
    // 10.0.0.1's first answer (~2.6 KB) is replayed; 10.0.0.2's did not fit whole.
    assert.equal((await create(app, "10.0.0.1", "a1", "big-a1")).headers["idempotent-replayed"], "true");
    const stub = await create(app, "10.0.0.2", "b1", "big-b1");
    assert.equal(stub.status, 409);
    assert.match(stub.json<{ error: { message: string } }>().error.message, /cannot be replayed/);
    assert.equal(runs(), 2);
    // A caller's own byte budget drops its own oldest answer first.
    assert.equal((await create(app, "10.0.0.1", "a2", "big-a2")).status, 201);
    assert.equal((await create(app, "10.0.0.1", "a2", "big-a2")).headers["idempotent-replayed"], "true");
    assert.equal((await create(app, "10.0.0.1", "a1", "big-a1")).headers["idempotent-replayed"], undefined);
  });

  it("stores 5xx answers only with keepServerErrors", async () => {
    const boom = (app: App) => app.inject({ method: "POST", url: "/boom", remoteAddress: "10.0.0.1", headers: { "idempotency-key": "x" } });
    const released = fullApp({});
    assert.equal((await boom(released.app)).status, 500);
    assert.equal((await boom(released.app)).headers["idempotent-replayed"], undefined);
    assert.equal(released.runs(), 2);
    const kept = fullApp({ keepServerErrors: true });
    assert.equal((await boom(kept.app)).status, 500);
    const again = await boom(kept.app);
    assert.equal(again.status, 500);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.equal(kept.runs(), 1);
  });

  it("answers 429 to a caller with maxKeysPerCaller keyed requests in flight", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const app = new App({ logger: silentLogger })
      .layer(idempotency({ maxKeysPerCaller: 2 }))
      .routes(route.post("/slow", [], async () => (await gate, created({ ok: true }))));
    const slow = (ip: string, key: string) => app.inject({ method: "POST", url: "/slow", remoteAddress: ip, headers: { "idempotency-key": key } });
    const first = [slow("10.0.0.1", "a"), slow("10.0.0.1", "b")];
    await delay(20);
    assert.equal((await slow("10.0.0.1", "c")).status, 429);
    const other = slow("10.0.0.2", "a");
    release();
    assert.deepEqual((await Promise.all([...first, other])).map((r) => r.status), [201, 201, 201]);
    assert.equal((await slow("10.0.0.1", "c")).status, 201);
  });

  it("refuses caps that are not positive integers", () => {
    assert.throws(() => idempotency({ maxKeys: 0 }), /maxKeys must be a positive integer/);
    assert.throws(() => idempotency({ maxBytesPerCaller: 1.5 }), /maxBytesPerCaller must be a positive integer/);
  });
});
