// The exporter writes each batch as text (otlpTracesRequestJson) instead of stringifying an
// object tree: the text must be exactly JSON.stringify(otlpTracesRequest(...)) for every kind of
// span, and unixNanos must match exact BigInt arithmetic.
import assert from "node:assert/strict";
import { it } from "node:test";
import { otlpExporter, otlpTracesRequest, otlpTracesRequestJson, unixNanos } from "../../lib/otel/index.js";
import type { SpanRecord } from "../../lib/service/index.js";
import { startReceiver } from "./otlp-receiver.js";

function span(over: Partial<SpanRecord>): SpanRecord {
  return {
    name: "GET /users/{id}",
    kind: "server",
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    spanId: "00f067aa0ba902b7",
    parentSpanId: "",
    traceFlags: "01",
    startTime: 1795632555945.123456,
    durationMs: 0.25,
    status: "ok",
    requestId: "",
    attributes: {},
    ...over,
  };
}

it("writes the same text as JSON.stringify of the object form", () => {
  const spans: SpanRecord[] = [
    span({}),
    span({ kind: "internal", parentSpanId: "a3ce929d0e0e4736", requestId: "req-1", status: "error", traceFlags: "00" }),
    span({ kind: "client", name: 'say "hi"\\n\u2028 ünï', attributes: { "a.string": "x\"y\\z\n", "an.int": 42, "neg": -7, "a.double": 0.5, "big": 2 ** 60, "yes": true, "no": false, "nan": Number.NaN, "inf": Infinity } }),
    span({ startTime: 0.9999999, durationMs: 0, traceFlags: "zz" }),
  ];
  const resource = { "service.name": "svc \"quoted\"", "service.version": "1.2.3", "host.cpus": 2 };
  const scope = { name: "keel", version: "0.1.0" };
  assert.equal(otlpTracesRequestJson(spans, resource, scope), JSON.stringify(otlpTracesRequest(spans, resource, scope)));
  assert.equal(otlpTracesRequestJson([], {}, scope), JSON.stringify(otlpTracesRequest([], {}, scope)));
});

it("attribute texts kept from earlier spans are the same text; values alike in text but not in type stay apart", () => {
  const scope = { name: "keel", version: "0.1.0" };
  // The same keys with 200 (int), "200" (string), 0.5 / "0.5", true / "true", -0 / 0, then again:
  // the second batch is written from the kept texts and must still be the object form exactly.
  const values: Array<string | number | boolean> = [200, "200", 0.5, "0.5", true, "true", -0, 0, "200", 200];
  const spans = values.map((v, i) => span({ spanId: "00f067aa0ba902b" + (i % 10), attributes: { "http.response.status_code": v, "other": v, "url.scheme": "http" } }));
  for (let round = 0; round < 2; round++) {
    assert.equal(otlpTracesRequestJson(spans, {}, scope), JSON.stringify(otlpTracesRequest(spans, {}, scope)));
  }
  const sent = JSON.parse(otlpTracesRequestJson(spans, {}, scope)).resourceSpans[0].scopeSpans[0].spans as Array<{ attributes: Array<{ value: Record<string, unknown> }> }>;
  assert.deepEqual(sent.map((s) => s.attributes[0]!.value), [
    { intValue: "200" }, { stringValue: "200" }, { doubleValue: 0.5 }, { stringValue: "0.5" }, { boolValue: true },
    { stringValue: "true" }, { intValue: "0" }, { intValue: "0" }, { stringValue: "200" }, { intValue: "200" },
  ]);
  // Many distinct values (past the bound on kept texts) are still written right.
  const many = Array.from({ length: 5000 }, (_, i) => span({ attributes: { "url.path": "/users/" + i, "n": i } }));
  assert.equal(otlpTracesRequestJson(many, {}, scope), JSON.stringify(otlpTracesRequest(many, {}, scope)));
});

