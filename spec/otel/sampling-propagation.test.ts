// Sampling and propagation: production({ spans: { sampler } }) decides per trace (ratio by trace
// id, parent-based on the incoming traceparent's flag); the decision travels in the traceparent
// sent back and out through tracedFetch(), and unsampled spans are not exported. tracedFetch()
// opens a CLIENT span and carries traceparent/tracestate to the callee.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, context, route, silentLogger, type ListeningServer } from "../../lib/index.js";
import { production, span, type SpanRecord } from "../../lib/service/index.js";
import {
  alwaysOffSampler,
  alwaysOnSampler,
  otlpExporter,
  otlpExporterFromEnv,
  parentBasedSampler,
  traceIdRatioSampler,
  tracedFetch,
  type OtlpExporter,
  type Sampler,
} from "../../lib/otel/index.js";
import { attrsOf, checkOtlpTraces, startReceiver, type CheckedSpan, type Receiver } from "./otlp-receiver.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";
const SAMPLED_PARENT = `00-${TRACE}-${PARENT}-01`;
const UNSAMPLED_PARENT = `00-${TRACE}-${PARENT}-00`;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

let receiver: Receiver;
before(async () => {
  receiver = await startReceiver();
});
after(() => receiver.close());

interface Traced {
  server: ListeningServer;
  exporter: OtlpExporter;
  delivered: SpanRecord[];
  /** Everything exported so far (flushes first). */
  exported(): Promise<CheckedSpan[]>;
  /** Requests that reached the receiver's /downstream. */
  downstream(): typeof receiver.received;
  close(): Promise<void>;
}

async function traced(sampler: Sampler | undefined): Promise<Traced> {
  receiver.received.length = 0;
  const exporter = otlpExporter({ url: receiver.url + "/v1/traces", scheduleDelayMs: 60_000 });
  const delivered: SpanRecord[] = [];
  const prod = production({ service: "edge", logger: silentLogger, probes: false, spans: { onSpan: [exporter, (s) => delivered.push(s)], sampler, responseTraceparent: true } });
  const app = new App({ logger: silentLogger });
  prod.register(app);
  app.routes(
    route.get("/work", [context()], (ctx) => span(ctx, "step", () => "done")),
    route.get("/call", [context()], async (ctx) => {
      const r = await tracedFetch(ctx, receiver.url + "/downstream?q=1");
      return { status: r.status };
    }),
    route.post("/call-request", [context()], async (ctx) => {
      const r = await tracedFetch(ctx, new Request(receiver.url + "/downstream", { method: "PUT", headers: { "x-kept": "yes" }, body: "payload" }));
      return { status: r.status };
    }),
  );
  const server = await app.listen({ port: 0 });
  return {
    server,
    exporter,
    delivered,
    async exported() {
      await exporter.flush();
      return receiver.received.filter((r) => r.path === "/v1/traces").flatMap((r) => checkOtlpTraces(r.body).spans);
    },
    downstream: () => receiver.received.filter((r) => r.path.startsWith("/downstream")),
    async close() {
      await server.close();
      await exporter.shutdown();
    },
  };
}

async function get(url: string, traceparent?: string, extra: Record<string, string> = {}): Promise<{ status: number; traceparent: RegExpMatchArray }> {
  const r = await fetch(url, { headers: traceparent === undefined ? extra : { traceparent, ...extra } });
  await r.arrayBuffer();
  const m = TRACEPARENT.exec(r.headers.get("traceparent") ?? "");
  assert.ok(m, "the response carries a traceparent");
  return { status: r.status, traceparent: m };
}

describe("samplers", () => {
  const id = (low13: string) => "0123456789abcdef012" + low13;
  it("traceIdRatio: 0 samples nothing, 1 everything", () => {
    for (const t of [id("0000000000000"), id("fffffffffffff"), TRACE]) {
      assert.equal(traceIdRatioSampler(0).shouldSample(t, null), false);
      assert.equal(traceIdRatioSampler(1).shouldSample(t, null), true);
    }
  });

  it("traceIdRatio decides by the trace id's low 52 bits, exactly at the boundary", () => {
    const half = traceIdRatioSampler(0.5);
    assert.equal(half.shouldSample(id("7ffffffffffff"), null), true, "just under ratio * 2^52");
    assert.equal(half.shouldSample(id("8000000000000"), null), false, "exactly ratio * 2^52");
    assert.equal(half.shouldSample(id("0000000000000"), null), true);
    // The same trace id gets the same answer every time.
    assert.equal(half.shouldSample(TRACE, null), half.shouldSample(TRACE, null));
  });

  it("traceIdRatio reads the low 52 bits as the hex number they spell, for any digits; a malformed id is not sampled", () => {
    const digits = "0123456789abcdef";
    for (let k = 0; k < 500; k++) {
      let low = "";
      for (let i = 0; i < 13; i++) low += digits[Math.floor(Math.random() * 16)];
      const value = Number.parseInt(low, 16);
      for (const ratio of [0.001, 0.1, 0.37, 0.5, 0.999]) {
        assert.equal(traceIdRatioSampler(ratio).shouldSample(id(low), null), value < ratio * 2 ** 52, `${low} at ${ratio}`);
      }
    }
    const half = traceIdRatioSampler(0.5);
    assert.equal(half.shouldSample(id("000000000000g"), null), false);
    assert.equal(half.shouldSample("0000", null), false);
  });

  it("traceIdRatio refuses ratios outside [0, 1]", () => {
    for (const bad of [-0.01, 1.01, Number.NaN]) assert.throws(() => traceIdRatioSampler(bad), TypeError);
  });

  it("parentBased follows the parent and asks the root sampler only for new traces", () => {
    const s = parentBasedSampler({ root: alwaysOffSampler });
    assert.equal(s.shouldSample(TRACE, { sampled: true }), true);
    assert.equal(s.shouldSample(TRACE, { sampled: false }), false);
    assert.equal(s.shouldSample(TRACE, null), false);
    const custom = parentBasedSampler({ root: alwaysOnSampler, sampledParent: alwaysOffSampler, unsampledParent: alwaysOnSampler });
    assert.equal(custom.shouldSample(TRACE, { sampled: true }), false);
    assert.equal(custom.shouldSample(TRACE, { sampled: false }), true);
  });
});

