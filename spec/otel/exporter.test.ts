// otlpExporter(): what goes on the wire (OTLP/HTTP JSON checked field by field, from a real app
// through production()), batching by size and by time, the bounded queue, retries (retryable
// statuses, Retry-After, network errors, timeouts) and no retry otherwise, flush and shutdown.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { ApiError, App, context, path, route, silentLogger, t, type ListeningServer } from "../../lib/index.js";
import { production, span, type SpanRecord } from "../../lib/service/index.js";
import { otlpExporter, type OtlpExporter, type OtlpExporterOptions } from "../../lib/otel/index.js";
import { attrsOf, checkOtlpTraces, rawAttr, startReceiver, type Receiver } from "./otlp-receiver.js";

let seq = 0;
/** A finished, sampled internal span with fresh ids. */
function record(overrides: Partial<SpanRecord> = {}): SpanRecord {
  seq++;
  return {
    name: `op ${seq}`,
    kind: "internal",
    traceId: seq.toString(16).padStart(32, "a"),
    spanId: seq.toString(16).padStart(16, "b"),
    parentSpanId: "",
    traceFlags: "01",
    startTime: Date.now(),
    durationMs: 1.5,
    status: "ok",
    requestId: "",
    attributes: {},
    ...overrides,
  };
}

function spanCounts(r: Receiver): number[] {
  return r.received.map((req) => checkOtlpTraces(req.body).spans.length);
}

