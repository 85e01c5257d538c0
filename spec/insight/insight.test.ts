// insight(): per route pattern and method, answers by status class, latency percentiles from a
// bounded histogram (checked against its documented error bound with a controlled clock),
// requests in flight, request and response bytes, the most frequent error types; unmatched
// requests in one bucket, a bounded route table; the admin endpoint only with admin access,
// hidden from the OpenAPI document and not recorded itself.
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { ApiError, App, reply, route, silentLogger, path, type Layer, type Reply } from "../../lib/index.js";
import { HISTOGRAM_RELATIVE_ERROR, insight, LatencyHistogram, type InsightSnapshot, type RouteInsight } from "../../lib/insight/index.js";
import { openApiDocument } from "../../lib/openapi/index.js";
import { send } from "../support/http.js";

const TOKEN = "insight-admin-token-0123456789";
const AUTH = { authorization: `Bearer ${TOKEN}` };

/** A clock the handlers move forward: a request "takes" what its handler adds. */
function manualClock() {
  const clock = { now: 1000, read: () => clock.now };
  return clock;
}

function entry(snapshot: InsightSnapshot, method: string, pattern: string): RouteInsight {
  const found = snapshot.routes.find((r) => r.method === method && r.route === pattern);
  assert.ok(found, `no entry for ${method} ${pattern} in ${JSON.stringify(snapshot.routes.map((r) => `${r.method} ${r.route}`))}`);
  return found;
}

/** Within the histogram's documented bound of the exact value (plus the rounding to whole µs). */
function assertNear(got: number | null, want: number, label: string): void {
  assert.ok(got !== null, label);
  assert.ok(Math.abs(got - want) <= want * HISTOGRAM_RELATIVE_ERROR + 0.0005, `${label}: ${got} is not within bounds of ${want}`);
}

function nearestRank(sorted: readonly number[], p: number): number {
  return sorted[Math.max(1, Math.ceil(p * sorted.length - 1e-9)) - 1]!;
}

