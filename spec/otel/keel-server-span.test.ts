// Issue 34, goal 4: the exporter checks that a span's ids are lowercase hex before writing them
// unquoted into a batch, except for a server span keel made itself (isKeelServerSpan): its ids were
// drawn as lowercase hex or parsed from a traceparent that must be. A record from elsewhere (a
// child span opened with a caller's parent id, a hand-made record) is still checked and dropped.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, context, route, silentLogger } from "../../lib/index.js";
import { isKeelServerSpan, production, span, type SpanRecord } from "../../lib/service/index.js";
import { otlpExporter } from "../../lib/otel/index.js";

const HEX = /^[0-9a-f]+$/;

async function recordsOf(traceparent?: string): Promise<SpanRecord[]> {
  const records: SpanRecord[] = [];
  const app = new App({ logger: silentLogger });
  production({ service: "t", logger: silentLogger, probes: false, spans: { onSpan: (r) => records.push(r) } }).register(app);
  app.routes(route.get("/x", [context()], (ctx) => span(ctx, "child", () => "ok")));
  await app.inject({ url: "/x", ...(traceparent === undefined ? {} : { headers: { traceparent } }) });
  return records;
}

describe("isKeelServerSpan", () => {
  it("is true for the access-log layer's server spans (new trace or incoming traceparent), whose ids are lowercase hex", async () => {
    for (const tp of [undefined, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"]) {
      const records = await recordsOf(tp);
      const server = records.find((r) => r.kind === "server")!;
      assert.equal(isKeelServerSpan(server), true);
      assert.match(server.traceId, HEX);
      assert.equal(server.traceId.length, 32);
      assert.match(server.spanId, HEX);
      assert.equal(server.spanId.length, 16);
      if (tp !== undefined) assert.equal(server.parentSpanId, "00f067aa0ba902b7");
      // A server span's record keeps its fields as own enumerable data, as before.
      assert.deepEqual(Object.keys(server), ["name", "kind", "traceId", "spanId", "parentSpanId", "traceFlags", "startTime", "durationMs", "status", "requestId", "attributes"]);
      // A child span's record is not one: ActiveSpan can be given any parent id.
      assert.equal(isKeelServerSpan(records.find((r) => r.kind === "internal")!), false);
    }
  });

  it("is false for a record made elsewhere, however it is shaped; the exporter still drops one whose ids are not lowercase hex", async () => {
    const server = (await recordsOf()).find((r) => r.kind === "server")!;
    const copy: SpanRecord = { ...server, traceId: "NOT-HEX" };
    assert.equal(isKeelServerSpan(copy), false);
    const exporter = otlpExporter({ url: "http://127.0.0.1:9/v1/traces", scheduleDelayMs: 60_000, transport: "inline" });
    try {
      exporter(copy);
      assert.equal(exporter.stats().dropped, 1);
      exporter(server);
      assert.equal(exporter.stats().queued, 1, "keel's own server span is taken");
    } finally {
      await exporter.shutdown({ timeoutMs: 0 });
    }
  });
});
