// Circuit breakers on a controllable clock: closed -> open on consecutive 5xx (4xx never count),
// 503 service_unavailable with Retry-After while open, half-open with limited probes, closing
// after successful probes, reopening on a failed one; per route, named, and for dependencies.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ApiError, App, route, silentLogger, type ListeningServer } from "../../lib/index.js";
import { circuitBreaker, dependencyBreaker, type BreakerState } from "../../lib/middleware/index.js";
import { timeout } from "../../lib/middleware/index.js";
import { ERROR_ID, send } from "../support/http.js";

describe("circuitBreaker layer over a real socket", () => {
  let server: ListeningServer;
  let t = 0;
  const now = () => t;
  const events: string[] = [];
  const breaker = circuitBreaker({
    failureThreshold: 3,
    resetTimeoutMs: 10_000,
    halfOpenMaxProbes: 1,
    successThreshold: 2,
    now,
    onStateChange: (key, from, to) => events.push(`${key}: ${from} -> ${to}`),
  });
  const shared = circuitBreaker({ name: "catalog", failureThreshold: 2, resetTimeoutMs: 1000, now });
  let mode: "fail" | "ok" | "bad-request" = "fail";
  let calls = 0;
  let gate: Promise<void> | null = null;
  before(async () => {
    const app = new App({ logger: silentLogger }).routes(
      route.get("/upstream", { layers: [breaker] }, [], async () => {
        calls++;
        if (gate !== null) await gate;
        if (mode === "fail") throw ApiError.internal("upstream failed");
        if (mode === "bad-request") throw ApiError.badRequest("your fault");
        return "ok";
      }),
      route.get("/other", { layers: [breaker] }, [], () => "fine"),
      route.get("/slow", { layers: [breaker, timeout(20)] }, [], () => new Promise(() => {})),
      route.get("/c1", { layers: [shared] }, [], () => {
        throw ApiError.internal("down");
      }),
      route.get("/c2", { layers: [shared] }, [], () => "c2"),
    );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  const get = (path: string) => send(server.url + path);
  const key = breaker.keyOf("GET", "/upstream");

  it("does not count 4xx answers as failures", async () => {
    mode = "bad-request";
    for (let i = 0; i < 5; i++) assert.equal((await get("/upstream")).status, 400);
    assert.equal(await breaker.state(key), "closed");
  });

  it("opens after consecutive 5xx, then answers 503 with Retry-After without running the handler", async () => {
    mode = "fail";
    for (let i = 0; i < 2; i++) assert.equal((await get("/upstream")).status, 500);
    mode = "ok";
    assert.equal((await get("/upstream")).status, 200, "a success resets the count");
    mode = "fail";
    for (let i = 0; i < 3; i++) assert.equal((await get("/upstream")).status, 500);
    assert.equal(await breaker.state(key), "open");
    const before = calls;
    t += 2500;
    const r = await get("/upstream");
    assert.equal(r.status, 503);
    assert.equal(r.headers["retry-after"], "8");
    const body = JSON.parse(r.body);
    assert.equal(body.error.type, "service_unavailable");
    assert.match(body.error.message, /GET \/upstream is temporarily unavailable \(circuit open\)/);
    assert.match(body.error_id, ERROR_ID);
    assert.equal(calls, before);
    assert.equal((await get("/other")).status, 200, "other routes have their own breaker");
  });

  it("half-opens after the reset time with a limited number of probes, reopening on a failed probe", async () => {
    t += 7500;
    assert.equal(await breaker.state(key), "half-open");
    mode = "fail";
    let release!: () => void;
    gate = new Promise((r) => (release = r));
    const probe = get("/upstream");
    await new Promise((r) => setTimeout(r, 30));
    const extra = await get("/upstream");
    assert.equal(extra.status, 503, "only one probe at a time");
    assert.equal(extra.headers["retry-after"], "1");
    release();
    gate = null;
    assert.equal((await probe).status, 500);
    assert.equal(await breaker.state(key), "open");
  });

  it("closes after enough successful probes", async () => {
    t += 10_000;
    mode = "ok";
    assert.equal((await get("/upstream")).status, 200);
    assert.equal(await breaker.state(key), "half-open");
    assert.equal((await get("/upstream")).status, 200);
    assert.equal(await breaker.state(key), "closed");
    assert.deepEqual(events, [
      "GET /upstream: closed -> open",
      "GET /upstream: open -> half-open",
      "GET /upstream: half-open -> open",
      "GET /upstream: open -> half-open",
      "GET /upstream: half-open -> closed",
    ]);
    const snap = await breaker.snapshot(key);
    assert.equal(snap.failures, 0);
  });

  it("counts timeouts from a timeout() inside it", async () => {
    for (let i = 0; i < 3; i++) assert.equal((await get("/slow")).status, 503);
    assert.equal(await breaker.state(breaker.keyOf("GET", "/slow")), "open");
    const r = await get("/slow");
    assert.equal(JSON.parse(r.body).error.type, "service_unavailable");
  });

  it("shares one named breaker across routes", async () => {
    assert.equal((await get("/c1")).status, 500);
    assert.equal((await get("/c1")).status, 500);
    const r = await get("/c2");
    assert.equal(r.status, 503);
    assert.match(JSON.parse(r.body).error.message, /^catalog is temporarily unavailable/);
    assert.equal(await shared.state("catalog"), "open");
  });
});

describe("dependencyBreaker", () => {
  it("wraps outgoing calls: opens on failures, 503 while open, probes after the reset time", async () => {
    let t = 0;
    const seen: BreakerState[] = [];
    const db = dependencyBreaker("db", { failureThreshold: 2, resetTimeoutMs: 5000, successThreshold: 1, now: () => t, onStateChange: (_k, _f, to) => seen.push(to) });
    await assert.rejects(db.run(async () => Promise.reject(new Error("conn refused"))), /conn refused/);
    await assert.rejects(db.run(async () => Promise.reject(new Error("conn refused"))), /conn refused/);
    assert.equal(await db.state(), "open");
    let ran = false;
    await assert.rejects(
      db.run(async () => {
        ran = true;
      }),
      (err: unknown) => err instanceof ApiError && err.status === 503 && err.headers?.["retry-after"] === "5",
    );
    assert.equal(ran, false);
    t += 5000;
    assert.equal(await db.run(async () => 42), 42);
    assert.equal(await db.state(), "closed");
    assert.deepEqual(seen, ["open", "half-open", "closed"]);
  });

  it("aborts and fails a call that outlives callTimeoutMs with 504 timeout", async () => {
    const api = dependencyBreaker("api", { failureThreshold: 1, callTimeoutMs: 20 });
    let aborted: unknown;
    await assert.rejects(
      api.run((signal) => new Promise((_, reject) => signal.addEventListener("abort", () => ((aborted = signal.reason), reject(signal.reason))))),
      (err: unknown) => err instanceof ApiError && err.status === 504 && err.type === "timeout",
    );
    assert.equal((aborted as DOMException).name, "TimeoutError");
    assert.equal(await api.state(), "open");
  });

  it("lets the caller say which errors are failures", async () => {
    const svc = dependencyBreaker("svc", { failureThreshold: 1, isFailure: (e) => !(e instanceof ApiError && e.status < 500) });
    await assert.rejects(svc.run(async () => Promise.reject(ApiError.notFound())));
    assert.equal(await svc.state(), "closed");
  });

  it("answers 503 to the client from a handler whose dependency is open", async () => {
    const dep = dependencyBreaker("payments", { failureThreshold: 1 });
    const app = new App({ logger: silentLogger }).routes(
      route.get("/pay", [], () => dep.run(async () => Promise.reject(new Error("gateway down")))),
    );
    assert.equal((await app.inject({ url: "/pay" })).status, 500);
    const r = await app.inject({ url: "/pay" });
    assert.equal(r.status, 503);
    assert.ok(Number(r.headers["retry-after"]) > 0);
    assert.match(r.json<{ error: { message: string } }>().error.message, /^payments is temporarily unavailable/);
  });
});
