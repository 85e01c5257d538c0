// The record of a request's server span, as the access-log layer hands it to span sinks. A class
// rather than an object literal for one reason: an exporter can tell a record keel made from one
// made elsewhere (isKeelServerSpan) and skip checking its ids again. Those ids are keel's own:
// drawn as lowercase hex (random-hex.ts), or an incoming traceparent's, which parseTraceParent
// accepts only as lowercase hex. Checking them cost the exporter ~2,000 instructions a sampled span
// in the cold code it runs in (issue 34).
import type { SpanAttributeValue, SpanKind, SpanRecord } from "./span.js";

export class ServerSpanRecord implements SpanRecord {
  // `declare`: assigned in the constructor, without ES2022 field initializers of their own.
  declare readonly name: string;
  declare readonly kind: SpanKind;
  declare readonly traceId: string;
  declare readonly spanId: string;
  declare readonly parentSpanId: string;
  declare readonly traceFlags: string;
  declare readonly startTime: number;
  declare readonly durationMs: number;
  declare readonly status: "ok" | "error";
  declare readonly requestId: string;
  declare readonly attributes: Readonly<Record<string, SpanAttributeValue>>;

  constructor(
    name: string,
    traceId: string,
    spanId: string,
    parentSpanId: string,
    traceFlags: string,
    startTime: number,
    durationMs: number,
    status: "ok" | "error",
    requestId: string,
    attributes: Readonly<Record<string, SpanAttributeValue>>,
  ) {
    this.name = name;
    this.kind = "server";
    this.traceId = traceId;
    this.spanId = spanId;
    this.parentSpanId = parentSpanId;
    this.traceFlags = traceFlags;
    this.startTime = startTime;
    this.durationMs = durationMs;
    this.status = status;
    this.requestId = requestId;
    this.attributes = attributes;
  }
}

/**
 * True when the access-log layer made this record (a server span): its ids are lowercase hex of
 * the right lengths, so an exporter need not check them. Any other record may hold anything.
 */
export function isKeelServerSpan(record: SpanRecord): boolean {
  return record instanceof ServerSpanRecord;
}
