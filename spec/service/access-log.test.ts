// The access-log layer over real sockets: one JSON line per request with the documented fields,
// route patterns (not raw paths), error ids, traceparent in and out, child spans, redaction.
import assert from "node:assert/strict";
import { Readable, Writable } from "node:stream";
import { describe, it } from "node:test";
import { ApiError, App, context, path, requestContext, route, stream, t, type Logger } from "../../lib/index.js";
import { accessLog, type AccessLogOptions } from "../../lib/service/index.js";
import { createBufferedLogger, type JsonLogger } from "../../lib/service/index.js";
import { span, tracer, type SpanRecord } from "../../lib/service/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { send } from "../support/http.js";

type Line = Record<string, unknown>;

function collectingLogger(level: "info" | "debug" = "info"): { logger: JsonLogger; lines(): Promise<Line[]> } {
  let buf = "";
  const out = new Writable({
    write(chunk: Buffer, _e, cb) {
      buf += chunk.toString("utf8");
      cb();
    },
  });
  const logger = createBufferedLogger({ level, destination: out, base: { service: "svc" } });
  return {
    logger,
    async lines() {
      await logger.flush();
      return buf
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Line);
    },
  };
}

const routes = [
  route.get("/users/{id}", [path("id", t.u64())], (id) => ({ id })),
  route.get("/boom", [], () => {
    throw ApiError.internal("Storage error", { detail: "private detail" });
  }),
  route.get("/quiet", { config: { accessLog: false } }, [], () => "shh"),
  route.get("/debug", { config: { accessLog: "debug" } }, [], () => "dbg"),
  route.get("/spans", [context(), tracer()], async (ctx, tr) => {
    const a = await span(ctx, "load user", async (s) => {
      s.set("user.id", 7);
      await new Promise((r) => setTimeout(r, 5));
      return s.span("nested", () => 1);
    });
    const b = tr.span("via tracer", () => 2);
    try {
      span(ctx, "failing", () => {
        throw new Error("nope");
      });
    } catch {
      // expected
    }
    return { a, b, trace: tr.traceId };
  }),
  route.get("/stream", [], () =>
    stream(
      Readable.from(
        (async function* () {
          yield "a";
          await new Promise((r) => setTimeout(r, 60));
          yield "b";
        })(),
      ),
      "text/plain",
    ),
  ),
  route.get("/id", [requestContext()], (info) => info.requestId),
];

async function serve(logger: Logger, options: Omit<AccessLogOptions, "logger"> = {}): Promise<{ url: string; close(): Promise<void> }> {
  const app = new App({ logger, env: "development" }).layer(accessLog({ logger, ...options })).routes(routes);
  return app.listen({ port: 0 });
}

const REQUEST_FIELDS = ["level", "time", "msg", "req_id", "method", "route", "status", "duration_ms", "service", "trace_id", "span_id"];

