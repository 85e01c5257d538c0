// JavaScript value → protobuf bytes for a message type. The accepted shapes are those
// @grpc/proto-loader produces (so a decoded value re-encodes unchanged) plus the usual
// alternatives: 64-bit integers as number | bigint | string, enums as name or number, bytes as
// Uint8Array or base64 text, maps as plain objects or Map. Implicit-presence fields holding their
// default are not written (proto3); `optional` and oneof members are written whenever set.
import type { FieldDescriptor, MessageType, ScalarType, ValueType } from "./descriptors.js";
import { ProtobufEncodeError } from "./errors.js";
import { int64Halves, toBigInt, zigzag64Halves } from "./int64.js";
import { checkEncodableString } from "./utf8.js";
import { MAX_NESTING_DEPTH, WIRE_FIXED32, WIRE_FIXED64, WIRE_LENGTH_DELIMITED, WIRE_VARINT } from "./wire-reader.js";
import { WireWriter } from "./wire-writer.js";

/** Encode `value` as a `type` message. Throws ProtobufEncodeError naming the field that does not fit. */
export function encode(type: MessageType, value: unknown): Buffer {
  const w = new WireWriter();
  writeMessage(w, type, value, type.name, 0);
  return w.finish();
}

export function wireTypeOf(scalar: ScalarType): number {
  switch (scalar) {
    case "double": case "fixed64": case "sfixed64": return WIRE_FIXED64;
    case "float": case "fixed32": case "sfixed32": return WIRE_FIXED32;
    case "string": case "bytes": return WIRE_LENGTH_DELIMITED;
    default: return WIRE_VARINT;
  }
}

function valueWireType(t: ValueType): number {
  return t.kind === "scalar" ? wireTypeOf(t.scalar) : t.kind === "enum" ? WIRE_VARINT : WIRE_LENGTH_DELIMITED;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function writeMessage(w: WireWriter, type: MessageType, value: unknown, path: string, depth: number): void {
  if (depth > MAX_NESTING_DEPTH) throw new ProtobufEncodeError(path, `messages nest deeper than ${MAX_NESTING_DEPTH}`);
  if (!isRecord(value)) throw new ProtobufEncodeError(path, `expected an object for ${type.fullName}, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`);
  for (const field of type.fieldsByNumber) {
    const v = value[field.jsName];
    if (v === undefined || v === null) continue;
    const at = `${path}.${field.jsName}`;
    switch (field.label) {
      case "repeated":
        writeRepeated(w, field, v, at, depth);
        break;
      case "map":
        writeMap(w, field, v, at, depth);
        break;
      case "optional":
        w.tag(field.number, valueWireType(field.type));
        writeValue(w, field.type, v, at, depth);
        break;
      default: {
        if (field.oneof !== undefined) {
          // With a case name set, only that member is written (proto-loader's `oneofs: true` shape).
          const chosen = value[field.oneof];
          if (typeof chosen === "string" && chosen !== field.jsName) continue;
          w.tag(field.number, valueWireType(field.type));
          writeValue(w, field.type, v, at, depth);
        } else if (field.type.kind === "message" || !isDefaultValue(field.type, v, at)) {
          w.tag(field.number, valueWireType(field.type));
          writeValue(w, field.type, v, at, depth);
        }
      }
    }
  }
}

function writeRepeated(w: WireWriter, field: FieldDescriptor, v: unknown, path: string, depth: number): void {
  if (!Array.isArray(v)) throw new ProtobufEncodeError(path, "expected an array for a repeated field");
  if (v.length === 0) return;
  if (field.packed) {
    w.tag(field.number, WIRE_LENGTH_DELIMITED);
    const start = w.beginLength();
    for (let i = 0; i < v.length; i++) writeValue(w, field.type, v[i], `${path}[${i}]`, depth);
    w.endLength(start);
    return;
  }
  const wireType = valueWireType(field.type);
  for (let i = 0; i < v.length; i++) {
    if (v[i] === null || v[i] === undefined) throw new ProtobufEncodeError(`${path}[${i}]`, "repeated fields cannot hold null");
    w.tag(field.number, wireType);
    writeValue(w, field.type, v[i], `${path}[${i}]`, depth);
  }
}

function writeMap(w: WireWriter, field: FieldDescriptor, v: unknown, path: string, depth: number): void {
  const keyType = field.mapKey!;
  const entries: Iterable<[unknown, unknown]> = v instanceof Map ? v.entries() : isRecord(v) ? Object.entries(v) : fail(path, "expected an object or Map for a map field");
  const keyWire = wireTypeOf(keyType);
  const valueWire = valueWireType(field.type);
  for (const [rawKey, entryValue] of entries) {
    const at = `${path}[${JSON.stringify(String(rawKey))}]`;
    if (entryValue === null || entryValue === undefined) throw new ProtobufEncodeError(at, "map values cannot be null");
    w.tag(field.number, WIRE_LENGTH_DELIMITED);
    const start = w.beginLength();
    w.tag(1, keyWire);
    writeScalar(w, keyType, mapKeyValue(keyType, rawKey, at), at);
    w.tag(2, valueWire);
    writeValue(w, field.type, entryValue, at, depth);
    w.endLength(start);
  }
}

/** Object keys are strings: turn "42" into 42 for integer keys, "true" into true for bool keys. */
function mapKeyValue(keyType: ScalarType, key: unknown, path: string): unknown {
  if (typeof key !== "string") return key;
  if (keyType === "string") return key;
  if (keyType === "bool") {
    if (key === "true" || key === "false") return key === "true";
    return fail(path, `invalid bool map key ${JSON.stringify(key)}`);
  }
  if (keyType.endsWith("64")) return key;
  if (!/^[+-]?\d{1,10}$/.test(key)) return fail(path, `invalid integer map key ${JSON.stringify(key.slice(0, 40))}`);
  return Number(key);
}

function fail(path: string, reason: string): never {
  throw new ProtobufEncodeError(path, reason);
}

function writeValue(w: WireWriter, type: ValueType, v: unknown, path: string, depth: number): void {
  switch (type.kind) {
    case "scalar":
      writeScalar(w, type.scalar, v, path);
      return;
    case "enum":
      w.int32(enumNumber(type.enum.numberOf, type.enum.fullName, v, path));
      return;
    case "message": {
      const start = w.beginLength();
      writeMessage(w, type.message, v, path, depth + 1);
      w.endLength(start);
    }
  }
}

function enumNumber(numberOf: ReadonlyMap<string, number>, enumName: string, v: unknown, path: string): number {
  if (typeof v === "string") {
    const n = numberOf.get(v);
    if (n === undefined) fail(path, `${JSON.stringify(v.slice(0, 60))} is not a value of ${enumName}`);
    return n;
  }
  // proto3 enums are open: any int32 is accepted.
  return int32(v, path);
}

function int32(v: unknown, path: string): number {
  if (typeof v === "number" && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647) return v;
  const n = typeof v === "number" ? NaN : Number(toBigInt(v, path));
  if (!(n >= -2147483648 && n <= 2147483647)) fail(path, `${String(v).slice(0, 40)} is out of range for a 32-bit signed integer`);
  return n;
}

function uint32(v: unknown, path: string): number {
  if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 4294967295) return v;
  const n = typeof v === "number" ? NaN : Number(toBigInt(v, path));
  if (!(n >= 0 && n <= 4294967295)) fail(path, `${String(v).slice(0, 40)} is out of range for a 32-bit unsigned integer`);
  return n;
}

