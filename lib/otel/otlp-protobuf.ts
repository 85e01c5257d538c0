// OTLP/HTTP protobuf bodies ("http/protobuf", Content-Type application/x-protobuf, the SDK's
// default protocol): ExportTraceServiceRequest written straight into a reusable batch buffer.
// Field numbers and wire types are those of opentelemetry-proto (collector/trace/v1/
// trace_service.proto, trace/v1/trace.proto, common/v1/common.proto, resource/v1/resource.proto):
//
//   ExportTraceServiceRequest { resource_spans = 1 }
//   ResourceSpans { resource = 1 Resource { attributes = 1 }, scope_spans = 2 }
//   ScopeSpans    { scope = 1 InstrumentationScope { name = 1, version = 2 }, spans = 2 }
//   Span { trace_id = 1 bytes, span_id = 2 bytes, parent_span_id = 4 bytes, name = 5,
//          kind = 6 enum, start_time_unix_nano = 7 fixed64, end_time_unix_nano = 8 fixed64,
//          attributes = 9, status = 15 Status { code = 3 enum }, flags = 16 fixed32 }
//   KeyValue { key = 1, value = 2 AnyValue { string_value = 1, bool_value = 2,
//              int_value = 3 int64, double_value = 4 double } }
//
// The same content as otlpTracesRequest(): the same attributes (NaN and infinities dropped,
// safe integers as int_value, other numbers as double_value), keel.request_id, flags & 0xff,
// exact nanoseconds. Fields at their proto3 default (empty name, flags 0) are left out, as
// protobuf encoders do; AnyValue members are oneof fields and are always written.
import type { SpanAttributeValue, SpanRecord } from "../service/index.js";
import type { OtlpScope } from "./otlp-json.js";
import { SPAN_KIND, STATUS_CODE } from "./otlp-json.js";
import { ProtoWriter, varintSize } from "./proto-writer.js";

// Tags (field number << 3 | wire type), named by message.field.
const SPAN_TRACE_ID = 0x0a; // 1, LEN
const SPAN_SPAN_ID = 0x12; // 2, LEN
const SPAN_PARENT_SPAN_ID = 0x22; // 4, LEN
const SPAN_NAME = 0x2a; // 5, LEN
const SPAN_KIND_TAG = 0x30; // 6, VARINT
const SPAN_START = 0x39; // 7, I64
const SPAN_END = 0x41; // 8, I64
const SPAN_ATTRIBUTE = 0x4a; // 9, LEN
const SPAN_STATUS = 0x7a; // 15, LEN
const STATUS_CODE_TAG = 0x18; // Status.code 3, VARINT
const SPAN_FLAGS = [0x85, 0x01]; // 16, I32: a two-byte tag
const SCOPE_SPANS_SPAN = 0x12; // ScopeSpans.spans 2, LEN
const KEY_VALUE_KEY = 0x0a; // 1, LEN
const KEY_VALUE_VALUE = 0x12; // 2, LEN
const ANY_STRING = 0x0a; // 1, LEN
const ANY_BOOL = 0x10; // 2, VARINT
const ANY_INT = 0x18; // 3, VARINT
const ANY_DOUBLE = 0x21; // 4, I64
const REQUEST_RESOURCE_SPANS = 0x0a; // ExportTraceServiceRequest.resource_spans 1
const RESOURCE_SPANS_RESOURCE = 0x0a; // 1
const RESOURCE_SPANS_SCOPE_SPANS = 0x12; // 2
const RESOURCE_ATTRIBUTE = 0x0a; // Resource.attributes 1
const SCOPE_SPANS_SCOPE = 0x0a; // 1
const SCOPE_NAME = 0x0a; // 1
const SCOPE_VERSION = 0x12; // 2

/** Most spans are 128 bytes to 16 KiB: a two-byte length, moved when it is not. */
const SPAN_LENGTH_GUESS = 2;
const TWO_32 = 4294967296;

// ---- attribute keys as precomputed bytes: the KeyValue.key field, tag and length included ----

const KEY_CACHE_MAX = 4096;
const keyFields = new Map<string, Buffer>();

function keyField(key: string): Buffer {
  let field = keyFields.get(key);
  if (field === undefined) {
    const w = new ProtoWriter(Buffer.allocUnsafe(16 + key.length * 3));
    w.string(KEY_VALUE_KEY, key);
    field = Buffer.from(w.buf.subarray(0, w.pos));
    if (keyFields.size < KEY_CACHE_MAX && key.length <= 256) keyFields.set(key, field);
  }
  return field;
}