describe("accessLog layer", () => {
  it("writes one JSON line per request with the pino fields and the route pattern", async () => {
    const { logger, lines } = collectingLogger();
    const server = await serve(logger);
    const r = await send(server.url + "/users/42?secret=query", { headers: { "x-request-id": "req-1" } });
    await server.close();
    assert.equal(r.status, 200);
    const recs = (await lines()).filter((l) => l["msg"] === "request completed");
    assert.equal(recs.length, 1);
    const rec = recs[0]!;
    for (const f of REQUEST_FIELDS) assert.ok(f in rec, `field ${f}`);
    assert.equal(rec["level"], 30);
    assert.equal(rec["req_id"], "req-1");
    assert.equal(rec["method"], "GET");
    assert.equal(rec["route"], "/users/{id}", "the pattern, not /users/42");
    assert.equal(rec["status"], 200);
    assert.equal(rec["service"], "svc");
    assert.ok(typeof rec["duration_ms"] === "number" && rec["duration_ms"] >= 0);
    assert.ok(!JSON.stringify(rec).includes("secret=query"), "the raw URL is not logged");
    assert.equal(r.headers["x-request-id"], "req-1");
  });

  it("logs 404s with route null and errors with the error_id of the response", async () => {
    const { logger, lines } = collectingLogger();
    const server = await serve(logger);
    const missing = await send(server.url + "/no/such/path");
    const boom = await send(server.url + "/boom");
    await server.close();
    const recs = await lines();
    const notFound = recs.find((l) => l["msg"] === "request completed" && l["status"] === 404)!;
    assert.equal(notFound["route"], null);
    assert.equal(notFound["error_id"], (JSON.parse(missing.body) as { error_id: string }).error_id);
    assert.equal(notFound["error_type"], "not_found");
    const errorId = (JSON.parse(boom.body) as { error_id: string }).error_id;
    const failed = recs.filter((l) => l["error_id"] === errorId);
    assert.deepEqual(failed.map((l) => l["msg"]).sort(), ["request completed", "request failed"], "an error line and the access line");
    const errLine = failed.find((l) => l["msg"] === "request failed")!;
    assert.equal(errLine["req_id"], boom.headers["x-request-id"], "the request id is logged beside the error_id");
    assert.equal(errLine["detail"], "private detail");
    assert.equal(errLine["service"], "svc");
  });

  it("sends no traceparent back unless responseTraceparent is true (issue 34)", async () => {
    const { logger } = collectingLogger();
    const server = await serve(logger);
    const r = await send(server.url + "/users/1", { headers: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" } });
    await server.close();
    assert.equal(r.status, 200);
    assert.equal(r.headers["traceparent"], undefined);
  });

  it("keeps an incoming traceparent's trace id, sends its own span id back, and starts traces otherwise", async () => {
    const { logger, lines } = collectingLogger();
    const server = await serve(logger, { responseTraceparent: true });
    const incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const kept = await send(server.url + "/users/1", { headers: { traceparent: incoming } });
    const fresh = await send(server.url + "/users/2");
    const junk = await send(server.url + "/users/3", { headers: { traceparent: "00-zzzz" } });
    await server.close();
    const recs = (await lines()).filter((l) => l["msg"] === "request completed");

    const tp = String(kept.headers["traceparent"]).split("-");
    assert.equal(tp[1], "4bf92f3577b34da6a3ce929d0e0e4736");
    assert.notEqual(tp[2], "00f067aa0ba902b7", "a new span id for this hop");
    assert.equal(tp[3], "01");
    const keptLine = recs.find((l) => l["route"] === "/users/{id}" && l["trace_id"] === tp[1])!;
    assert.equal(keptLine["span_id"], tp[2]);
    assert.equal(keptLine["parent_span_id"], "00f067aa0ba902b7");

    for (const r of [fresh, junk]) {
      const parts = String(r.headers["traceparent"]).split("-");
      assert.match(parts[1]!, /^[0-9a-f]{32}$/);
      assert.notEqual(parts[1], "4bf92f3577b34da6a3ce929d0e0e4736");
      const line = recs.find((l) => l["trace_id"] === parts[1])!;
      assert.equal(line["parent_span_id"], undefined);
    }
  });

  it("child spans are logged under the request span; errors mark them; sinks get every span", async () => {
    const { logger, lines } = collectingLogger();
    const spans: SpanRecord[] = [];
    const server = await serve(logger, { onSpan: (s) => spans.push(s) });
    const r = await send(server.url + "/spans", { headers: { "x-request-id": "spans-1" } });
    await server.close();
    assert.equal(r.status, 200);
    const recs = await lines();
    const req = recs.find((l) => l["msg"] === "request completed")!;
    const childLines = recs.filter((l) => l["msg"] === "span");
    const byName = new Map(childLines.map((l) => [l["span"], l]));
    const load = byName.get("load user")!;
    const nested = byName.get("nested")!;
    const failing = byName.get("failing")!;
    const viaTracer = byName.get("via tracer")!;
    assert.equal(load["parent_span_id"], req["span_id"]);
    assert.equal(viaTracer["parent_span_id"], req["span_id"]);
    assert.equal(nested["parent_span_id"], load["span_id"]);
    assert.equal(failing["parent_span_id"], req["span_id"]);
    for (const l of [load, nested, failing, viaTracer]) {
      assert.equal(l["trace_id"], req["trace_id"]);
      assert.equal(l["req_id"], "spans-1");
    }
    assert.equal(load["span_status"], "ok");
    assert.equal(load["attr.user.id"], 7);
    assert.ok((load["duration_ms"] as number) >= 4);
    assert.equal(failing["span_status"], "error");
    assert.equal(failing["error"], "nope");
    assert.deepEqual(JSON.parse(r.body), { a: 1, b: 2, trace: req["trace_id"] });

    assert.deepEqual(spans.map((s) => s.kind).sort(), ["internal", "internal", "internal", "internal", "server"]);
    const server_ = spans.find((s) => s.kind === "server")!;
    assert.equal(server_.name, "GET /spans");
    assert.equal(server_.attributes["http.route"], "/spans");
    assert.equal(server_.attributes["http.response.status_code"], 200);
    assert.equal(server_.spanId, req["span_id"]);
    assert.ok(server_.startTime > Date.now() - 60_000 && server_.startTime <= Date.now());
  });

  it("per-route config silences or lowers the line", async () => {
    const { logger, lines } = collectingLogger("info");
    const server = await serve(logger);
    await send(server.url + "/quiet");
    await send(server.url + "/debug");
    await send(server.url + "/users/9");
    await server.close();
    const routesLogged = (await lines()).filter((l) => l["msg"] === "request completed").map((l) => l["route"]);
    assert.deepEqual(routesLogged, ["/users/{id}"]);
  });

  it("a streamed body is logged when the response ends", async () => {
    const { logger, lines } = collectingLogger();
    const server = await serve(logger);
    const r = await send(server.url + "/stream");
    await server.close();
    assert.equal(r.body, "ab");
    const line = (await lines()).find((l) => l["route"] === "/stream")!;
    assert.ok((line["duration_ms"] as number) >= 50, `duration covers the stream, got ${String(line["duration_ms"])}`);
  });

  it("request headers can be logged, with every secret redacted", async () => {
    const { logger, lines } = collectingLogger();
    const server = await serve(logger, { headers: true, path: true });
    const secrets = { authorization: "Bearer tok-SECRET-1", cookie: "sid=SECRET-2", "x-api-key": "SECRET-3", "proxy-authorization": "Basic SECRET-4" };
    await send(server.url + "/users/5", { headers: { ...secrets, "user-agent": "probe/1.0" } });
    await server.close();
    const recs = await lines();
    const raw = JSON.stringify(recs);
    assert.ok(!raw.includes("SECRET"), "no secret reaches the log");
    const line = recs.find((l) => l["route"] === "/users/{id}")!;
    const headers = line["req_headers"] as Record<string, string>;
    assert.equal(headers["user-agent"], "probe/1.0");
    assert.equal(headers["authorization"], "[Redacted]");
    assert.equal(headers["cookie"], "[Redacted]");
    assert.equal(line["path"], "/users/5");
  });

  it("works with any Logger (fields passed as an object)", async () => {
    const logger = captureLogger(0);
    const server = await serve(logger, { trace: false });
    const r = await send(server.url + "/users/3", { headers: { "x-request-id": "plain-logger" } });
    await server.close();
    assert.equal(r.headers["traceparent"], undefined, "trace: false sends no traceparent");
    const rec = logger.records.find((x) => x.msg === "request completed")!;
    assert.equal(rec.level, 30);
    assert.equal(rec.fields["req_id"], "plain-logger");
    assert.equal(rec.fields["route"], "/users/{id}");
    assert.equal(rec.fields["status"], 200);
    assert.equal(rec.fields["trace_id"], undefined);
  });

  it("requestId: false leaves ids alone; the layer still logs", async () => {
    const { logger, lines } = collectingLogger();
    const server = await serve(logger, { requestId: false });
    const r = await send(server.url + "/id", { headers: { "x-request-id": "ignored" } });
    await server.close();
    assert.equal(r.headers["x-request-id"], undefined);
    assert.equal(JSON.parse(r.body), "");
    const line = (await lines()).find((l) => l["route"] === "/id")!;
    assert.equal(line["req_id"], undefined);
  });
});

describe("accessLog({ onSpan, sampler }) used directly", () => {
  it("gives the server span the semantic-convention attributes and lets the sampler drop a trace", async () => {
    const spans: SpanRecord[] = [];
    let sample = true;
    const app = new App({ logger: captureLogger(100) })
      .layer(accessLog({ logger: captureLogger(100), log: false, onSpan: (s) => void spans.push(s), sampler: { shouldSample: () => sample }, responseTraceparent: true }))
      .routes(route.get("/users/{id}", [path("id", t.u64())], (id) => ({ id })));
    const r = await app.inject({ url: "/users/7", headers: { host: "api.example.com:8443", "user-agent": "probe/1" } });
    assert.equal(r.status, 200);
    assert.match(String(r.headers["traceparent"]), /-01$/);
    const server = spans.find((s) => s.kind === "server")!;
    assert.equal(server.attributes["url.path"], "/users/7");
    assert.equal(server.attributes["server.address"], "api.example.com");
    assert.equal(server.attributes["server.port"], 8443);
    assert.equal(server.attributes["user_agent.original"], "probe/1");
    assert.equal(server.attributes["http.route"], "/users/{id}");
    sample = false;
    spans.length = 0;
    const unsampled = await app.inject({ url: "/users/8" });
    assert.match(String(unsampled.headers["traceparent"]), /-00$/);
    assert.deepEqual(spans, [], "an unsampled trace reaches no sink");
  });
});

describe("accessLog({ sampler }): when a new trace's id is drawn", () => {
  const HEX32 = /^[0-9a-f]{32}$/;
  async function seen(readsTraceId: boolean | undefined, traceparent?: string): Promise<{ given: string[]; traceId: string }> {
    const given: string[] = [];
    const sampler = { shouldSample: (id: string) => (given.push(id), true), ...(readsTraceId === undefined ? {} : { readsTraceId }) };
    const app = new App({ logger: captureLogger(100) })
      .layer(accessLog({ logger: captureLogger(100), log: false, onSpan: () => undefined, sampler, responseTraceparent: true }))
      .routes(route.get("/x", [], () => "ok"));
    const r = await app.inject({ url: "/x", ...(traceparent === undefined ? {} : { headers: { traceparent } }) });
    return { given, traceId: String(r.headers["traceparent"]).split("-")[1]! };
  }

  it("before the decision when the sampler reads it (the default), after it otherwise, the span's id the same kind", async () => {
    const reads = await seen(undefined);
    assert.match(reads.given[0]!, HEX32);
    assert.equal(reads.traceId, reads.given[0], "the id decided on is the trace's id");
    const blind = await seen(false);
    assert.deepEqual(blind.given, [""], "a sampler that does not read the id is not given one");
    assert.match(blind.traceId, HEX32, "the span still has a W3C id, drawn when read");
    const child = await seen(false, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    assert.deepEqual(child.given, ["0af7651916cd43dd8448eb211c80319c"], "a child's trace id is the parent's, always passed");
  });
});