describe("otlpExporter(): the OTLP JSON payload of a real request", () => {
  let receiver: Receiver;
  let exporter: OtlpExporter;
  let server: ListeningServer;
  before(async () => {
    receiver = await startReceiver();
    exporter = otlpExporter({
      url: receiver.url + "/v1/traces",
      headers: { "x-api-key": "secret-1" },
      serviceName: "billing",
      resource: { "service.version": "2.0.1", "deployment.environment.name": "test" },
      scheduleDelayMs: 60_000,
    });
    const prod = production({ service: "billing", logger: silentLogger, probes: false, spans: { onSpan: exporter, responseTraceparent: true } });
    const app = new App({ logger: silentLogger });
    prod.register(app);
    app.routes(
      route.get("/users/{id}", [path("id", t.u64()), context()], async (id, ctx) => {
        return span(ctx, "load user", (s) => {
          s.set("user.id", id).set("cache.hit", false).set("score", 0.5);
          return { id };
        });
      }),
      route.get("/crash", [], () => {
        throw new RangeError("index out of range");
      }),
      route.get("/unavailable", [], () => {
        throw new ApiError(503, "service_unavailable", "down for maintenance");
      }),
      route.get("/child-fails", [context()], (ctx) => {
        try {
          span(ctx, "parse", () => {
            throw new SyntaxError("bad input");
          });
        } catch {
          // handled: the request still succeeds
        }
        return "ok";
      }),
    );
    server = await app.listen({ port: 0 });
  });
  after(async () => {
    await server.close();
    await exporter.shutdown();
    await receiver.close();
  });

  it("posts to /v1/traces as application/json with the configured headers; resource and scope are right", async () => {
    const r = await fetch(server.url + "/users/7", { headers: { "user-agent": "probe/1.0" } });
    assert.equal(r.status, 200);
    await exporter.flush();
    assert.equal(receiver.received.length, 1);
    const req = receiver.received[0]!;
    assert.equal(req.method, "POST");
    assert.equal(req.path, "/v1/traces");
    assert.equal(req.headers["content-type"], "application/json");
    assert.equal(req.headers["x-api-key"], "secret-1");
    const body = checkOtlpTraces(req.body);
    assert.deepEqual(body.scope, { name: "keel", version: body.scope.version });
    assert.match(body.scope.version, /^\d+\.\d+\.\d+/);
    assert.equal(body.resource["service.name"], "billing");
    assert.equal(body.resource["service.version"], "2.0.1");
    assert.equal(body.resource["deployment.environment.name"], "test");
    assert.equal(body.resource["telemetry.sdk.name"], "keel");
    assert.equal(body.resource["telemetry.sdk.language"], "nodejs");

    assert.equal(body.spans.length, 2);
    const serverSpan = body.spans.find((s) => s.kind === 2)!;
    const child = body.spans.find((s) => s.kind === 1)!;
    assert.equal(serverSpan.name, "GET /users/{id}");
    assert.equal(serverSpan.parentSpanId, undefined, "a root span has no parentSpanId");
    assert.deepEqual(serverSpan.status, { code: 1 });
    assert.equal(serverSpan.traceId, String(r.headers.get("traceparent")).split("-")[1]);
    assert.equal(serverSpan.spanId, String(r.headers.get("traceparent")).split("-")[2]);
    assert.equal(serverSpan.flags, 1);

    const port = Number(new URL(server.url).port);
    const attrs = attrsOf(serverSpan);
    assert.equal(attrs["http.request.method"], "GET");
    assert.equal(attrs["http.route"], "/users/{id}", "the pattern, never the raw path");
    assert.equal(attrs["http.response.status_code"], 200);
    assert.equal(attrs["url.path"], "/users/7");
    assert.equal(attrs["url.scheme"], "http");
    assert.equal(attrs["server.address"], "127.0.0.1");
    assert.equal(attrs["server.port"], port);
    assert.equal(attrs["user_agent.original"], "probe/1.0");
    assert.equal(attrs["client.address"], "127.0.0.1");
    assert.equal(attrs["error.type"], undefined);
    assert.deepEqual(rawAttr(serverSpan, "http.response.status_code"), { intValue: "200" });
    assert.deepEqual(rawAttr(serverSpan, "http.request.method"), { stringValue: "GET" });

    assert.equal(child.name, "load user");
    assert.equal(child.traceId, serverSpan.traceId);
    assert.equal(child.parentSpanId, serverSpan.spanId);
    assert.deepEqual(rawAttr(child, "user.id"), { intValue: "7" });
    assert.deepEqual(rawAttr(child, "cache.hit"), { boolValue: false });
    assert.deepEqual(rawAttr(child, "score"), { doubleValue: 0.5 });
    assert.ok(BigInt(child.startTimeUnixNano) >= BigInt(serverSpan.startTimeUnixNano));
    assert.ok(BigInt(child.endTimeUnixNano) <= BigInt(serverSpan.endTimeUnixNano));
    // Times are epoch nanoseconds: within a minute of now.
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    assert.ok(nowNs - BigInt(serverSpan.startTimeUnixNano) < 60_000_000_000n);
  });

  it("marks a 5xx from an exception ERROR with the exception's class as error.type", async () => {
    const before_ = receiver.received.length;
    assert.equal((await fetch(server.url + "/crash")).status, 500);
    await exporter.flush();
    const [s] = checkOtlpTraces(receiver.received[before_]!.body).spans;
    assert.deepEqual(s!.status, { code: 2 });
    assert.equal(attrsOf(s!)["error.type"], "RangeError");
    assert.equal(attrsOf(s!)["http.response.status_code"], 500);
  });

  it("marks a 5xx ApiError ERROR with its type; a 404 stays OK without error.type", async () => {
    const before_ = receiver.received.length;
    assert.equal((await fetch(server.url + "/unavailable")).status, 503);
    assert.equal((await fetch(server.url + "/nowhere")).status, 404);
    await exporter.flush();
    const spans = receiver.received.slice(before_).flatMap((q) => checkOtlpTraces(q.body).spans);
    const down = spans.find((s) => attrsOf(s)["http.response.status_code"] === 503)!;
    const missing = spans.find((s) => attrsOf(s)["http.response.status_code"] === 404)!;
    assert.deepEqual(down.status, { code: 2 });
    assert.equal(attrsOf(down)["error.type"], "service_unavailable");
    assert.deepEqual(missing.status, { code: 1 });
    assert.equal(attrsOf(missing)["error.type"], undefined);
    assert.equal(attrsOf(missing)["http.route"], undefined, "no route matched: no http.route");
    assert.equal(missing.name, "GET");
  });

  it("a failed child span is ERROR with the thrown class as error.type", async () => {
    const before_ = receiver.received.length;
    assert.equal((await fetch(server.url + "/child-fails")).status, 200);
    await exporter.flush();
    const spans = receiver.received.slice(before_).flatMap((q) => checkOtlpTraces(q.body).spans);
    const parse = spans.find((s) => s.name === "parse")!;
    assert.deepEqual(parse.status, { code: 2 });
    assert.equal(attrsOf(parse)["error.type"], "SyntaxError");
    assert.deepEqual(spans.find((s) => s.kind === 2)!.status, { code: 1 });
  });
});

