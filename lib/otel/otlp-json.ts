// The OTLP/HTTP JSON body for a batch of finished spans (ExportTraceServiceRequest in the
// protobuf JSON mapping the OTLP spec prescribes): trace and span ids as lowercase hex, not
// base64; enums as integers; 64-bit integers (times, int attributes) as decimal strings.
// otlp-protobuf.ts writes the same content as protobuf.
import type { SpanAttributeValue, SpanRecord } from "../service/index.js";

/** OTLP `SpanKind`. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
/** OTLP `Status.StatusCode`: OK and ERROR (keel never leaves a finished span UNSET). */
export const STATUS_CODE = { ok: 1, error: 2 } as const;

export type OtlpAnyValue = { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };

export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  flags: number;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  status: { code: number };
}

export interface OtlpTracesRequest {
  resourceSpans: Array<{
    resource: { attributes: OtlpKeyValue[] };
    scopeSpans: Array<{ scope: { name: string; version: string }; spans: OtlpSpan[] }>;
  }>;
}

/** The instrumentation scope every keel span is reported under. */
export interface OtlpScope {
  readonly name: string;
  readonly version: string;
}

/** One attribute value: whole numbers in the int64 range as intValue, other numbers as doubleValue. */
export function otlpValue(value: SpanAttributeValue): OtlpAnyValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (Number.isSafeInteger(value)) return { intValue: String(value) };
  return { doubleValue: value };
}

export function otlpAttributes(attrs: Readonly<Record<string, SpanAttributeValue>>): OtlpKeyValue[] {
  const out: OtlpKeyValue[] = [];
  for (const key of Object.keys(attrs)) {
    const value = attrs[key];
    if (value === undefined) continue;
    // NaN and infinities have no JSON form; drop them rather than send null.
    if (typeof value === "number" && !Number.isFinite(value)) continue;
    out.push({ key, value: otlpValue(value) });
  }
  return out;
}

/**
 * Epoch milliseconds (fractional) as decimal nanoseconds, without going through a lossy double:
 * the whole milliseconds, then the nanoseconds within the millisecond as six digits.
 */
export function unixNanos(epochMs: number): string {
  let whole = Math.floor(epochMs);
  let fraction = Math.round((epochMs - whole) * 1e6);
  if (fraction === 1e6) {
    whole += 1;
    fraction = 0;
  }
  if (whole === 0) return String(fraction);
  const digits = String(fraction);
  return String(whole) + "000000".slice(digits.length) + digits;
}

export function otlpSpan(record: SpanRecord): OtlpSpan {
  const attributes = otlpAttributes(record.attributes);
  if (record.requestId !== "") attributes.push({ key: "keel.request_id", value: { stringValue: record.requestId } });
  const flags = Number.parseInt(record.traceFlags, 16);
  const span: OtlpSpan = {
    traceId: record.traceId,
    spanId: record.spanId,
    flags: Number.isInteger(flags) ? flags & 0xff : 0,
    name: record.name,
    kind: SPAN_KIND[record.kind],
    startTimeUnixNano: unixNanos(record.startTime),
    endTimeUnixNano: unixNanos(record.startTime + record.durationMs),
    attributes,
    status: { code: STATUS_CODE[record.status] },
  };
  if (record.parentSpanId !== "") span.parentSpanId = record.parentSpanId;
  return span;
}

/** The request body for one batch: one resource, one scope. */
export function otlpTracesRequest(spans: readonly SpanRecord[], resource: Readonly<Record<string, SpanAttributeValue>>, scope: OtlpScope): OtlpTracesRequest {
  return {
    resourceSpans: [
      {
        resource: { attributes: otlpAttributes(resource) },
        scopeSpans: [{ scope: { name: scope.name, version: scope.version }, spans: spans.map(otlpSpan) }],
      },
    ],
  };
}

// ---- the same body written as text, for the exporter: no object tree per span ----

// Attribute keys and most values repeat from span to span (method, route, scheme, address):
// their JSON text is kept, up to a bound, instead of being escaped again for every span.
const QUOTED_MAX = 4096;
const quotedCache = new Map<string, string>();

function quoted(text: string): string {
  let q = quotedCache.get(text);
  if (q === undefined) {
    q = JSON.stringify(text);
    if (quotedCache.size < QUOTED_MAX && text.length <= 256) quotedCache.set(text, q);
  }
  return q;
}

