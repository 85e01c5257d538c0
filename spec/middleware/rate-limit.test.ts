// rateLimit(): token buckets on an injected clock, IETF RateLimit-* headers, 429 in the uniform
// body with Retry-After, keys (socket peer, trusted X-Forwarded-For, user, function), per-route
// and group scoping, opt-out, and bounded memory.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, group, route, silentLogger, type Layer, type ListeningServer } from "../../lib/index.js";
import { setAuthPrincipal } from "../../lib/auth/index.js";
import { rateLimit, type TokenBucketState } from "../../lib/middleware/index.js";
import { MemoryStore } from "../../lib/middleware/index.js";
import { ERROR_ID, send } from "../support/http.js";

function clock(start = 5_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

/** Test authentication: `x-user: alice` becomes principal sub "alice". */
const fakeAuth: Layer = (ctx, next) => {
  const user = ctx.header("x-user");
  if (user !== undefined) setAuthPrincipal(ctx, { scheme: "bearer", claims: { sub: user }, challenge: "Bearer" });
  return next(ctx);
};

describe("rateLimit over a real socket", () => {
  let server: ListeningServer;
  const c = clock();
  let limitedCalls = 0;
  before(async () => {
    const basic = rateLimit({ capacity: 3, refillPerSecond: 1, now: c.now });
    const trusted = rateLimit({ capacity: 1, refillPerSecond: 0.001, now: c.now, trustProxy: { hops: 1 } });
    const untrusted = rateLimit({ capacity: 1, refillPerSecond: 0.001, now: c.now });
    const byUser = rateLimit({ capacity: 1, refillPerSecond: 0.001, now: c.now, key: "user" });
    const byTenant = rateLimit({ capacity: 1, refillPerSecond: 0.001, now: c.now, key: (ctx) => ctx.header("x-tenant") });
    const api = rateLimit({ capacity: 2, refillPerSecond: 0.001, now: c.now });
    const perRoute = rateLimit({ capacity: 1, refillPerSecond: 0.001, now: c.now, perRoute: true });
    const app = new App({ logger: silentLogger }).routes(
      route.get("/basic", { layers: [basic] }, [], () => {
        limitedCalls++;
        return "ok";
      }),
      route.get("/trusted", { layers: [trusted] }, [], () => "ok"),
      route.get("/untrusted", { layers: [untrusted] }, [], () => "ok"),
      route.get("/user", { layers: [fakeAuth, byUser] }, [], () => "ok"),
      route.get("/tenant", { layers: [byTenant] }, [], () => "ok"),
      group({ prefix: "/api/v1", layers: [api] }, [
        route.get("/a", [], () => "a"),
        route.get("/b", [], () => "b"),
        route.get("/health", { config: { rateLimit: false } }, [], () => "up"),
      ]),
      route.get("/outside", [], () => "free"),
      route.get("/r1", { layers: [perRoute] }, [], () => "r1"),
      route.get("/r2", { layers: [perRoute] }, [], () => "r2"),
    );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  const get = (path: string, headers: Record<string, string> = {}) => send(server.url + path, { headers });

  it("spends tokens with RateLimit-* headers, then answers 429 in the uniform body, then refills", async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await get("/basic");
      assert.equal(r.status, 200);
      assert.equal(r.headers["ratelimit-limit"], "3");
      assert.equal(r.headers["ratelimit-policy"], "3;w=3");
      remaining.push(String(r.headers["ratelimit-remaining"]));
    }
    assert.deepEqual(remaining, ["2", "1", "0"]);
    const refused = await get("/basic");
    assert.equal(refused.status, 429);
    assert.equal(refused.headers["retry-after"], "1");
    assert.equal(refused.headers["ratelimit-remaining"], "0");
    assert.equal(refused.headers["ratelimit-reset"], "3");
    const body = JSON.parse(refused.body);
    assert.equal(body.error.type, "rate_limit_exceeded");
    assert.match(body.error.message, /try again in 1 second/);
    assert.match(body.error_id, ERROR_ID);
    assert.equal(limitedCalls, 3, "the handler did not run for the refused request");

    c.advance(1000);
    const again = await get("/basic");
    assert.equal(again.status, 200);
    assert.equal(again.headers["ratelimit-remaining"], "0");
    c.advance(2500);
    const partly = await get("/basic");
    assert.equal(partly.headers["ratelimit-remaining"], "1", "2.5 tokens refilled, one spent");
    assert.equal(partly.headers["ratelimit-reset"], "2");
  });

  it("does not let a client escape the limit by sending X-Forwarded-For without a trust setting", async () => {
    assert.equal((await get("/untrusted", { "x-forwarded-for": "1.1.1.1" })).status, 200);
    assert.equal((await get("/untrusted", { "x-forwarded-for": "2.2.2.2" })).status, 429);
  });

  it("keys on the trusted X-Forwarded-For hop when configured, IPv6 by /64", async () => {
    assert.equal((await get("/trusted", { "x-forwarded-for": "9.9.9.9, 1.1.1.1" })).status, 200);
    assert.equal((await get("/trusted", { "x-forwarded-for": "8.8.8.8, 1.1.1.1" })).status, 429, "spoofed left entry ignored");
    assert.equal((await get("/trusted", { "x-forwarded-for": "2.2.2.2" })).status, 200);
    assert.equal((await get("/trusted", { "x-forwarded-for": "2001:db8:1:2::1" })).status, 200);
    assert.equal((await get("/trusted", { "x-forwarded-for": "2001:db8:1:2::ffff" })).status, 429, "same /64");
    assert.equal((await get("/trusted", { "x-forwarded-for": "2001:db8:1:3::1" })).status, 200);
  });

  it("keys on the authenticated user, and anonymous requests on the address", async () => {
    assert.equal((await get("/user", { "x-user": "alice" })).status, 200);
    assert.equal((await get("/user", { "x-user": "alice" })).status, 429);
    assert.equal((await get("/user", { "x-user": "bob" })).status, 200);
    assert.equal((await get("/user")).status, 200);
    assert.equal((await get("/user")).status, 429);
  });

  it("keys on a function's value", async () => {
    assert.equal((await get("/tenant", { "x-tenant": "t1" })).status, 200);
    assert.equal((await get("/tenant", { "x-tenant": "t2" })).status, 200);
    assert.equal((await get("/tenant", { "x-tenant": "t1" })).status, 429);
  });

  it("shares one bucket across a group, leaves other routes alone, honours the opt-out", async () => {
    assert.equal((await get("/api/v1/a")).status, 200);
    assert.equal((await get("/api/v1/b")).status, 200);
    const third = await get("/api/v1/a");
    assert.equal(third.status, 429);
    assert.equal((await get("/api/v1/health")).status, 200);
    assert.equal((await get("/api/v1/health")).headers["ratelimit-limit"], undefined);
    const outside = await get("/outside");
    assert.equal(outside.status, 200);
    assert.equal(outside.headers["ratelimit-limit"], undefined);
  });

  it("keeps a bucket per route with perRoute", async () => {
    assert.equal((await get("/r1")).status, 200);
    assert.equal((await get("/r2")).status, 200);
    assert.equal((await get("/r1")).status, 429);
  });
});

describe("rateLimit memory bounds", () => {
  it("keeps at most maxKeys buckets under many keys, evicting idle ones", async () => {
    const store = new MemoryStore<TokenBucketState>({ maxEntries: 50 });
    const app = new App({ logger: silentLogger }).routes(
      route.get("/x", { layers: [rateLimit({ capacity: 1, refillPerSecond: 1, store, key: (ctx) => ctx.header("x-k") })] }, [], () => "ok"),
    );
    for (let i = 0; i < 2000; i++) {
      const r = await app.inject({ url: "/x", headers: { "x-k": "key" + i } });
      assert.equal(r.status, 200);
    }
    assert.equal(store.size, 50);
    assert.equal(store.evictions, 1950);
  });

  it("validates its settings at startup", () => {
    assert.throws(() => rateLimit({ capacity: 0, refillPerSecond: 1 }), /capacity/);
    assert.throws(() => rateLimit({ capacity: 1, refillPerSecond: 0 }), /refillPerSecond/);
    assert.throws(() => rateLimit({ capacity: 1, refillPerSecond: 1, ipv6PrefixBits: 8 }), /ipv6PrefixBits/);
  });
});