describe("otlpExporter(): batching and the queue", () => {
  let receiver: Receiver;
  const exporters: OtlpExporter[] = [];
  const make = (options: OtlpExporterOptions): OtlpExporter => {
    const e = otlpExporter({ url: receiver.url + "/v1/traces", scheduleDelayMs: 60_000, ...options });
    exporters.push(e);
    return e;
  };
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    for (const e of exporters) await e.shutdown();
    await receiver.close();
  });

  for (const [n, batch, expected] of [
    [7, 3, [3, 3, 1]],
    [6, 3, [3, 3]],
    [1, 3, [1]],
    [512, 512, [512]],
    [513, 512, [512, 1]],
  ] as const) {
    it(`${n} spans with batches of ${batch} make ${expected.length} posts (${expected.join(", ")})`, async () => {
      receiver.received.length = 0;
      const e = make({ maxExportBatchSize: batch, maxQueueSize: 2048 });
      for (let i = 0; i < n; i++) e(record());
      await e.flush();
      assert.deepEqual(spanCounts(receiver), [...expected]);
      assert.equal(e.stats().exported, n);
      assert.equal(e.stats().queued, 0);
    });
  }

  it("sends a full batch at once, without waiting for the schedule or a flush", async () => {
    receiver.received.length = 0;
    const e = make({ maxExportBatchSize: 2 });
    e(record());
    e(record());
    await receiver.waitFor(1);
    assert.deepEqual(spanCounts(receiver), [2]);
  });

  it("spans are written into batches in runs of 32: a batch larger than that still goes out when full, a run cut short waits for the schedule", async () => {
    receiver.received.length = 0;
    const e = make({ maxExportBatchSize: 64, scheduleDelayMs: 60_000 });
    for (let i = 0; i < 64; i++) e(record());
    await receiver.waitFor(1);
    assert.deepEqual(spanCounts(receiver), [64]);
    // 40 more: one run of 32 is in the batch being filled, 8 wait to be written; neither goes
    // out before the schedule or a flush, and the flush sends all 40.
    for (let i = 0; i < 40; i++) e(record());
    assert.equal(e.stats().queued, 40);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(spanCounts(receiver), [64]);
    await e.flush();
    assert.deepEqual(spanCounts(receiver), [64, 40]);
    assert.equal(e.stats().exported, 104);
  });

  it("sends a partial batch when the schedule delay passes", async () => {
    receiver.received.length = 0;
    const e = make({ maxExportBatchSize: 100, scheduleDelayMs: 20 });
    e(record());
    await receiver.waitFor(1);
    assert.deepEqual(spanCounts(receiver), [1]);
  });

  it("drops and counts what does not fit in the queue: maxQueueSize waiting spans fit, one more does not", async () => {
    receiver.received.length = 0;
    receiver.script({ status: 200 }); // the first batch goes out while the rest queue up
    const e = make({ maxExportBatchSize: 2, maxQueueSize: 3 });
    e(record());
    e(record()); // a full batch: taken from the queue and in flight
    e(record());
    e(record());
    e(record()); // 3 waiting: the queue is full
    assert.equal(e.stats().dropped, 0);
    assert.equal(e.stats().queued, 3);
    e(record()); // one more: dropped
    assert.equal(e.stats().dropped, 1);
    await e.flush();
    assert.equal(e.stats().exported, 5);
    assert.equal(spanCounts(receiver).reduce((a, b) => a + b, 0), 5);
  });

  it("does not export unsampled spans (trace flags 00), and does not count them as dropped", async () => {
    receiver.received.length = 0;
    const e = make({});
    e(record({ traceFlags: "00" }));
    e(record({ traceFlags: "01" }));
    await e.flush();
    assert.deepEqual(spanCounts(receiver), [1]);
    assert.deepEqual({ exported: e.stats().exported, dropped: e.stats().dropped }, { exported: 1, dropped: 0 });
  });

  it("shutdown() sends what is queued, then refuses (and counts) later spans", async () => {
    receiver.received.length = 0;
    const e = make({});
    e(record());
    e(record());
    assert.equal(receiver.received.length, 0);
    await e.shutdown();
    assert.deepEqual(spanCounts(receiver), [2]);
    e(record());
    await e.flush();
    await e.shutdown(); // idempotent
    assert.equal(receiver.received.length, 1);
    assert.deepEqual({ exported: e.stats().exported, dropped: e.stats().dropped }, { exported: 2, dropped: 1 });
  });

  it("a flush with nothing queued sends nothing", async () => {
    receiver.received.length = 0;
    const e = make({});
    await e.flush();
    assert.equal(receiver.received.length, 0);
  });
});

