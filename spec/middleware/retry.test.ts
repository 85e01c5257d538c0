// retry(): re-runs only idempotent requests (or routes marked idempotent) on configured
// failures, with full-jitter exponential backoff, max attempts and a total budget; never re-runs
// streamed answers or answers carrying Retry-After. Sleep, clock and randomness are injected.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Readable } from "node:stream";
import { ApiError, App, reply, route, silentLogger, stream, text, type ListeningServer } from "../../lib/index.js";
import { backoffDelay, retry } from "../../lib/middleware/index.js";
import { jobBackoffDelay } from "../../lib/jobs/index.js";
import { send } from "../support/http.js";

describe("retry over a real socket", () => {
  let server: ListeningServer;
  const calls: Record<string, number> = Object.create(null);
  const bump = (k: string) => (calls[k] = (calls[k] ?? 0) + 1);
  const delays: number[] = [];
  let clock = 0;
  before(async () => {
    const layer = retry({
      maxAttempts: 4,
      baseDelayMs: 100,
      maxDelayMs: 300,
      budgetMs: 10_000,
      random: () => 0.5,
      now: () => clock,
      sleep: async (ms) => {
        delays.push(ms);
        clock += ms;
      },
    });
    const tight = retry({ maxAttempts: 10, baseDelayMs: 1000, maxDelayMs: 1000, budgetMs: 1500, random: () => 0.9, now: () => clock, sleep: async (ms) => void (clock += ms) });
    const on500 = retry({ retryOn: (r) => r.status === 500, sleep: async () => {} });
    const failTwice = (k: string) => () => {
      if (bump(k) <= 2) throw ApiError.serviceUnavailable("flaky");
      return { ok: k };
    };
    const app = new App({ logger: silentLogger }).routes(
      route.get("/flaky", { layers: [layer] }, [], failTwice("flaky")),
      route.post("/create", { layers: [layer] }, [], failTwice("create")),
      route.post("/marked", { layers: [layer], config: { idempotent: true } }, [], failTwice("marked")),
      route.put("/body", { layers: [layer] }, [text()], (body) => {
        if (bump("body") === 1) throw ApiError.serviceUnavailable("flaky");
        return { echoed: body };
      }),
      route.get("/down", { layers: [layer] }, [], () => {
        bump("down");
        throw new ApiError(502, "bad_gateway", "upstream down");
      }),
      route.get("/bug", { layers: [layer] }, [], () => {
        bump("bug");
        throw new Error("a bug");
      }),
      route.get("/bug500", { layers: [on500] }, [], failTwiceWith500()),
      route.get("/streamed", { layers: [layer] }, [], () => {
        bump("streamed");
        return stream(Readable.from(["x"]), "text/plain", 503);
      }),
      route.get("/after", { layers: [layer] }, [], () => {
        bump("after");
        return reply(503, { busy: true }, { "retry-after": "30" });
      }),
      route.get("/budget", { layers: [tight] }, [], () => {
        bump("budget");
        throw ApiError.serviceUnavailable("still down");
      }),
    );
    function failTwiceWith500() {
      return () => {
        if (bump("bug500") <= 2) throw new Error("transient");
        return "fine";
      };
    }
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("re-runs a GET on 503 with full-jitter exponential delays until it succeeds", async () => {
    delays.length = 0;
    const r = await send(server.url + "/flaky");
    assert.equal(r.status, 200);
    assert.equal(calls["flaky"], 3);
    assert.deepEqual(delays, [50, 100], "random 0.5 times caps 100 and 200");
  });

  it("never re-runs a POST unless the route is marked idempotent", async () => {
    assert.equal((await send(server.url + "/create", { method: "POST" })).status, 503);
    assert.equal(calls["create"], 1);
    assert.equal((await send(server.url + "/marked", { method: "POST" })).status, 200);
    assert.equal(calls["marked"], 3);
  });

  it("reads the request body again on a retry", async () => {
    const r = await send(server.url + "/body", { method: "PUT", headers: { "content-type": "text/plain" }, body: "payload" });
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { echoed: "payload" });
    assert.equal(calls["body"], 2);
  });

  it("stops at maxAttempts and returns the last answer", async () => {
    delays.length = 0;
    const r = await send(server.url + "/down");
    assert.equal(r.status, 502);
    assert.equal(calls["down"], 4);
    assert.deepEqual(delays, [50, 100, 150], "the cap is maxDelayMs (300)");
  });

  it("retries only the configured failures", async () => {
    assert.equal((await send(server.url + "/bug")).status, 500);
    assert.equal(calls["bug"], 1, "500 is not retried by default");
    assert.equal((await send(server.url + "/bug500")).status, 200);
    assert.equal(calls["bug500"], 3);
  });

  it("never re-runs a streamed answer or one carrying Retry-After", async () => {
    assert.equal((await send(server.url + "/streamed")).status, 503);
    assert.equal(calls["streamed"], 1);
    const r = await send(server.url + "/after");
    assert.equal(r.status, 503);
    assert.equal(calls["after"], 1);
  });

  it("does not start a retry past the budget", async () => {
    const r = await send(server.url + "/budget");
    assert.equal(r.status, 503);
    // delays: 900 (clock 900), then 900 would reach 1800 > 1500: stop after 2 runs
    assert.equal(calls["budget"], 2);
  });
});

describe("backoffDelay", () => {
  it("is uniform in [0, min(max, base * 2^(n-1)))", () => {
    assert.equal(backoffDelay(1, 100, 1000, () => 0), 0);
    assert.equal(backoffDelay(1, 100, 1000, () => 0.999), 99);
    assert.equal(backoffDelay(3, 100, 1000, () => 0.999), 399);
    assert.equal(backoffDelay(10, 100, 1000, () => 0.999), 999);
  });

  it("keeps within range when the random source misbehaves", () => {
    assert.equal(backoffDelay(2, 100, 1000, () => 1), 0);
    assert.equal(backoffDelay(2, 100, 1000, () => -0.5), 0);
    assert.equal(backoffDelay(2, 100, 1000, () => Number.NaN), 0);
  });

  it("is the job queue's full-jitter backoff with factor 2 (one implementation)", () => {
    const policy = { baseMs: 100, factor: 2, maxMs: 1000 };
    for (const attempt of [1, 2, 3, 4, 5, 8]) {
      for (const r of [0, 0.25, 0.5, 0.999]) {
        assert.equal(backoffDelay(attempt, 100, 1000, () => r), jobBackoffDelay(attempt, policy, () => r), `attempt ${attempt}, r ${r}`);
      }
    }
  });

  it("validates its settings", () => {
    assert.throws(() => retry({ maxAttempts: 0 }), /maxAttempts/);
  });
});
