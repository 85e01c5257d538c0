// Protobuf bytes → JavaScript value, in the shape @grpc/proto-loader gives with
// { longs: String, enums: String, defaults: true, oneofs: true }: 64-bit integers as decimal
// strings, enums by name (unknown numbers stay numbers: proto3 enums are open), bytes as Buffer,
// maps as null-prototype objects, defaults filled for implicit-presence fields (messages: null),
// `optional` fields absent when not sent, and each set oneof named by its member in a virtual
// property. Unknown fields are skipped. A repeated message field that appears twice merges, as
// protobuf requires.
import type { FieldDescriptor, MessageType, ScalarType, ValueType } from "./descriptors.js";
import { wireTypeOf } from "./encode.js";
import { ProtobufDecodeError } from "./errors.js";
import { int64String, uint64String, zigzag64String } from "./int64.js";
import { decodeUtf8 } from "./utf8.js";
import { MAX_NESTING_DEPTH, WIRE_LENGTH_DELIMITED, WIRE_VARINT, WireReader } from "./wire-reader.js";

export type DecodedMessage = Record<string, unknown>;

/** Decode `bytes` as a `type` message. Throws only ProtobufDecodeError. */
export function decode(type: MessageType, bytes: Uint8Array): DecodedMessage {
  if (!(bytes instanceof Uint8Array)) throw new ProtobufDecodeError("expected bytes (a Uint8Array)");
  const r = new WireReader(bytes);
  try {
    return readMessage(r, type, bytes.length, 0, undefined);
  } catch (err) {
    if (err instanceof ProtobufDecodeError) throw err;
    // Defensive: nothing else is expected, but callers are promised a single error class.
    throw new ProtobufDecodeError(`malformed message: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** A message of `type` holding only defaults: what an empty encoding decodes to. */
export function defaultMessage(type: MessageType): DecodedMessage {
  const out: DecodedMessage = {};
  for (const f of type.fields) {
    if (f.label === "repeated") out[f.jsName] = [];
    else if (f.label === "map") out[f.jsName] = Object.create(null);
    else if (f.label === "implicit" && f.oneof === undefined) out[f.jsName] = defaultValue(f.type);
  }
  return out;
}

function defaultValue(t: ValueType): unknown {
  if (t.kind === "message") return null;
  if (t.kind === "enum") return t.enum.nameOf.get(0) ?? 0;
  switch (t.scalar) {
    case "int64": case "uint64": case "sint64": case "fixed64": case "sfixed64": return "0";
    case "bool": return false;
    case "string": return "";
    case "bytes": return Buffer.alloc(0);
    default: return 0;
  }
}

/** A value of a map entry whose value field was not sent: messages become an empty message. */
function mapDefault(t: ValueType): unknown {
  return t.kind === "message" ? defaultMessage(t.message) : defaultValue(t);
}

function isPackable(t: ValueType): boolean {
  return t.kind === "enum" || (t.kind === "scalar" && t.scalar !== "string" && t.scalar !== "bytes");
}

function expectedWireType(t: ValueType): number {
  return t.kind === "scalar" ? wireTypeOf(t.scalar) : t.kind === "enum" ? WIRE_VARINT : WIRE_LENGTH_DELIMITED;
}

function readMessage(r: WireReader, type: MessageType, end: number, depth: number, into: DecodedMessage | undefined): DecodedMessage {
  if (depth > MAX_NESTING_DEPTH) throw new ProtobufDecodeError(`messages nest deeper than ${MAX_NESTING_DEPTH}`);
  const out = into ?? defaultMessage(type);
  while (r.pos < end) {
    const tag = r.tag();
    const number = tag >>> 3;
    const wireType = tag & 7;
    const field = type.fieldOfNumber.get(number);
    if (field === undefined) {
      r.skip(wireType, number, end, depth);
      continue;
    }
    const expected = expectedWireType(field.type);
    if (field.label === "repeated") {
      const list = out[field.jsName] as unknown[];
      if (wireType === WIRE_LENGTH_DELIMITED && isPackable(field.type)) {
        // Packed (accepted whether or not the field is declared packed).
        const packedEnd = r.lengthDelimited(end);
        while (r.pos < packedEnd) list.push(readValue(r, field.type, packedEnd, depth, undefined));
        if (r.pos !== packedEnd) throw new ProtobufDecodeError(`packed field ${number} overruns its length`);
      } else if (wireType === expected) {
        list.push(readValue(r, field.type, end, depth, undefined));
      } else {
        r.skip(wireType, number, end, depth);
      }
      continue;
    }
    if (wireType !== expected && !(field.label === "map" && wireType === WIRE_LENGTH_DELIMITED)) {
      // A known number with the wrong wire type is treated as an unknown field (as protobuf does).
      r.skip(wireType, number, end, depth);
      continue;
    }
    if (field.label === "map") {
      readMapEntry(r, field, out[field.jsName] as Record<string, unknown>, end, depth);
      continue;
    }
    if (field.oneof !== undefined) {
      const current = out[field.oneof];
      if (current !== undefined && current !== field.jsName) delete out[current as string];
      out[field.oneof] = field.jsName;
    }
    const existing = field.type.kind === "message" ? (out[field.jsName] as DecodedMessage | null | undefined) ?? undefined : undefined;
    out[field.jsName] = readValue(r, field.type, end, depth, existing);
  }
  if (r.pos !== end) throw new ProtobufDecodeError("a field runs past the end of its message");
  return out;
}

function readMapEntry(r: WireReader, field: FieldDescriptor, map: Record<string, unknown>, end: number, depth: number): void {
  const entryEnd = r.lengthDelimited(end);
  if (depth + 1 > MAX_NESTING_DEPTH) throw new ProtobufDecodeError(`messages nest deeper than ${MAX_NESTING_DEPTH}`);
  const keyType = field.mapKey!;
  let key: unknown;
  let value: unknown;
  let valueSet = false;
  while (r.pos < entryEnd) {
    const tag = r.tag();
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (number === 1 && wireType === wireTypeOf(keyType)) key = readScalar(r, keyType, entryEnd);
    else if (number === 2 && wireType === expectedWireType(field.type)) {
      value = readValue(r, field.type, entryEnd, depth + 1, valueSet && field.type.kind === "message" ? (value as DecodedMessage) : undefined);
      valueSet = true;
    } else r.skip(wireType, number, entryEnd, depth + 1);
  }
  if (r.pos !== entryEnd) throw new ProtobufDecodeError(`map entry of field ${field.number} overruns its length`);
  const keyText = key === undefined ? (keyType === "bool" ? "false" : keyType === "string" ? "" : "0") : String(key);
  map[keyText] = valueSet ? value : mapDefault(field.type);
}

function readValue(r: WireReader, t: ValueType, end: number, depth: number, into: DecodedMessage | undefined): unknown {
  switch (t.kind) {
    case "scalar":
      return readScalar(r, t.scalar, end);
    case "enum": {
      r.readVarint();
      if (r.pos > end) throw new ProtobufDecodeError("truncated varint");
      const n = r.lo | 0;
      return t.enum.nameOf.get(n) ?? n;
    }
    case "message": {
      const messageEnd = r.lengthDelimited(end);
      return readMessage(r, t.message, messageEnd, depth + 1, into);
    }
  }
}

function readScalar(r: WireReader, scalar: ScalarType, end: number): unknown {
  switch (scalar) {
    case "double": return r.double(end);
    case "float": return r.float(end);
    case "fixed32": return r.fixed32(end);
    case "sfixed32": return r.fixed32(end) | 0;
    case "fixed64":
      r.fixed64(end);
      return uint64String(r.lo, r.hi);
    case "sfixed64":
      r.fixed64(end);
      return int64String(r.lo, r.hi);
    case "string": {
      const stringEnd = r.lengthDelimited(end);
      const s = decodeUtf8(r.bytes, r.pos, stringEnd);
      r.pos = stringEnd;
      return s;
    }
    case "bytes": {
      const bytesEnd = r.lengthDelimited(end);
      const b = Buffer.from(r.bytes.subarray(r.pos, bytesEnd)); // a copy: the input buffer may be reused
      r.pos = bytesEnd;
      return b;
    }
  }
  r.readVarint();
  if (r.pos > end) throw new ProtobufDecodeError("truncated varint");
  switch (scalar) {
    case "int32": return r.lo | 0;
    case "uint32": return r.lo;
    case "sint32": return (r.lo >>> 1) ^ -(r.lo & 1);
    case "int64": return int64String(r.lo, r.hi);
    case "uint64": return uint64String(r.lo, r.hi);
    case "sint64": return zigzag64String(r.lo, r.hi);
    case "bool": return r.lo !== 0 || r.hi !== 0;
  }
}
