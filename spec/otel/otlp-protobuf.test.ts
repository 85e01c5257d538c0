// OTLP/HTTP protobuf ("http/protobuf"): keel's bytes decoded by protobufjs (a test peer,
// installed on demand into .tmp/test-peers; skipped visibly without it) with the .proto subset
// below, copied field for field from opentelemetry-proto (collector/trace/v1/trace_service.proto,
// trace/v1/trace.proto, common/v1/common.proto, resource/v1/resource.proto), and compared field
// by field with otlpTracesRequest()'s object form; then the exporter with protocol
// "http/protobuf" against a loopback receiver, and the protocol chosen from the environment.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { SpanAttributeValue, SpanRecord } from "../../lib/service/index.js";
import { KEEL_SCOPE, otlpConfigFromEnv, otlpExporter, otlpExporterFromEnv, otlpTracesRequest, otlpTracesRequestProtobuf, unixNanos, type OtlpAnyValue } from "../../lib/otel/index.js";
import { testPeer } from "../support/test-peers.js";
import { startReceiver, type Receiver } from "./otlp-receiver.js";

const OTLP_PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
message ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  fixed32 flags = 16;
  string name = 5;
  enum SpanKind { SPAN_KIND_UNSPECIFIED = 0; SPAN_KIND_INTERNAL = 1; SPAN_KIND_SERVER = 2; SPAN_KIND_CLIENT = 3; SPAN_KIND_PRODUCER = 4; SPAN_KIND_CONSUMER = 5; }
  SpanKind kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  Status status = 15;
}
message Status {
  string message = 2;
  enum StatusCode { STATUS_CODE_UNSET = 0; STATUS_CODE_OK = 1; STATUS_CODE_ERROR = 2; }
  StatusCode code = 3;
}
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; bytes bytes_value = 7; }
}
message KeyValue { string key = 1; AnyValue value = 2; }
`;

type Any = any;
interface PbType {
  decode(b: Uint8Array): unknown;
  encode(m: unknown): { finish(): Uint8Array };
  fromObject(o: unknown): unknown;
  toObject(m: unknown, o: Record<string, unknown>): Any;
}

async function loadTypes(): Promise<{ request: PbType; response: PbType } | string> {
  const dir = await testPeer("protobufjs", "7.6.6");
  if (dir === null) return "protobufjs@7.6.6 could not be installed into .tmp/test-peers (offline?)";
  try {
    const pb = createRequire(join(dir, "package.json"))(dir) as Any;
    const root = pb.parse(OTLP_PROTO, { keepCase: true }).root;
    return { request: root.lookupType("otlp.ExportTraceServiceRequest"), response: root.lookupType("otlp.ExportTraceServiceResponse") };
  } catch (err) {
    return `protobufjs did not load: ${(err as Error).message}`;
  }
}

const types = await loadTypes();
const skip = typeof types === "string" ? types : false;
const pb = typeof types === "string" ? undefined : types;

/** Decoded as plain data: 64-bit integers as decimal strings, bytes as hex, enums as numbers, oneofs as they were written. */
function decodeRequest(bytes: Uint8Array): Any {
  const message = pb!.request.decode(bytes);
  return pb!.request.toObject(message, { longs: String, enums: Number, bytes: Array });
}

const hex = (bytes: number[] | undefined): string | undefined => (bytes === undefined ? undefined : Buffer.from(bytes).toString("hex"));

/** An AnyValue from protobufjs in the JSON mapping's form ({ intValue: "5" }, ...). */
function anyValueAsJson(v: Any): OtlpAnyValue {
  const keys = Object.keys(v);
  assert.equal(keys.length, 1, `exactly one AnyValue member: ${JSON.stringify(v)}`);
  if ("string_value" in v) return { stringValue: v.string_value };
  if ("bool_value" in v) return { boolValue: v.bool_value };
  if ("int_value" in v) return { intValue: v.int_value };
  assert.ok("double_value" in v, JSON.stringify(v));
  return { doubleValue: v.double_value };
}

function keyValuesAsJson(list: Any[] | undefined): Array<{ key: string; value: OtlpAnyValue }> {
  return (list ?? []).map((kv: Any) => ({ key: kv.key ?? "", value: anyValueAsJson(kv.value) }));
}

/** Compare a decoded request with otlpTracesRequest()'s object form, field by field. */
function assertSameRequest(decoded: Any, spans: readonly SpanRecord[], resource: Record<string, SpanAttributeValue>, scope = KEEL_SCOPE): void {
  const expected = otlpTracesRequest(spans, resource, scope);
  assert.equal(decoded.resource_spans.length, 1);
  const rs = decoded.resource_spans[0];
  assert.deepEqual(keyValuesAsJson(rs.resource?.attributes), expected.resourceSpans[0]!.resource.attributes);
  assert.equal(rs.scope_spans.length, 1);
  const ss = rs.scope_spans[0];
  assert.deepEqual({ name: ss.scope.name ?? "", version: ss.scope.version ?? "" }, { name: scope.name, version: scope.version });
  const want = expected.resourceSpans[0]!.scopeSpans[0]!.spans;
  assert.equal((ss.spans ?? []).length, want.length);
  want.forEach((w, i) => {
    const got = ss.spans[i];
    const where = `span ${i} (${w.name})`;
    assert.equal(hex(got.trace_id), w.traceId, `${where}: trace_id`);
    assert.equal(hex(got.span_id), w.spanId, `${where}: span_id`);
    assert.equal(hex(got.parent_span_id), w.parentSpanId, `${where}: parent_span_id (absent when there is none)`);
    assert.equal(got.name ?? "", w.name, `${where}: name`);
    assert.equal(got.kind, w.kind, `${where}: kind`);
    assert.equal(got.flags ?? 0, w.flags, `${where}: flags`);
    assert.equal(got.start_time_unix_nano, w.startTimeUnixNano, `${where}: start`);
    assert.equal(got.end_time_unix_nano, w.endTimeUnixNano, `${where}: end`);
    assert.deepEqual(keyValuesAsJson(got.attributes), w.attributes, `${where}: attributes`);
    assert.deepEqual(got.status, { code: w.status.code }, `${where}: status`);
  });
}

/** protobufjs writes set fields in field-number order with minimal varints: the same bytes if ours are canonical. */
function assertCanonical(bytes: Buffer): void {
  const again = Buffer.from(pb!.request.encode(pb!.request.decode(bytes)).finish());
  assert.ok(again.equals(bytes), "re-encoding the decoded message gives the same bytes");
}

let seq = 0;
function record(overrides: Partial<SpanRecord> = {}): SpanRecord {
  seq++;
  return {
    name: `op ${seq}`,
    kind: "internal",
    traceId: (seq * 7919).toString(16).padStart(32, "4"),
    spanId: (seq * 104729).toString(16).padStart(16, "f"),
    parentSpanId: "",
    traceFlags: "01",
    startTime: 1_732_550_000_123.25 + seq,
    durationMs: 1.5,
    status: "ok",
    requestId: "",
    attributes: {},
    ...overrides,
  };
}

const RESOURCE: Record<string, SpanAttributeValue> = { "service.name": "billing", "service.version": "2.0.1", "host.cpus": 8, "feature.on": true, ratio: 0.25 };

/** Spans covering every encoding branch. */
function variedSpans(): SpanRecord[] {
  return [
    record({ name: "GET /users/{id}", kind: "server", attributes: { "http.request.method": "GET", "http.response.status_code": 200, "url.path": "/users/7" } }),
    record({ name: "grüße 😀 名前", parentSpanId: "0123456789abcdef", kind: "client", attributes: { "ключ": "значение", emoji: "🎉🎉", "mixed": "a\u00e9b\u4e2dc" } }),
    record({
      name: "ints",
      attributes: { zero: 0, one: 1, neg: -1, negBig: -2147483649, min: -(2 ** 53 - 1), above31: 2 ** 31, above32: 2 ** 32 + 5, max: 2 ** 53 - 1, byte: 127, twoBytes: 128, negZero: -0 },
    }),
    record({ name: "doubles", attributes: { half: 0.5, tiny: 5e-324, huge: -1.25e300, unsafe: 2 ** 53, big: 1e21, third: 1 / 3 } }),
    record({ name: "dropped", attributes: { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, ninf: Number.NEGATIVE_INFINITY, kept: "yes" } }),
    record({ name: "bools and empties", attributes: { t: true, f: false, empty: "", "": "empty key" } }),
    record({ name: "", status: "error", requestId: "req-42", traceFlags: "00", attributes: { "error.type": "RangeError" } }),
    record({ name: "flags", traceFlags: "ff", kind: "server", parentSpanId: "fedcba9876543210" }),
    // Past the one-byte lengths: a 43+ character string, a KeyValue over 127 bytes, a span over 16 KiB.
    record({ name: "n".repeat(43), attributes: { long: "x".repeat(200), "long.unicode": "é".repeat(100), k: "ü".repeat(42) } }),
    record({ name: "huge", attributes: { blob: "y".repeat(20_000), key: "v" }, requestId: "r".repeat(300) }),
    // Tiny span: under 128 bytes, its length is one byte (the two reserved bytes shrink).
    record({ name: "t", attributes: {} }),
    // Times: integer ms, a half ms, the rounding edge, epoch, a far date past 2^32 ms * 1e6 high bits.
    record({ name: "t1", startTime: 1_700_000_000_000, durationMs: 0 }),
    record({ name: "t2", startTime: 1_700_000_000_000.5, durationMs: 0.000001 }),
    record({ name: "t3", startTime: 1_700_000_000_000.9999999, durationMs: 2.9999996 }),
    record({ name: "t4", startTime: 0, durationMs: 0.001 }),
    record({ name: "t5", startTime: 16_725_225_600_000, durationMs: 86_400_000 }),
  ];
}

describe("otlpTracesRequestProtobuf(): the protobuf body", { skip }, () => {
  it("decodes (protobufjs, the opentelemetry-proto field numbers) to what otlpTracesRequest() says, span by span", () => {
    const spans = variedSpans();
    const bytes = otlpTracesRequestProtobuf(spans, RESOURCE, KEEL_SCOPE);
    assertSameRequest(decodeRequest(bytes), spans, RESOURCE);
  });

  it("is canonical protobuf: fields in number order, minimal varints, defaults left out", () => {
    const spans = variedSpans();
    assertCanonical(otlpTracesRequestProtobuf(spans, RESOURCE, KEEL_SCOPE));
    for (const span of spans) assertCanonical(otlpTracesRequestProtobuf([span], RESOURCE, KEEL_SCOPE));
    assertCanonical(otlpTracesRequestProtobuf([], {}, { name: "", version: "" }));
    // protobufjs makes own properties only of the fields it read: flags 0 and an empty name are not on the wire.
    const message = pb!.request.decode(otlpTracesRequestProtobuf([record({ name: "", traceFlags: "00" })], {}, KEEL_SCOPE)) as Any;
    const span = message.resource_spans[0].scope_spans[0].spans[0];
    assert.deepEqual([Object.hasOwn(span, "flags"), Object.hasOwn(span, "name"), Object.hasOwn(span, "parent_span_id"), Object.hasOwn(span, "kind")], [false, false, false, true]);
  });

  it("writes AnyValue members even at their default (false, 0, \"\"): they are oneof members", () => {
    const decoded = decodeRequest(otlpTracesRequestProtobuf([record({ attributes: { f: false, z: 0, s: "" } })], {}, KEEL_SCOPE));
    assert.deepEqual(decoded.resource_spans[0].scope_spans[0].spans[0].attributes, [
      { key: "f", value: { bool_value: false } },
      { key: "z", value: { int_value: "0" } },
      { key: "s", value: { string_value: "" } },
    ]);
  });

  it("gives exact nanoseconds since the epoch, as BigInt arithmetic does", () => {
    const cases: Array<[number, bigint]> = [
      [1_700_000_000_000, 1_700_000_000_000_000_000n],
      [1_700_000_000_000.5, 1_700_000_000_000_500_000n],
      [1_732_550_000_123.25, 1_732_550_000_123_250_000n],
      [16_725_225_600_000, 16_725_225_600_000_000_000n],
      [4_294_967_296, 4_294_967_296_000_000n],
      [0.001, 1000n],
      [0, 0n],
    ];
    for (const [ms, nanos] of cases) {
      const decoded = decodeRequest(otlpTracesRequestProtobuf([record({ startTime: ms, durationMs: 0 })], {}, KEEL_SCOPE));
      const span = decoded.resource_spans[0].scope_spans[0].spans[0];
      assert.equal(BigInt(span.start_time_unix_nano ?? "0"), nanos, `start of ${ms} ms`);
      assert.equal(BigInt(span.end_time_unix_nano ?? "0"), nanos, `end of ${ms} ms`);
      assert.equal(BigInt(unixNanos(ms)), nanos, `unixNanos(${ms}) agrees`);
    }
    // Many fractional times: the fixed64 equals the JSON text's decimal, whole ms * 10^6 + the sub-ms part.
    for (let i = 0; i < 2000; i++) {
      const ms = 1_600_000_000_000 + i * 7_777_777.123457 + (i % 10) / 10;
      const decoded = decodeRequest(otlpTracesRequestProtobuf([record({ startTime: ms, durationMs: 0 })], {}, KEEL_SCOPE));
      const got = BigInt(decoded.resource_spans[0].scope_spans[0].spans[0].start_time_unix_nano);
      const whole = Math.floor(ms);
      let sub = Math.round((ms - whole) * 1e6);
      let w = BigInt(whole);
      if (sub === 1e6) {
        w += 1n;
        sub = 0;
      }
      assert.equal(got, w * 1_000_000n + BigInt(sub), `start of ${ms} ms`);
    }
  });

  it("writes a negative int64 as ten bytes of two's complement", () => {
    const bytes = otlpTracesRequestProtobuf([record({ name: "", attributes: { n: -1 } })], {}, { name: "", version: "" });
    const tenBytes = Buffer.from([0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    assert.ok(bytes.includes(tenBytes), "AnyValue.int_value = -1 is 0x18 then ff x9, 01");
  });
});

describe("otlpExporter({ protocol: \"http/protobuf\" })", { skip }, () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  const options = (extra: Record<string, unknown> = {}): Any => ({
    url: receiver.url + "/v1/traces",
    protocol: "http/protobuf",
    serviceName: "billing",
    resource: { "service.version": "2.0.1" },
    scheduleDelayMs: 60_000,
    retry: { initialBackoffMs: 1, maxBackoffMs: 5 },
    ...extra,
  });

  it("posts application/x-protobuf bodies that decode to the spans, in batches of maxExportBatchSize", async () => {
    receiver.received.length = 0;
    const exporter = otlpExporter(options({ maxExportBatchSize: 7 }));
    assert.equal(exporter.protocol, "http/protobuf");
    const spans: SpanRecord[] = [];
    for (let i = 0; i < 3; i++) spans.push(...variedSpans());
    for (const s of spans) exporter(s);
    await exporter.flush();
    const sent = spans.filter((s) => s.traceFlags !== "00"); // unsampled spans are not exported
    assert.equal(receiver.received.length, Math.ceil(sent.length / 7));
    const resource = { "service.name": "billing", "telemetry.sdk.name": "keel", "telemetry.sdk.language": "nodejs", "telemetry.sdk.version": KEEL_SCOPE.version, "service.version": "2.0.1" };
    receiver.received.forEach((req, i) => {
      assert.equal(req.headers["content-type"], "application/x-protobuf");
      assert.equal(Number(req.headers["content-length"]), req.raw.length);
      assertSameRequest(decodeRequest(req.raw), sent.slice(i * 7, i * 7 + 7), resource);
      assertCanonical(req.raw);
    });
    assert.equal(exporter.stats().exported, sent.length);
    await exporter.shutdown();
  });

  it("reuses batch buffers without mixing batches: many batches, each decodes to its own spans", async () => {
    receiver.received.length = 0;
    const exporter = otlpExporter(options({ maxExportBatchSize: 50, maxQueueSize: 5000, resource: {} }));
    const spans: SpanRecord[] = [];
    for (let i = 0; i < 500; i++) spans.push(record({ name: `s${i}`, attributes: { i, even: i % 2 === 0, text: "é".repeat(i % 60) } }));
    for (const s of spans) {
      exporter(s);
      if (spans.indexOf(s) % 100 === 99) await exporter.flush();
    }
    await exporter.flush();
    const decoded = receiver.received.flatMap((req) => decodeRequest(req.raw).resource_spans[0].scope_spans[0].spans as Any[]);
    assert.deepEqual(
      decoded.map((s) => s.name),
      spans.map((s) => s.name),
    );
    await exporter.shutdown();
  });

  it("counts rejected_spans from a protobuf partial success", async () => {
    receiver.received.length = 0;
    const answer = Buffer.from(pb!.response.encode(pb!.response.fromObject({ partial_success: { rejected_spans: 2, error_message: "2 spans too old" } })).finish());
    receiver.script({ status: 200, headers: { "content-type": "application/x-protobuf" }, body: answer });
    const exporter = otlpExporter(options());
    for (let i = 0; i < 5; i++) exporter(record());
    await exporter.flush();
    assert.equal(exporter.stats().rejected, 2);
    assert.equal(exporter.stats().exported, 3);
    await exporter.shutdown();
  });

  it("reads a partial success with unknown fields around it, and a JSON answer by its content type", async () => {
    // Unknown fields: 3 (varint), 4 (fixed64), 5 (LEN), 6 (fixed32), before and inside partial_success.
    const inner = Buffer.from([0x28, 0x96, 0x01, 0x08, 0x04, 0x12, 0x01, 0x78]); // unknown 5 = 150, rejected_spans = 4, error_message = "x"
    const answer = Buffer.concat([Buffer.from([0x18, 0x01, 0x21, 1, 2, 3, 4, 5, 6, 7, 8, 0x2a, 0x02, 0x00, 0x00, 0x35, 1, 2, 3, 4, 0x0a, inner.length]), inner]);
    receiver.script(
      { status: 200, headers: { "content-type": "application/x-protobuf" }, body: answer },
      { status: 200, headers: { "content-type": "application/json" }, body: '{"partialSuccess":{"rejectedSpans":"1"}}' },
      { status: 200, headers: { "content-type": "application/x-protobuf" }, body: Buffer.from([0x0a, 0x05, 0x08]) }, // truncated: no rejection
    );
    const exporter = otlpExporter(options());
    for (let i = 0; i < 6; i++) exporter(record());
    await exporter.flush();
    assert.equal(exporter.stats().rejected, 4);
    exporter(record());
    exporter(record());
    await exporter.flush();
    assert.equal(exporter.stats().rejected, 5);
    exporter(record());
    await exporter.flush();
    assert.deepEqual({ rejected: exporter.stats().rejected, exported: exporter.stats().exported }, { rejected: 5, exported: 4 });
    await exporter.shutdown();
  });

  it("retries a retryable answer with the same bytes", async () => {
    receiver.received.length = 0;
    receiver.script({ status: 503 }, { status: 429, headers: { "retry-after": "0" } });
    const exporter = otlpExporter(options());
    const spans = [record(), record({ parentSpanId: "1111111111111111" })];
    for (const s of spans) exporter(s);
    await exporter.flush();
    assert.equal(receiver.received.length, 3);
    assert.ok(receiver.received[1]!.raw.equals(receiver.received[0]!.raw));
    assert.ok(receiver.received[2]!.raw.equals(receiver.received[0]!.raw));
    assert.deepEqual({ retries: exporter.stats().retries, exported: exporter.stats().exported }, { retries: 2, exported: 2 });
    await exporter.shutdown();
  });

  it("refuses protocol \"grpc\" and unknown protocols with a TypeError", () => {
    assert.throws(() => otlpExporter({ protocol: "grpc" as Any }), /protocol "grpc" is not supported: keel exports OTLP over HTTP/);
    assert.throws(() => otlpExporter({ protocol: "http/xml" as Any }), /protocol must be "http\/protobuf" or "http\/json"/);
    assert.equal(otlpExporter({}).protocol, "http/json");
  });
});

describe("the protocol from the environment", { skip }, () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  it("OTEL_EXPORTER_OTLP_PROTOCOL and OTEL_EXPORTER_OTLP_TRACES_PROTOCOL (which wins) select the protocol", () => {
    assert.equal(otlpConfigFromEnv({}).options.protocol, undefined);
    assert.equal(otlpConfigFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }).options.protocol, "http/protobuf");
    assert.equal(otlpConfigFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }).options.protocol, "http/json");
    assert.equal(otlpConfigFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" }).options.protocol, "http/protobuf");
    assert.equal(otlpConfigFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: " " }).options.protocol, "http/protobuf");
    assert.equal(otlpExporterFromEnv({}).protocol, "http/json");
    assert.equal(otlpExporterFromEnv({}, { protocol: "http/protobuf" }).protocol, "http/protobuf", "the code's choice when the environment is silent");
    assert.equal(otlpExporterFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }, { protocol: "http/protobuf" }).protocol, "http/json", "the environment wins");
  });

  it("an exporter from OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf sends protobuf", async () => {
    receiver.received.length = 0;
    const exporter = otlpExporterFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf", OTEL_SERVICE_NAME: "checkout" });
    const span = record({ kind: "server", attributes: { "http.route": "/x" } });
    exporter(span);
    await exporter.shutdown();
    assert.equal(receiver.received.length, 1);
    const req = receiver.received[0]!;
    assert.equal(req.path, "/v1/traces");
    assert.equal(req.headers["content-type"], "application/x-protobuf");
    const decoded = decodeRequest(req.raw);
    assert.deepEqual(keyValuesAsJson(decoded.resource_spans[0].resource.attributes).find((kv) => kv.key === "service.name"), { key: "service.name", value: { stringValue: "checkout" } });
    assert.equal(hex(decoded.resource_spans[0].scope_spans[0].spans[0].span_id), span.spanId);
  });
});
