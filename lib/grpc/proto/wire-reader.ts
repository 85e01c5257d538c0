// Reads the protobuf wire format from a byte array, checking every bound: a varint longer than
// 10 bytes or wider than 64 bits, a length running past the end, an unknown wire type, all end
// in a ProtobufDecodeError before anything is allocated.
import { ProtobufDecodeError } from "./errors.js";

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LENGTH_DELIMITED = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

/** How deep messages (and groups being skipped) may nest. */
export const MAX_NESTING_DEPTH = 100;

export class WireReader {
  pos: number;
  /** The low and high 32 bits (unsigned) of the last varint read by readVarint(). */
  lo = 0;
  hi = 0;
  readonly bytes: Uint8Array;
  private readonly view: DataView;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.pos = 0;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private byte(): number {
    if (this.pos >= this.bytes.length) throw new ProtobufDecodeError("truncated varint");
    return this.bytes[this.pos++]!;
  }

  /** A varint into `lo`/`hi`. */
  readVarint(): void {
    let b = this.byte();
    if (b < 0x80) {
      this.lo = b;
      this.hi = 0;
      return;
    }
    let lo = b & 0x7f;
    let hi = 0;
    for (let shift = 7; shift < 28; shift += 7) {
      b = this.byte();
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.lo = lo >>> 0;
        this.hi = 0;
        return;
      }
    }
    b = this.byte(); // bits 28..34 straddle the halves
    lo |= (b & 0x0f) << 28;
    hi = (b & 0x7f) >>> 4;
    if (b >= 0x80) {
      for (let shift = 3; shift < 32; shift += 7) {
        b = this.byte();
        if (shift === 31) {
          // The tenth byte holds only bit 63.
          if (b >= 0x80) throw new ProtobufDecodeError("varint longer than 10 bytes");
          if (b > 1) throw new ProtobufDecodeError("varint overflows 64 bits");
        }
        hi |= (b & 0x7f) << shift;
        if (b < 0x80) break;
      }
    }
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** A varint truncated to its low 32 bits, unsigned. */
  uint32(): number {
    this.readVarint();
    return this.lo;
  }

  /** A tag: returns `fieldNumber << 3 | wireType`, unsigned, with a valid field number. */
  tag(): number {
    this.readVarint();
    if (this.hi !== 0 || this.lo >>> 3 === 0) throw new ProtobufDecodeError(`invalid tag (field number ${this.hi !== 0 ? "too large" : 0})`);
    return this.lo;
  }

  /** The bounds of a length-delimited value: returns its end; `pos` is at its start. */
  lengthDelimited(end: number): number {
    this.readVarint();
    const length = this.lo;
    if (this.hi !== 0 || length > end - this.pos) throw new ProtobufDecodeError(`length ${this.hi !== 0 ? "beyond 2^32" : length} runs past the end of the message`);
    return this.pos + length;
  }

  private need(n: number, end: number): void {
    if (n > end - this.pos) throw new ProtobufDecodeError("truncated fixed-width value");
  }

  fixed32(end: number): number {
    this.need(4, end);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /** Eight bytes into `lo`/`hi`. */
  fixed64(end: number): void {
    this.need(8, end);
    this.lo = this.view.getUint32(this.pos, true);
    this.hi = this.view.getUint32(this.pos + 4, true);
    this.pos += 8;
  }

  float(end: number): number {
    this.need(4, end);
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  double(end: number): number {
    this.need(8, end);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** Skip one value of `wireType` (an unknown field), groups included. */
  skip(wireType: number, fieldNumber: number, end: number, depth: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.readVarint();
        if (this.pos > end) throw new ProtobufDecodeError("truncated varint");
        return;
      case WIRE_FIXED64:
        this.need(8, end);
        this.pos += 8;
        return;
      case WIRE_LENGTH_DELIMITED:
        this.pos = this.lengthDelimited(end);
        return;
      case WIRE_FIXED32:
        this.need(4, end);
        this.pos += 4;
        return;
      case WIRE_START_GROUP: {
        if (depth >= MAX_NESTING_DEPTH) throw new ProtobufDecodeError(`nesting deeper than ${MAX_NESTING_DEPTH}`);
        while (true) {
          if (this.pos >= end) throw new ProtobufDecodeError(`group ${fieldNumber} has no end`);
          const tag = this.tag();
          if ((tag & 7) === WIRE_END_GROUP) {
            if (tag >>> 3 !== fieldNumber) throw new ProtobufDecodeError(`group ${fieldNumber} ended by end-group ${tag >>> 3}`);
            return;
          }
          this.skip(tag & 7, tag >>> 3, end, depth + 1);
        }
      }
      case WIRE_END_GROUP:
        throw new ProtobufDecodeError(`unexpected end-group for field ${fieldNumber}`);
      default:
        throw new ProtobufDecodeError(`invalid wire type ${wireType} for field ${fieldNumber}`);
    }
  }
}