function anyValueJson(value: SpanAttributeValue): string {
  if (typeof value === "string") return '{"stringValue":' + quoted(value) + "}";
  if (typeof value === "boolean") return value ? '{"boolValue":true}' : '{"boolValue":false}';
  if (Number.isSafeInteger(value)) return '{"intValue":"' + value + '"}';
  return '{"doubleValue":' + value + "}";
}

/**
 * `otlpAttributes` as JSON text (without the brackets); "" when there is none. Own keys only:
 * for-in walks the prototype chain too, so an inherited key is skipped (span attributes are plain
 * fast-mode objects of one shape, whose for-in uses V8's cached key list; measured cheaper per span
 * than copying the keys with Object.keys).
 */
function attributesJson(attrs: Readonly<Record<string, SpanAttributeValue>>): string {
  let out = "";
  for (const key in attrs) {
    if (!Object.hasOwn(attrs, key)) continue;
    const value = attrs[key];
    if (value === undefined || (typeof value === "number" && !Number.isFinite(value))) continue;
    out += (out === "" ? "" : ",") + attributeJson(key, value);
  }
  return out;
}

// Whole `{"key":…,"value":{…}}` texts by key, then by value: a server span's attributes are nearly
// all the same from one span to the next (scheme, address, port, method, route, status), so one
// lookup replaces the escaping and five concatenations, and the span's text has far fewer pieces
// to flatten when it is written out. Bounded like `quoted`: past the bound a text is built anew.
const SEGMENTS_MAX = 4096;
let segmentCount = 0;
const segmentCache = new Map<string, Map<SpanAttributeValue, string>>();

function attributeJson(key: string, value: SpanAttributeValue): string {
  let byValue = segmentCache.get(key);
  let text = byValue?.get(value);
  if (text !== undefined) return text;
  text = '{"key":' + quoted(key) + ',"value":' + anyValueJson(value) + "}";
  if (segmentCount < SEGMENTS_MAX && key.length <= 256 && (typeof value !== "string" || value.length <= 256)) {
    if (byValue === undefined) segmentCache.set(key, (byValue = new Map()));
    byValue.set(value, text);
    segmentCount++;
  }
  return text;
}

/** `JSON.stringify(otlpSpan(record))`, written directly (the exporter's per-span cost). */
export function otlpSpanJson(record: SpanRecord): string {
  let attributes = attributesJson(record.attributes);
  if (record.requestId !== "") attributes += (attributes === "" ? "" : ",") + '{"key":"keel.request_id","value":{"stringValue":' + JSON.stringify(record.requestId) + "}}";
  const flags = Number.parseInt(record.traceFlags, 16);
  return (
    // Ids are lowercase hex: the exporter drops any record whose ids are not (hasHexIds).
    '{"traceId":"' + record.traceId +
    '","spanId":"' + record.spanId + '"' +
    ',"flags":' + (Number.isInteger(flags) ? flags & 0xff : 0) +
    ',"name":' + quoted(record.name) +
    ',"kind":' + SPAN_KIND[record.kind] +
    ',"startTimeUnixNano":"' + unixNanos(record.startTime) +
    '","endTimeUnixNano":"' + unixNanos(record.startTime + record.durationMs) +
    '","attributes":[' + attributes +
    '],"status":{"code":' + STATUS_CODE[record.status] + "}" +
    (record.parentSpanId === "" ? "" : ',"parentSpanId":"' + record.parentSpanId + '"') +
    "}"
  );
}

/** `JSON.stringify(otlpTracesRequest(...))`, written directly. */
export function otlpTracesRequestJson(spans: readonly SpanRecord[], resource: Readonly<Record<string, SpanAttributeValue>>, scope: OtlpScope): string {
  let body = '{"resourceSpans":[{"resource":{"attributes":[' + attributesJson(resource) + ']},"scopeSpans":[{"scope":{"name":' + JSON.stringify(scope.name) + ',"version":' + JSON.stringify(scope.version) + '},"spans":[';
  for (let i = 0; i < spans.length; i++) body += (i === 0 ? "" : ",") + otlpSpanJson(spans[i]!);
  return body + "]}]}]}";
}