describe("otlpExporter(): retries", () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());
  const fast = { initialBackoffMs: 0, maxBackoffMs: 5000 };

  for (const status of [429, 502, 503, 504]) {
    it(`retries a ${status} and then exports`, async () => {
      receiver.received.length = 0;
      receiver.script({ status });
      const e = otlpExporter({ url: receiver.url + "/v1/traces", retry: fast });
      e(record());
      await e.flush();
      assert.equal(receiver.received.length, 2);
      assert.equal(receiver.received[0]!.body, receiver.received[1]!.body, "the same batch is sent again");
      assert.deepEqual({ exported: e.stats().exported, retries: e.stats().retries, failedBatches: e.stats().failedBatches }, { exported: 1, retries: 1, failedBatches: 0 });
      await e.shutdown();
    });
  }

  for (const status of [400, 401, 403, 404, 413, 500]) {
    it(`does not retry a ${status}: the batch fails at once`, async () => {
      receiver.received.length = 0;
      receiver.script({ status, body: '{"message":"no"}' });
      const e = otlpExporter({ url: receiver.url + "/v1/traces", retry: fast });
      e(record());
      e(record());
      await e.flush();
      assert.equal(receiver.received.length, 1);
      assert.deepEqual(
        { exported: e.stats().exported, retries: e.stats().retries, failedBatches: e.stats().failedBatches, failedSpans: e.stats().failedSpans },
        { exported: 0, retries: 0, failedBatches: 1, failedSpans: 2 },
      );
      await e.shutdown();
    });
  }

  it("waits as long as Retry-After says before trying again", async () => {
    receiver.received.length = 0;
    receiver.script({ status: 503, headers: { "retry-after": "1" } });
    // Backoff without Retry-After would be 0 ms here, so an early retry means Retry-After was ignored.
    const e = otlpExporter({ url: receiver.url + "/v1/traces", retry: fast });
    e(record());
    await e.flush();
    assert.equal(receiver.received.length, 2);
    assert.ok(receiver.received[1]!.at - receiver.received[0]!.at >= 990, "the retry came before Retry-After allowed");
    assert.equal(e.stats().exported, 1);
    await e.shutdown();
  });

  it("gives up after maxAttempts tries in all", async () => {
    receiver.received.length = 0;
    receiver.script({ status: 503 }, { status: 503 }, { status: 503 });
    const e = otlpExporter({ url: receiver.url + "/v1/traces", retry: { ...fast, maxAttempts: 3 } });
    e(record());
    await e.flush();
    assert.equal(receiver.received.length, 3);
    assert.deepEqual({ retries: e.stats().retries, failedBatches: e.stats().failedBatches, exported: e.stats().exported }, { retries: 2, failedBatches: 1, exported: 0 });
    await e.shutdown();
  });

  it("retries a request that times out", async () => {
    receiver.received.length = 0;
    receiver.script("hang");
    const e = otlpExporter({ url: receiver.url + "/v1/traces", timeoutMs: 50, retry: fast });
    e(record());
    await e.flush();
    assert.equal(receiver.received.length, 2);
    assert.deepEqual({ exported: e.stats().exported, retries: e.stats().retries }, { exported: 1, retries: 1 });
    await e.shutdown();
  });

  it("retries network errors, then counts the batch failed", async () => {
    const gone = await startReceiver();
    const url = gone.url + "/v1/traces";
    await gone.close(); // nothing listens there now
    const e = otlpExporter({ url, retry: { ...fast, maxAttempts: 2 } });
    e(record());
    await e.flush();
    assert.deepEqual({ retries: e.stats().retries, failedBatches: e.stats().failedBatches, failedSpans: e.stats().failedSpans }, { retries: 1, failedBatches: 1, failedSpans: 1 });
    await e.shutdown();
  });

  it("counts spans a partial success rejects", async () => {
    receiver.received.length = 0;
    receiver.script({ status: 200, body: '{"partialSuccess":{"rejectedSpans":"1","errorMessage":"too old"}}' });
    const e = otlpExporter({ url: receiver.url + "/v1/traces", retry: fast });
    e(record());
    e(record());
    await e.flush();
    assert.deepEqual({ exported: e.stats().exported, rejected: e.stats().rejected }, { exported: 1, rejected: 1 });
    await e.shutdown();
  });

  it("shutdown() returns by its deadline even when the collector never answers", async () => {
    const silent = await startReceiver();
    silent.script("hang", "hang");
    const e = otlpExporter({ url: silent.url + "/v1/traces", timeoutMs: 60_000, exportTimeoutMs: 100 });
    e(record());
    await e.shutdown();
    assert.equal(e.stats().exported, 0);
    await silent.close();
  });
});