function number(v: unknown, path: string): number {
  if (typeof v !== "number") fail(path, `expected a number, got ${typeof v}`);
  return v;
}

function bytesOf(v: unknown, path: string): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === "string") return Buffer.from(v, "base64");
  return fail(path, `expected bytes (Uint8Array or base64 string), got ${typeof v}`);
}

function writeScalar(w: WireWriter, scalar: ScalarType, v: unknown, path: string): void {
  switch (scalar) {
    case "double": w.double(number(v, path)); return;
    case "float": w.float(number(v, path)); return;
    case "int32": w.int32(int32(v, path)); return;
    case "uint32": w.uint32(uint32(v, path)); return;
    case "sint32": {
      const n = int32(v, path);
      w.uint32((n << 1) ^ (n >> 31));
      return;
    }
    case "fixed32": w.fixed32(uint32(v, path)); return;
    case "sfixed32": w.fixed32(int32(v, path)); return;
    case "int64": w.varint(...int64Halves(v, true, path)); return;
    case "uint64": w.varint(...int64Halves(v, false, path)); return;
    case "sint64": w.varint(...zigzag64Halves(v, path)); return;
    case "fixed64": w.fixed64(...int64Halves(v, false, path)); return;
    case "sfixed64": w.fixed64(...int64Halves(v, true, path)); return;
    case "bool":
      if (typeof v !== "boolean") fail(path, `expected a boolean, got ${typeof v}`);
      w.uint32(v ? 1 : 0);
      return;
    case "string":
      if (typeof v !== "string") fail(path, `expected a string, got ${typeof v}`);
      checkEncodableString(v, path);
      w.string(v);
      return;
    case "bytes": w.bytes(bytesOf(v, path)); return;
  }
}

/** Whether an implicit-presence value is its type's default (and so is not written). -0.0 is not. */
function isDefaultValue(type: ValueType, v: unknown, path: string): boolean {
  if (type.kind === "enum") return enumNumber(type.enum.numberOf, type.enum.fullName, v, path) === 0;
  if (type.kind === "message") return false;
  switch (type.scalar) {
    case "double": case "float": return Object.is(number(v, path), 0);
    case "bool": return v === false;
    case "string": return v === "";
    case "bytes": return bytesOf(v, path).length === 0;
    default: return v === 0 || v === "0" || v === 0n || (typeof v === "string" && /^[+-]?0+$/.test(v));
  }
}
