// The collector's answer to a successful export: ExportTraceServiceResponse, whose
// partial_success.rejected_spans says how many spans it refused. A JSON answer is read as the
// protobuf JSON mapping ({"partialSuccess":{"rejectedSpans":"3"}}), a protobuf one by walking its
// fields: partial_success = 1 (LEN) holding rejected_spans = 1 (int64 varint) and
// error_message = 2, unknown fields skipped. Anything unreadable counts as no rejection.

import { isJsonMediaType } from "../plugin.js";

export type OtlpProtocol = "http/json" | "http/protobuf";

/** rejected_spans of the answer, at most `sent`; 0 when absent, not positive or unreadable. */
export function rejectedSpans(body: Buffer, contentType: string, protocol: OtlpProtocol, sent: number): number {
  if (body.length === 0) return 0;
  // The collector answers in the request's encoding; its Content-Type, when it says, decides.
  const protobuf = contentType.toLowerCase().startsWith("application/x-protobuf") || (protocol === "http/protobuf" && !isJsonMediaType(contentType));
  const n = protobuf ? protobufRejected(body) : jsonRejected(body);
  return Number.isSafeInteger(n) && n > 0 ? Math.min(n, sent) : 0;
}

function jsonRejected(body: Buffer): number {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { partialSuccess?: { rejectedSpans?: unknown } } | null;
    return Number(parsed?.partialSuccess?.rejectedSpans ?? 0);
  } catch {
    return 0;
  }
}

/** A read position in a protobuf message; -1 marks a malformed message. */
interface Cursor {
  pos: number;
}

/** A varint as a number (exact up to 2^53; a negative int64's ten bytes give a value >= 2^63, which is not a count). */
function readVarint(buf: Buffer, at: Cursor, end: number): number {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (at.pos >= end) break;
    const b = buf[at.pos++]!;
    value += (b & 0x7f) * scale;
    if (b < 0x80) return value;
    scale *= 128;
  }
  at.pos = -1;
  return 0;
}

/** Skip one field's value of `wireType`; false when it cannot be skipped. */
function skipField(buf: Buffer, at: Cursor, end: number, wireType: number): boolean {
  switch (wireType) {
    case 0:
      readVarint(buf, at, end);
      return at.pos >= 0;
    case 1:
      at.pos += 8;
      return at.pos <= end;
    case 2: {
      const length = readVarint(buf, at, end);
      if (at.pos < 0) return false;
      at.pos += length;
      return at.pos <= end;
    }
    case 5:
      at.pos += 4;
      return at.pos <= end;
    default:
      return false; // groups (3, 4) and unknown wire types
  }
}

/** Find field `field` with wire type `wireType` in buf[at.pos, end); its value starts at at.pos. */
function seek(buf: Buffer, at: Cursor, end: number, field: number, wireType: number): boolean {
  while (at.pos >= 0 && at.pos < end) {
    const tag = readVarint(buf, at, end);
    if (at.pos < 0) return false;
    if (tag === field * 8 + wireType) return true;
    if (!skipField(buf, at, end, tag % 8)) {
      at.pos = -1;
      return false;
    }
  }
  return false;
}

function protobufRejected(body: Buffer): number {
  const at: Cursor = { pos: 0 };
  // The last occurrence of a singular field wins in protobuf; a collector writes one.
  let rejected = 0;
  while (seek(body, at, body.length, 1, 2)) {
    const length = readVarint(body, at, body.length);
    if (at.pos < 0 || at.pos + length > body.length) return 0;
    const end = at.pos + length;
    const inner: Cursor = { pos: at.pos };
    while (seek(body, inner, end, 1, 0)) rejected = readVarint(body, inner, end);
    if (inner.pos < 0) return 0;
    at.pos = end;
  }
  return at.pos < 0 ? 0 : rejected;
}