const REQUEST_ID_KEY = keyField("keel.request_id");

// ---- hex ids to bytes ----

const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_VALUE["0123456789abcdef".charCodeAt(i)] = i;
  HEX_VALUE["0123456789ABCDEF".charCodeAt(i)] = i;
}

/** A bytes field of `hex.length / 2` bytes (< 128); the exporter checked the id is hex. */
function writeHexId(w: ProtoWriter, tag: number, hex: string): void {
  const n = hex.length >>> 1;
  w.ensure(2 + n);
  const buf = w.buf;
  let pos = w.pos;
  buf[pos++] = tag;
  buf[pos++] = n;
  for (let i = 0; i < hex.length; i += 2) buf[pos++] = (HEX_VALUE[hex.charCodeAt(i)]! << 4) | HEX_VALUE[hex.charCodeAt(i + 1)]!;
  w.pos = pos;
}

/** The W3C trace flags' two hex digits as a number, as Number.parseInt(flags, 16) & 0xff (0 when unreadable), without the parse. */
function traceFlagsByte(flags: string): number {
  if (flags.length !== 2) return Number.parseInt(flags, 16) & 0xff; // NaN & 0xff is 0
  const high = HEX_VALUE[flags.charCodeAt(0)] ?? -1;
  const low = HEX_VALUE[flags.charCodeAt(1)] ?? -1;
  return high < 0 || low < 0 ? Number.parseInt(flags, 16) & 0xff : (high << 4) | low;
}

/**
 * Epoch milliseconds (fractional) as a fixed64 of nanoseconds, the same number unixNanos()
 * writes as text and without a lossy double: the whole milliseconds split at 2^32, each half
 * times 10^6 exact in a double, the carry moved by hand. Times before 1970 are written as 0.
 */
function writeNanos(w: ProtoWriter, tag: number, epochMs: number): void {
  let whole = Math.floor(epochMs);
  let fraction = Math.round((epochMs - whole) * 1e6);
  if (fraction === 1e6) {
    whole += 1;
    fraction = 0;
  }
  if (!(whole >= 0)) {
    whole = 0;
    fraction = 0;
  }
  const wholeHigh = Math.floor(whole / TWO_32);
  const low = (whole - wholeHigh * TWO_32) * 1e6 + fraction; // < 2^52
  const carry = Math.floor(low / TWO_32);
  w.ensure(1);
  w.byte(tag);
  w.fixed64(low - carry * TWO_32, (wholeHigh * 1e6 + carry) >>> 0); // >>> 0: mod 2^32 of an exact integer
}

/** One KeyValue message (after its tag), or nothing for a value OTLP cannot carry. */
function writeKeyValue(w: ProtoWriter, tag: number, key: Buffer, value: SpanAttributeValue): void {
  w.ensure(3);
  w.byte(tag);
  const kv = w.beginMessage(1);
  w.raw(key);
  w.ensure(4);
  w.byte(KEY_VALUE_VALUE);
  if (typeof value === "string") {
    const any = w.beginMessage(1);
    w.string(ANY_STRING, value);
    w.endMessage(any, 1);
  } else if (typeof value === "boolean") {
    w.byte(2);
    w.byte(ANY_BOOL);
    w.byte(value ? 1 : 0);
  } else if (Number.isSafeInteger(value)) {
    const any = w.beginMessage(1);
    w.byte(ANY_INT);
    w.int64(value);
    w.endMessage(any, 1);
  } else {
    w.byte(9);
    w.byte(ANY_DOUBLE);
    w.double(value);
  }
  w.endMessage(kv, 1);
}

/** The attributes as repeated KeyValue fields with `tag`, own keys only, in key order. */
function writeAttributes(w: ProtoWriter, tag: number, attrs: Readonly<Record<string, SpanAttributeValue>>): void {
  const keys = Object.keys(attrs);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = attrs[key];
    if (value === undefined || (typeof value === "number" && !Number.isFinite(value))) continue;
    writeKeyValue(w, tag, keyField(key), value);
  }
}