describe("recording", () => {
  it("counts answers per route by status class", async () => {
    const handle = insight();
    const app = new App({ logger: silentLogger }).register(handle).routes(
      route.get("/ok", [], () => "ok"),
      route.post("/ok", [], () => reply.created({ id: 1 })),
      route.get("/moved", [], () => reply.redirect("/ok")),
      route.get("/bad", [], () => {
        throw ApiError.badRequest("no");
      }),
      route.get("/boom", [], () => {
        throw new Error("broken");
      }),
      route.get("/continue", [], () => reply(103)),
    );
    for (let i = 0; i < 3; i++) await app.inject({ url: "/ok" });
    await app.inject({ method: "POST", url: "/ok" });
    await app.inject({ url: "/moved" });
    await app.inject({ url: "/bad" });
    await app.inject({ url: "/bad" });
    await app.inject({ url: "/boom" });
    const stats = handle.insightStats();
    assert.deepEqual(entry(stats, "GET", "/ok").status, { "1xx": 0, "2xx": 3, "3xx": 0, "4xx": 0, "5xx": 0 });
    assert.equal(entry(stats, "GET", "/ok").count, 3);
    assert.deepEqual(entry(stats, "POST", "/ok").status, { "1xx": 0, "2xx": 1, "3xx": 0, "4xx": 0, "5xx": 0 });
    assert.equal(entry(stats, "GET", "/moved").status["3xx"], 1);
    assert.equal(entry(stats, "GET", "/bad").status["4xx"], 2);
    assert.equal(entry(stats, "GET", "/boom").status["5xx"], 1);
    assert.deepEqual(entry(stats, "GET", "/boom").errors, [{ type: "internal_error", count: 1 }]);
    assert.equal(stats.routes.find((r) => r.route === "/continue"), undefined, "no entry before a request");
    assert.deepEqual(stats.routes.map((r) => r.count), [3, 2, 1, 1, 1], "most requested first");
    assert.ok(!Number.isNaN(Date.parse(stats.since)));
  });

  it("reports p50, p95 and p99 within the histogram's bound", async () => {
    const clock = manualClock();
    const handle = insight({ clock: clock.read });
    const app = new App({ logger: silentLogger }).register(handle).routes(
      route.get("/work/{ms}", [path("ms")], (ms) => {
        clock.now += Number(ms);
        return "done";
      }),
    );
    const empty = handle.insightStats();
    assert.deepEqual(empty.routes, []);
    // 1..100 ms in a scrambled order: p50 = 50, p95 = 95, p99 = 99 (nearest rank).
    for (let i = 0; i < 100; i++) await app.inject({ url: `/work/${((i * 37) % 100) + 1}` });
    const { latency_ms } = entry(handle.insightStats(), "GET", "/work/{ms}");
    assertNear(latency_ms.p50, 50, "p50");
    assertNear(latency_ms.p95, 95, "p95");
    assertNear(latency_ms.p99, 99, "p99");
  });

  it("keeps durations under 32 µs exact, and sub-millisecond ones to the microsecond", async () => {
    const clock = manualClock();
    const handle = insight({ clock: clock.read });
    const app = new App({ logger: silentLogger }).register(handle).routes(
      route.get("/fast/{ms}", [path("ms")], (ms) => {
        clock.now += Number(ms);
        return "";
      }),
    );
    for (const ms of ["0.005", "0.005", "0.031"]) await app.inject({ url: `/fast/${ms}` });
    assert.deepEqual(entry(handle.insightStats(), "GET", "/fast/{ms}").latency_ms, { p50: 0.005, p95: 0.031, p99: 0.031 });
  });

  it("counts requests in flight while a slow handler runs", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const started = new Promise<void>((resolve) => (entered = resolve));
    const handle = insight();
    const app = new App({ logger: silentLogger }).register(handle).routes(
      route.get("/slow", [], async () => {
        entered();
        await gate;
        return "late";
      }),
    );
    const pending = app.inject({ url: "/slow" });
    await started;
    const during = entry(handle.insightStats(), "GET", "/slow");
    assert.equal(during.in_flight, 1);
    assert.equal(during.count, 0);
    assert.deepEqual(during.latency_ms, { p50: null, p95: null, p99: null });
    release();
    assert.equal((await pending).status, 200);
    const afterwards = entry(handle.insightStats(), "GET", "/slow");
    assert.equal(afterwards.in_flight, 0);
    assert.equal(afterwards.count, 1);
  });

  it("adds up request and response bytes as the wire carries them", async () => {
    const handle = insight();
    const app = new App({ logger: silentLogger }).register(handle).routes(
      route.post("/echo", [], () => reply.text("héllo")), // 6 bytes in UTF-8
      route.get("/hello", [], () => "Hello, World!"), // the JSON string: 15 bytes
      route.get("/raw", [], () => reply.bytes(new Uint8Array(7))),
      route.get("/stream", [], () => reply.stream(Readable.from([Buffer.from("abc")]))),
      route.get("/sized", [], () => reply.stream(Readable.from([Buffer.from("abcd")]), "text/plain", 200, { "content-length": "4" })),
      route.get("/empty", [], () => reply.noContent()),
    );
    await app.inject({ method: "POST", url: "/echo", body: "0123456789" });
    await app.inject({ method: "POST", url: "/echo", body: "abc" });
    await app.inject({ url: "/hello" });
    await app.inject({ method: "HEAD", url: "/hello" });
    await app.inject({ url: "/raw" });
    await app.inject({ url: "/stream" });
    await app.inject({ url: "/sized" });
    await app.inject({ url: "/empty" });
    const stats = handle.insightStats();
    assert.deepEqual(entry(stats, "POST", "/echo").bytes, { request: 13, response: 12 });
    // HEAD is served by the GET route and recorded under it, with no body bytes.
    assert.deepEqual(entry(stats, "GET", "/hello").bytes, { request: 0, response: 15 });
    assert.equal(entry(stats, "GET", "/hello").count, 2);
    assert.equal(entry(stats, "GET", "/raw").bytes.response, 7);
    assert.equal(entry(stats, "GET", "/stream").bytes.response, 0, "a stream without content-length is not measured");
    assert.equal(entry(stats, "GET", "/sized").bytes.response, 4);
    assert.equal(entry(stats, "GET", "/empty").bytes.response, 0);
  });

  it("keeps the top error types per route, bounded by topErrors", async () => {
    const handle = insight({ topErrors: 2 });
    const app = new App({ logger: silentLogger }).register(handle).routes(
      route.get("/fail/{type}", [path("type")], (type) => {
        throw new ApiError(409, type, "conflict of some kind");
      }),
    );
    const hit = (type: string, times: number) => Promise.all(Array.from({ length: times }, () => app.inject({ url: `/fail/${type}` })));
    await hit("alpha", 3);
    await hit("beta", 2);
    // Exactly topErrors types: exact counts.
    assert.deepEqual(entry(handle.insightStats(), "GET", "/fail/{type}").errors, [
      { type: "alpha", count: 3 },
      { type: "beta", count: 2 },
    ]);
    // One more type: it takes the least counted one's place, inheriting its count (never too low).
    await hit("gamma", 1);
    assert.deepEqual(entry(handle.insightStats(), "GET", "/fail/{type}").errors, [
      { type: "alpha", count: 3 },
      { type: "gamma", count: 3 },
    ]);
    assert.equal(entry(handle.insightStats(), "GET", "/fail/{type}").status["4xx"], 6);
  });

  it("records route patterns, never raw paths; unmatched requests share one bucket", async () => {
    const handle = insight();
    const app = new App({ logger: silentLogger }).register(handle).routes(
      route.get("/users/{id}", [path("id")], (id) => ({ id })),
    );
    await app.inject({ url: "/users/1" });
    await app.inject({ url: "/users/2" });
    await app.inject({ url: "/nowhere/1" });
    await app.inject({ url: "/nowhere/2" });
    await app.inject({ method: "DELETE", url: "/users/1" }); // 405: no route matched
    const stats = handle.insightStats();
    assert.equal(stats.routes.length, 2);
    assert.equal(entry(stats, "GET", "/users/{id}").count, 2);
    const unmatched = entry(stats, "*", "(unmatched)");
    assert.equal(unmatched.count, 3);
    assert.equal(unmatched.status["4xx"], 3);
    assert.deepEqual(unmatched.errors, [
      { type: "not_found", count: 2 },
      { type: "method_not_allowed", count: 1 },
    ]);
    assert.ok(!JSON.stringify(stats).includes("nowhere"));
  });

  it("holds at most maxRoutes route entries; later routes share one", async () => {
    const make = (maxRoutes: number) => {
      const handle = insight({ maxRoutes });
      const app = new App({ logger: silentLogger }).register(handle).routes(
        route.get("/a", [], () => "a"),
        route.get("/b", [], () => "b"),
        route.get("/c", [], () => "c"),
      );
      return { handle, app };
    };
    const fits = make(3);
    for (const p of ["/a", "/b", "/c", "/c"]) await fits.app.inject({ url: p });
    assert.deepEqual(fits.handle.insightStats().routes.map((r) => r.route), ["/c", "/a", "/b"]);

    const over = make(2);
    for (const p of ["/a", "/b", "/c", "/c", "/a"]) await over.app.inject({ url: p });
    const stats = over.handle.insightStats();
    assert.deepEqual(stats.routes.map((r) => `${r.method} ${r.route} ${r.count}`), ["* (other routes) 2", "GET /a 2", "GET /b 1"]);
  });

  it("skips routes with config.insight false", async () => {
    const handle = insight();
    const app = new App({ logger: silentLogger }).register(handle).routes(route.get("/quiet", { config: { insight: false } }, [], () => "shh"));
    await app.inject({ url: "/quiet" });
    assert.deepEqual(handle.insightStats().routes, []);
  });

  it("wraps the layers registered after it and sees their answers", async () => {
    const refuse: Layer = (ctx, next) => (ctx.header("x-deny") === undefined ? next(ctx) : Promise.reject(ApiError.forbidden("denied")));
    const handle = insight();
    const app = new App({ logger: silentLogger }).register(handle).layer(refuse).routes(route.get("/x", [], () => "x"));
    await app.inject({ url: "/x", headers: { "x-deny": "1" } });
    await app.inject({ url: "/x" });
    const x = entry(handle.insightStats(), "GET", "/x");
    assert.deepEqual([x.status["2xx"], x.status["4xx"]], [1, 1]);
    assert.deepEqual(x.errors, [{ type: "forbidden", count: 1 }]);
  });

  it("never breaks an answer an inner layer gave as a plain value", async () => {
    const plain: Layer = () => Promise.resolve("plain" as unknown as Reply);
    const handle = insight();
    const app = new App({ logger: silentLogger }).register(handle).layer(plain).routes(route.get("/p", [], () => "p"));
    const r = await app.inject({ url: "/p" });
    assert.equal(r.status, 200);
    assert.equal(r.body, '"plain"');
    assert.equal(entry(handle.insightStats(), "GET", "/p").count, 1);
  });

  it("starts over on reset()", async () => {
    const handle = insight();
    const app = new App({ logger: silentLogger }).register(handle).routes(route.get("/r", [], () => "r"));
    await app.inject({ url: "/r" });
    const before = handle.insightStats().since;
    handle.reset();
    assert.deepEqual(handle.insightStats().routes, []);
    assert.ok(Date.parse(handle.insightStats().since) >= Date.parse(before));
    await app.inject({ url: "/r" });
    assert.equal(handle.routeStats("GET", "/r")?.count, 1);
  });

  it("records real requests on a socket, with the bytes the client received", async () => {
    const handle = insight();
    const app = new App({ logger: silentLogger }).register(handle).routes(route.post("/up", [], () => reply.text("x".repeat(300))));
    const server = await app.listen({ port: 0 });
    try {
      const r = await send(server.url + "/up", { method: "POST", body: "y".repeat(42), headers: { "content-type": "text/plain" } });
      assert.equal(r.raw.length, 300);
      assert.deepEqual(entry(handle.insightStats(), "POST", "/up").bytes, { request: 42, response: 300 });
    } finally {
      await server.close();
    }
  });
});