describe("Sampler.readsTraceId", () => {
  it("is false exactly when a new trace's decision cannot depend on its id", () => {
    assert.equal(alwaysOnSampler.readsTraceId, false);
    assert.equal(alwaysOffSampler.readsTraceId, false);
    assert.equal(traceIdRatioSampler(0).readsTraceId, false);
    assert.equal(traceIdRatioSampler(1).readsTraceId, false);
    assert.equal(traceIdRatioSampler(0.25).readsTraceId, true);
    assert.equal(parentBasedSampler({ root: alwaysOffSampler }).readsTraceId, false);
    assert.equal(parentBasedSampler({ root: traceIdRatioSampler(0.01) }).readsTraceId, true);
    assert.equal(parentBasedSampler({ root: { shouldSample: () => true, description: "custom" } }).readsTraceId, true, "absent counts as reading it");
  });
});

describe("production({ spans: { sampler } })", () => {
  it("ratio 0: the traceparent sent back says 00 and nothing is exported or delivered", async () => {
    const t = await traced(traceIdRatioSampler(0));
    const r = await get(t.server.url + "/work");
    assert.equal(r.status, 200);
    assert.equal(r.traceparent[3], "00");
    assert.deepEqual(await t.exported(), []);
    assert.deepEqual(t.delivered, []);
    await t.close();
  });

  it("ratio 1: flags 01, the server and child spans are exported", async () => {
    const t = await traced(traceIdRatioSampler(1));
    const r = await get(t.server.url + "/work");
    assert.equal(r.traceparent[3], "01");
    const spans = await t.exported();
    assert.deepEqual(spans.map((s) => s.kind).sort(), [1, 2]);
    assert.ok(spans.every((s) => s.traceId === r.traceparent[1]));
    await t.close();
  });

  it("parent-based: a sampled parent is followed even when new traces are not sampled", async () => {
    const t = await traced(parentBasedSampler({ root: alwaysOffSampler }));
    const r = await get(t.server.url + "/work", SAMPLED_PARENT);
    assert.equal(r.traceparent[1], TRACE);
    assert.notEqual(r.traceparent[2], PARENT);
    assert.equal(r.traceparent[3], "01");
    const fresh = await get(t.server.url + "/work");
    assert.equal(fresh.traceparent[3], "00");
    const spans = await t.exported();
    assert.equal(spans.length, 2, "only the sampled request's spans");
    const serverSpan = spans.find((s) => s.kind === 2)!;
    assert.equal(serverSpan.traceId, TRACE);
    assert.equal(serverSpan.parentSpanId, PARENT);
    assert.equal(serverSpan.spanId, r.traceparent[2]);
    await t.close();
  });

  it("parent-based: an unsampled parent is followed even when new traces are sampled", async () => {
    const t = await traced(parentBasedSampler({ root: alwaysOnSampler }));
    const r = await get(t.server.url + "/work", UNSAMPLED_PARENT);
    assert.equal(r.traceparent[1], TRACE);
    assert.equal(r.traceparent[3], "00");
    assert.deepEqual(await t.exported(), []);
    assert.deepEqual(t.delivered, []);
    await t.close();
  });

  it("keeps other trace-flag bits when clearing or setting the sampled bit", async () => {
    const t = await traced(alwaysOffSampler);
    const r = await get(t.server.url + "/work", `00-${TRACE}-${PARENT}-03`);
    assert.equal(r.traceparent[3], "02");
    await t.close();
  });

  it("without a sampler nothing changes: incoming flags kept, every span delivered to onSpan", async () => {
    const t = await traced(undefined);
    const unsampled = await get(t.server.url + "/work", UNSAMPLED_PARENT);
    assert.equal(unsampled.traceparent[3], "00");
    const fresh = await get(t.server.url + "/work");
    assert.equal(fresh.traceparent[3], "01");
    assert.equal(t.delivered.length, 4, "two requests, a server and a child span each");
    // The exporter itself still exports sampled traces only (the SDK's default, parentbased_always_on).
    const spans = await t.exported();
    assert.deepEqual([...new Set(spans.map((s) => s.traceId))], [fresh.traceparent[1]]);
    await t.close();
  });

  it("the environment's sampler plugs in the same way (OTEL_TRACES_SAMPLER=always_off)", async () => {
    const e = otlpExporterFromEnv({ OTEL_TRACES_SAMPLER: "always_off", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const t = await traced(e.sampler);
    const r = await get(t.server.url + "/work", SAMPLED_PARENT);
    assert.equal(r.traceparent[3], "00");
    await t.close();
    await e.shutdown();
  });

  it("needs the request span on the context", () => {
    assert.throws(() => production({ service: "x", logger: silentLogger, spans: { childSpans: false, sampler: alwaysOnSampler } }), /childSpans must not be false/);
  });
});

describe("tracedFetch()", () => {
  it("sends traceparent naming its CLIENT span, which is a child of the server span", async () => {
    const t = await traced(undefined);
    const r = await get(t.server.url + "/call", SAMPLED_PARENT);
    assert.equal(r.status, 200);
    const [down] = t.downstream();
    assert.ok(down, "the downstream call arrived");
    const out = TRACEPARENT.exec(String(down.headers["traceparent"]));
    assert.ok(out, "the downstream request carries a traceparent");
    assert.equal(out[1], TRACE);
    assert.equal(out[3], "01");
    const spans = await t.exported();
    const serverSpan = spans.find((s) => s.kind === 2)!;
    const client = spans.find((s) => s.kind === 3)!;
    assert.equal(client.spanId, out[2], "the callee's parent is the client span");
    assert.equal(client.parentSpanId, serverSpan.spanId);
    assert.equal(serverSpan.parentSpanId, PARENT);
    assert.equal(client.name, "GET");
    const port = Number(new URL(receiver.url).port);
    const attrs = attrsOf(client);
    assert.equal(attrs["http.request.method"], "GET");
    assert.equal(attrs["url.full"], receiver.url + "/downstream?q=1");
    assert.equal(attrs["server.address"], "127.0.0.1");
    assert.equal(attrs["server.port"], port);
    assert.equal(attrs["http.response.status_code"], 200);
    assert.deepEqual(client.status, { code: 1 });
    await t.close();
  });

  it("passes a well-formed tracestate on; drops a malformed one", async () => {
    const t = await traced(undefined);
    await get(t.server.url + "/call", SAMPLED_PARENT, { tracestate: "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7" });
    await get(t.server.url + "/call", SAMPLED_PARENT, { tracestate: "Bad Key=1" });
    await get(t.server.url + "/call", undefined, { tracestate: "congo=t61rcWkgMzE" });
    const [good, bad, noParent] = t.downstream();
    assert.equal(good!.headers["tracestate"], "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
    assert.equal(bad!.headers["tracestate"], undefined);
    assert.equal(noParent!.headers["tracestate"], undefined, "tracestate without a valid traceparent is ignored");
    await t.close();
  });

  it("carries an unsampled decision: flags 00 downstream, no spans exported", async () => {
    const t = await traced(parentBasedSampler({ root: alwaysOnSampler }));
    await get(t.server.url + "/call", UNSAMPLED_PARENT);
    const [down] = t.downstream();
    const out = TRACEPARENT.exec(String(down!.headers["traceparent"]))!;
    assert.equal(out[1], TRACE);
    assert.equal(out[3], "00");
    assert.deepEqual(await t.exported(), []);
    await t.close();
  });

  it("keeps a Request's method, headers and body; a 5xx answer marks the client span ERROR", async () => {
    const t = await traced(undefined);
    receiver.script({ status: 503 });
    const r = await fetch(t.server.url + "/call-request", { method: "POST" });
    assert.deepEqual(await r.json(), { status: 503 });
    const [down] = t.downstream();
    assert.equal(down!.method, "PUT");
    assert.equal(down!.headers["x-kept"], "yes");
    assert.equal(down!.body, "payload");
    assert.match(String(down!.headers["traceparent"]), TRACEPARENT);
    const client = (await t.exported()).find((s) => s.kind === 3)!;
    assert.equal(client.name, "PUT");
    assert.deepEqual(client.status, { code: 2 });
    assert.equal(attrsOf(client)["error.type"], "503");
    await t.close();
  });

  it("is plain fetch() without a tracing layer", async () => {
    receiver.received.length = 0;
    const app = new App({ logger: silentLogger }).routes(
      route.get("/call", [context()], async (ctx) => (await tracedFetch(ctx, receiver.url + "/downstream")).status),
    );
    const r = await app.inject({ method: "GET", url: "/call" });
    assert.equal(r.status, 200);
    const [down] = receiver.received;
    assert.equal(down!.headers["traceparent"], undefined);
  });
});