/** One Span as the ScopeSpans.spans field (tag, length, message). */
export function writeProtobufSpan(w: ProtoWriter, record: SpanRecord): void {
  w.ensure(1 + SPAN_LENGTH_GUESS);
  w.byte(SCOPE_SPANS_SPAN);
  const span = w.beginMessage(SPAN_LENGTH_GUESS);
  writeHexId(w, SPAN_TRACE_ID, record.traceId);
  writeHexId(w, SPAN_SPAN_ID, record.spanId);
  if (record.parentSpanId !== "") writeHexId(w, SPAN_PARENT_SPAN_ID, record.parentSpanId);
  if (record.name !== "") w.string(SPAN_NAME, record.name);
  w.ensure(2);
  w.byte(SPAN_KIND_TAG);
  w.byte(SPAN_KIND[record.kind]);
  writeNanos(w, SPAN_START, record.startTime);
  writeNanos(w, SPAN_END, record.startTime + record.durationMs);
  writeAttributes(w, SPAN_ATTRIBUTE, record.attributes);
  if (record.requestId !== "") writeKeyValue(w, SPAN_ATTRIBUTE, REQUEST_ID_KEY, record.requestId);
  w.ensure(4 + 6);
  w.byte(SPAN_STATUS);
  w.byte(2);
  w.byte(STATUS_CODE_TAG);
  w.byte(STATUS_CODE[record.status]);
  const flags = traceFlagsByte(record.traceFlags);
  if (flags !== 0) {
    w.byte(SPAN_FLAGS[0]!);
    w.byte(SPAN_FLAGS[1]!);
    w.fixed32(flags);
  }
  w.endMessage(span, SPAN_LENGTH_GUESS);
}

/** What every batch starts with: the Resource and InstrumentationScope fields, encoded once. */
export interface ProtobufBatchHead {
  /** ResourceSpans.resource: tag, length, Resource. */
  readonly resource: Buffer;
  /** ScopeSpans.scope: tag, length, InstrumentationScope. */
  readonly scope: Buffer;
}

export function protobufBatchHead(resource: Readonly<Record<string, SpanAttributeValue>>, scope: OtlpScope): ProtobufBatchHead {
  const w = new ProtoWriter(Buffer.allocUnsafe(256));
  w.ensure(1);
  w.byte(RESOURCE_SPANS_RESOURCE);
  const r = w.beginMessage(2);
  writeAttributes(w, RESOURCE_ATTRIBUTE, resource);
  w.endMessage(r, 2);
  const resourceField = Buffer.from(w.buf.subarray(0, w.pos));
  w.pos = 0;
  w.ensure(1);
  w.byte(SCOPE_SPANS_SCOPE);
  const s = w.beginMessage(1);
  if (scope.name !== "") w.string(SCOPE_NAME, scope.name);
  if (scope.version !== "") w.string(SCOPE_VERSION, scope.version);
  w.endMessage(s, 1);
  return { resource: resourceField, scope: Buffer.from(w.buf.subarray(0, w.pos)) };
}

/**
 * The bytes before the spans: ExportTraceServiceRequest.resource_spans, ResourceSpans.resource,
 * ResourceSpans.scope_spans, ScopeSpans.scope, with the lengths for `spansBytes` of spans; written
 * so that they end at `end` (where the spans begin). Returns where they start.
 */
export function writeProtobufPrefix(buf: Buffer, end: number, head: ProtobufBatchHead, spansBytes: number): number {
  const scopeSpans = head.scope.length + spansBytes;
  const resourceSpans = head.resource.length + 1 + varintSize(scopeSpans) + scopeSpans;
  const start = end - (1 + varintSize(resourceSpans) + head.resource.length + 1 + varintSize(scopeSpans) + head.scope.length);
  const w = new ProtoWriter(buf, start);
  w.byte(REQUEST_RESOURCE_SPANS);
  w.varint32(resourceSpans);
  w.raw(head.resource);
  w.byte(RESOURCE_SPANS_SCOPE_SPANS);
  w.varint32(scopeSpans);
  w.raw(head.scope);
  return start;
}

/** Bytes the prefix may take at most (every length a five-byte varint). */
export function protobufPrefixRoom(head: ProtobufBatchHead): number {
  return head.resource.length + head.scope.length + 2 * (1 + 5);
}

/** The whole request for `spans` (what a ProtobufSpanBatch sends), for tests and one-off use. */
export function otlpTracesRequestProtobuf(spans: readonly SpanRecord[], resource: Readonly<Record<string, SpanAttributeValue>>, scope: OtlpScope): Buffer {
  const head = protobufBatchHead(resource, scope);
  const room = protobufPrefixRoom(head);
  const w = new ProtoWriter(Buffer.allocUnsafe(room + 1024), room);
  for (const span of spans) writeProtobufSpan(w, span);
  const start = writeProtobufPrefix(w.buf, room, head, w.pos - room);
  return Buffer.from(w.buf.subarray(start, w.pos));
}
