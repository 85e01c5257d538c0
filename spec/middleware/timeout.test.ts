// timeout(): 503 (or 504) `timeout` in the uniform body, the handler's AbortSignal fired with a
// TimeoutError, late results discarded (streams destroyed, late errors swallowed), per-route
// durations, fast handlers untouched.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Readable } from "node:stream";
import { App, context, route, silentLogger, stream, type ListeningServer } from "../../lib/index.js";
import { timeout } from "../../lib/middleware/index.js";
import { ERROR_ID, send } from "../support/http.js";

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("timeout over a real socket", () => {
  let server: ListeningServer;
  const seen: { reason?: unknown; abortedAt?: number; lateStream?: Readable; lateDone?: boolean } = {};
  before(async () => {
    const app = new App({ logger: silentLogger })
      .layer(timeout(80))
      .routes(
        route.get("/fast", [], () => "quick"),
        route.get("/slow", [context()], async (ctx) => {
          const signal = ctx.signal;
          await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
          seen.reason = signal.reason;
          seen.abortedAt = Date.now();
          return "too late";
        }),
        route.get("/late-stream", [], async () => {
          await delay(150);
          const s = Readable.from(["never sent"]);
          seen.lateStream = s;
          return stream(s, "text/plain");
        }),
        route.get("/late-error", [], async () => {
          await delay(150);
          seen.lateDone = true;
          throw new Error("late failure");
        }),
        route.get("/patient", { config: { timeoutMs: 300 } }, [], async () => {
          await delay(150);
          return "made it";
        }),
        route.get("/gateway", { layers: [timeout({ ms: 20, status: 504 })] }, [], async () => {
          await delay(100);
          return "late";
        }),
      );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("answers 503 timeout in the uniform body and aborts the handler's signal", async () => {
    const start = Date.now();
    const r = await send(server.url + "/slow");
    const elapsed = Date.now() - start;
    assert.equal(r.status, 503);
    const body = JSON.parse(r.body);
    assert.equal(body.error.type, "timeout");
    assert.match(body.error.message, /longer than 80 ms/);
    assert.match(body.error_id, ERROR_ID);
    assert.ok(elapsed >= 75 && elapsed < 1000, `elapsed ${elapsed}`);
    await delay(10);
    assert.ok(seen.reason instanceof DOMException);
    assert.equal((seen.reason as DOMException).name, "TimeoutError");
  });

  it("discards a late streamed result and swallows a late error", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      assert.equal((await send(server.url + "/late-stream")).status, 503);
      assert.equal((await send(server.url + "/late-error")).status, 503);
      await delay(200);
      assert.ok(seen.lateStream?.destroyed, "the late stream was destroyed");
      assert.equal(seen.lateDone, true);
      assert.deepEqual(unhandled, []);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("leaves fast handlers alone and honours a per-route duration", async () => {
    const fast = await send(server.url + "/fast");
    assert.equal(fast.status, 200);
    assert.equal(fast.body, '"quick"');
    const patient = await send(server.url + "/patient");
    assert.equal(patient.status, 200);
    assert.equal(patient.body, '"made it"');
  });

  it("answers 504 when configured", async () => {
    const r = await send(server.url + "/gateway");
    assert.equal(r.status, 504);
    assert.equal(JSON.parse(r.body).error.type, "timeout");
  });

  it("validates its settings", () => {
    assert.throws(() => timeout(0), /positive/);
    assert.throws(() => timeout({ ms: 10, status: 500 as 503 }), /503 or 504/);
  });
});