describe("otlpExporter(): the process", () => {
  it("never keeps a process alive: the schedule and retry timers are unref'd", () => {
    // A span waits on a 60 s schedule and the collector is unreachable; the process must still
    // exit when its own work is done (a held timer would keep it for a minute: the kill below).
    const script = `
      import { otlpExporter } from ${JSON.stringify(new URL("../../lib/otel/index.ts", import.meta.url).href)};
      const e = otlpExporter({ url: "http://127.0.0.1:9/v1/traces", scheduleDelayMs: 60000, retry: { initialBackoffMs: 60000, maxBackoffMs: 60000 } });
      e({ name: "a", kind: "internal", traceId: "${"ab".repeat(16)}", spanId: "${"cd".repeat(8)}", parentSpanId: "", traceFlags: "01", startTime: Date.now(), durationMs: 1, status: "ok", requestId: "", attributes: {} });
      for (let i = 0; i < 512; i++) e({ name: "b", kind: "internal", traceId: "${"ab".repeat(16)}", spanId: "${"cd".repeat(8)}", parentSpanId: "", traceFlags: "01", startTime: Date.now(), durationMs: 1, status: "ok", requestId: "", attributes: {} });
    `;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { timeout: 30_000, encoding: "utf8" });
    assert.equal(run.signal, null, "the process had to be killed");
    assert.equal(run.status, 0, run.stderr);
  });
});

describe("otlpExporter(): options", () => {
  it("refuses options that cannot work, naming them", () => {
    assert.throws(() => otlpExporter({ url: "ftp://collector/v1/traces" }), /url must be http or https/);
    assert.throws(() => otlpExporter({ maxExportBatchSize: 513, maxQueueSize: 512 }), /maxExportBatchSize \(513\) must not exceed maxQueueSize \(512\)/);
    assert.throws(() => otlpExporter({ maxQueueSize: 0 }), /maxQueueSize must be an integer >= 1/);
    assert.throws(() => otlpExporter({ timeoutMs: 1.5 }), /timeoutMs must be an integer/);
    assert.throws(() => otlpExporter({ headers: { "bad header": "x" } }), /header "bad header" is not a valid HTTP header/);
    assert.throws(() => otlpExporter({ headers: { "x-key": "a\r\nb" } }), TypeError);
    assert.throws(() => otlpExporter({ retry: { maxAttempts: 0 } }), /maxAttempts must be an integer >= 1/);
    // The limit itself is fine.
    assert.doesNotThrow(() => otlpExporter({ maxExportBatchSize: 512, maxQueueSize: 512 }).shutdown());
  });
});