it("unixNanos is exact: the same digits as BigInt arithmetic, carry included", () => {
  const exact = (ms: number): string => {
    const whole = Math.floor(ms);
    return (BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6))).toString();
  };
  const samples = [0, 0.5, 0.9999999, 1, 1795632555945, 1795632555945.123456, 1795632555945.9999996, 1e-7];
  for (let i = 0; i < 2000; i++) samples.push(Math.random() * 2e12, Math.floor(Math.random() * 2e12) + Math.random() / 1000);
  for (const ms of samples) assert.equal(unixNanos(ms), exact(ms), String(ms));
});

it("the exporter drops (and counts) a record whose ids are not lowercase hex, so the text body stays valid JSON", () => {
  const exporter = otlpExporter({ url: "http://127.0.0.1:9/v1/traces", scheduleDelayMs: 60_000 });
  exporter(span({ traceId: 'x"}' }));
  exporter(span({ spanId: "00F067AA0BA902B7" }));
  exporter(span({ parentSpanId: "nothex" }));
  assert.equal(exporter.stats().dropped, 3);
  assert.equal(exporter.stats().queued, 0);
  exporter(span({}));
  assert.equal(exporter.stats().queued, 1);
});

it("the exporter's request body is those bytes: spans written into the batch as they finish, the buffer grown as needed", async () => {
  const receiver = await startReceiver();
  try {
    const spans: SpanRecord[] = [
      span({}),
      span({ kind: "internal", parentSpanId: "a3ce929d0e0e4736", requestId: "req-1", status: "error", traceFlags: "03" }),
      span({ kind: "client", name: 'say "hi"\\n\u2028 ünï 😀', attributes: { "a.string": "x\"y\\z\n", "an.int": 42, "a.double": 0.5, "yes": true, "nan": Number.NaN } }),
      // Larger than the batch's first buffer: it must grow, keeping what came before.
      span({ attributes: { "big.é": "é".repeat(70_000) + "\u{1F600}".repeat(20_000) } }),
    ];
    const resource = { "service.name": "svc", "service.version": "1.2.3" };
    const exporter = otlpExporter({ url: receiver.url, serviceName: "svc", resource, maxExportBatchSize: 4 });
    for (const s of spans) exporter(s);
    await exporter.flush();
    const bodies = receiver.received.map((r) => r.raw);
    assert.equal(bodies.length, 1);
    // The resource part carries the SDK attributes the exporter adds; the spans part must be exact.
    const sent = bodies[0]!.toString("utf8");
    const scope = JSON.parse(sent).resourceSpans[0].scopeSpans[0].scope as { name: string; version: string };
    const objectForm = JSON.stringify(otlpTracesRequest(spans, {}, scope));
    const expected = Buffer.from(sent.slice(0, sent.indexOf('"spans":[')) + objectForm.slice(objectForm.indexOf('"spans":[')), "utf8");
    assert.ok(bodies[0]!.equals(expected), "the body is the UTF-8 of the object form's JSON");
    assert.ok(sent.startsWith('{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}'));
    assert.equal(exporter.stats().exported, 4);
  } finally {
    await receiver.close();
  }
});

it("batches after the first are written into the buffer of a batch already sent, without mixing their spans", async () => {
  const receiver = await startReceiver();
  try {
    const exporter = otlpExporter({ url: receiver.url, maxExportBatchSize: 2 });
    for (let b = 0; b < 4; b++) {
      // A long first batch, shorter later ones: stale bytes of a longer batch must never show.
      exporter(span({ name: `b${b}-first` + "x".repeat(b === 0 ? 5000 : 10) }));
      exporter(span({ name: `b${b}-second` }));
      await exporter.flush();
    }
    const bodies = receiver.received.map((r) => r.body);
    assert.equal(bodies.length, 4);
    bodies.forEach((body, b) => {
      const names = (JSON.parse(body).resourceSpans[0].scopeSpans[0].spans as Array<{ name: string }>).map((s) => s.name);
      assert.deepEqual(names, [`b${b}-first` + "x".repeat(b === 0 ? 5000 : 10), `b${b}-second`]);
    });
  } finally {
    await receiver.close();
  }
});