describe("options", () => {
  it("refuses bad limits, a short token and a relative admin path at construction", () => {
    assert.throws(() => insight({ maxRoutes: 0 }), /maxRoutes must be a positive integer/);
    assert.throws(() => insight({ maxRoutes: 1.5 }), /maxRoutes must be a positive integer/);
    assert.doesNotThrow(() => insight({ maxRoutes: 1, topErrors: 1 }));
    assert.throws(() => insight({ topErrors: 0 }), /topErrors must be a positive integer/);
    assert.throws(() => insight({ adminToken: "x".repeat(15) }), /adminToken must be a string of at least 16 characters/);
    assert.doesNotThrow(() => insight({ adminToken: "x".repeat(16) }));
    assert.throws(() => insight({ adminPath: "admin" }), /adminPath must start with "\/"/);
    assert.throws(() => insight({ adminPath: "/" }), /adminPath must not be "\/"/);
  });

  it("refuses to be registered twice on one app", () => {
    const handle = insight();
    const app = new App({ logger: silentLogger }).register(handle);
    assert.throws(() => app.register(handle), /already registered/);
  });
});

describe("the admin endpoint", () => {
  function adminApp(options: Parameters<typeof insight>[0]) {
    const handle = insight(options);
    const app = new App({ logger: silentLogger })
      .register(handle)
      .routes(route.get("/users/{id}", { summary: "one user" }, [path("id")], (id) => ({ id })));
    return { handle, app };
  }

  it("is absent (404) without an admin token or admin layers, and the numbers stay readable in-process", async () => {
    const { handle, app } = adminApp({});
    const r = await app.inject({ url: "/admin/insight", headers: AUTH });
    assert.equal(r.status, 404);
    assert.equal(r.json<{ error: { type: string } }>().error.type, "not_found");
    assert.equal(app.routeTable().length, 1);
    await app.inject({ url: "/users/7" });
    assert.equal(handle.routeStats("GET", "/users/{id}")?.count, 1);
  });

  it("answers 401 without the token and the snapshot with it", async () => {
    const { app } = adminApp({ adminToken: TOKEN });
    await app.inject({ url: "/users/1" });
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}x` }, { authorization: TOKEN }]) {
      const denied = await app.inject({ url: "/admin/insight", headers });
      assert.equal(denied.status, 401);
      assert.equal(denied.json<{ error: { type: string } }>().error.type, "unauthorized");
    }
    const r = await app.inject({ url: "/admin/insight", headers: AUTH });
    assert.equal(r.status, 200);
    assert.equal(r.headers["cache-control"], "no-store");
    const body = r.json<InsightSnapshot>();
    assert.equal(typeof body.since, "string");
    assert.equal(body.routes.length, 1, "admin requests (401s included) are not recorded");
    const users = body.routes[0]!;
    assert.deepEqual(Object.keys(users).sort(), ["bytes", "count", "errors", "in_flight", "latency_ms", "method", "route", "status"]);
    assert.deepEqual([users.method, users.route, users.count, users.status["2xx"], users.in_flight], ["GET", "/users/{id}", 1, 1, 0]);
    assert.deepEqual(Object.keys(users.latency_ms), ["p50", "p95", "p99"]);
  });

  it("serves one route by method and pattern, and 404 for one without traffic", async () => {
    const { app } = adminApp({ adminToken: TOKEN, adminPath: "/ops/traffic/" });
    await app.inject({ url: "/users/1" });
    await app.inject({ url: "/missing" });
    const one = await app.inject({ url: "/ops/traffic/GET/users/%7Bid%7D", headers: AUTH });
    assert.equal(one.status, 200);
    assert.equal(one.json<RouteInsight>().route, "/users/{id}");
    const lower = await app.inject({ url: "/ops/traffic/get/users/%7Bid%7D", headers: AUTH });
    assert.equal(lower.json<RouteInsight>().count, 1);
    const unmatched = await app.inject({ url: "/ops/traffic/*/(unmatched)", headers: AUTH });
    assert.equal(unmatched.json<RouteInsight>().count, 1);
    const none = await app.inject({ url: "/ops/traffic/POST/users/%7Bid%7D", headers: AUTH });
    assert.equal(none.status, 404);
    assert.equal(none.json<{ error: { type: string } }>().error.type, "not_found");
    assert.equal((await app.inject({ url: "/ops/traffic/GET/users/%7Bid%7D" })).status, 401);
  });

  it("uses the app's own admin layers when given", async () => {
    const onlyOps: Layer = (ctx, next) => (ctx.header("x-role") === "ops" ? next(ctx) : Promise.reject(ApiError.forbidden("ops only")));
    const { app } = adminApp({ adminLayers: [onlyOps] });
    assert.equal((await app.inject({ url: "/admin/insight" })).status, 403);
    assert.equal((await app.inject({ url: "/admin/insight", headers: { "x-role": "ops" } })).status, 200);
  });

  it("is left out of the OpenAPI document", () => {
    const { app } = adminApp({ adminToken: TOKEN });
    const doc = openApiDocument(app);
    assert.deepEqual(Object.keys(doc.paths), ["/users/{id}"]);
  });
});

describe("LatencyHistogram", () => {
  it("gives null percentiles when empty, and exact values under 32 µs", () => {
    const h = new LatencyHistogram();
    assert.deepEqual(h.percentilesMs([0.5, 0.99]), [null, null]);
    for (let us = 0; us < 32; us++) h.recordMs(us / 1000);
    assert.equal(h.count, 32);
    assert.deepEqual(h.percentilesMs([1 / 32, 0.5, 1]), [0, 0.015, 0.031]);
  });

  it("stays within its relative error bound on arbitrary durations", () => {
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const h = new LatencyHistogram();
    const values: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const ms = Math.round(Math.exp(random() * 14 - 4) * 1000) / 1000; // ~0.02 ms .. 20 s, whole µs
      values.push(ms);
      h.recordMs(ms);
    }
    values.sort((a, b) => a - b);
    const ps = [0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1];
    const got = h.percentilesMs(ps);
    ps.forEach((p, i) => assertNear(got[i]!, nearestRank(values, p), `p${p * 100}`));
  });

  it("clamps negative durations to 0 and very long ones to its last bucket", () => {
    const h = new LatencyHistogram();
    h.recordMs(-5);
    h.recordMs(Number.NaN);
    h.recordMs(1e12);
    const [low, high] = h.percentilesMs([0.5, 1]);
    assert.equal(low, 0);
    assertNear(high!, 0x7fffffff / 1000, "clamped");
  });
});
