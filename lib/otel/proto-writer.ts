// The protobuf wire format written into one growable Buffer, for the OTLP/HTTP protobuf exporter:
// tags, varints (32-bit lengths and int64 values), fixed32/fixed64, doubles, strings and nested
// messages. No intermediate strings or arrays: strings are encoded straight into the buffer.
//
// A nested message's length prefix comes before its bytes, and protobuf length prefixes are
// varints, so its size is not known when it starts. beginMessage() reserves the bytes the prefix
// will most likely take; endMessage() writes the minimal varint and, in the rare case it needs
// more or fewer bytes than reserved, moves the message's bytes (copyWithin) to fit. The output is
// always canonical: no padded varints.
import { Buffer } from "node:buffer";
import { sharedBytes } from "./shared-bytes.js";

/** Bytes a varint of `n` (0 <= n < 2^32) takes. */
export function varintSize(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
}

const TWO_32 = 4294967296;

// Short strings: a UTF-16 code unit is at most 3 UTF-8 bytes, so up to 42 units fit in 126
// bytes and their length prefix is one byte, known before the bytes are written.
const SHORT_STRING = 42;

export class ProtoWriter {
  buf: Buffer;
  pos: number;

  constructor(buf: Buffer, pos = 0) {
    this.buf = buf;
    this.pos = pos;
  }

  /**
   * Make room for `bytes` more bytes (the buffer doubles; what was written is kept). A buffer in
   * shared memory (a batch's, see shared-bytes.ts) grows into shared memory.
   */
  ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const size = Math.max(this.buf.length * 2, this.pos + bytes);
    const grown = this.buf.buffer instanceof SharedArrayBuffer ? sharedBytes(size) : Buffer.allocUnsafe(size);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** One byte (a tag of a field number < 16, or a small value); the caller ensured room. */
  byte(b: number): void {
    this.buf[this.pos++] = b;
  }

  /** A varint of 0 <= n < 2^32. */
  varint32(n: number): void {
    this.ensure(5);
    const buf = this.buf;
    let pos = this.pos;
    while (n > 0x7f) {
      buf[pos++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    buf[pos++] = n;
    this.pos = pos;
  }

  /** An int64 varint of a safe integer: negatives as 64-bit two's complement (ten bytes). */
  int64(v: number): void {
    if (v >= 0 && v <= 0x7fffffff) {
      this.varint32(v);
      return;
    }
    const hi = Math.floor(v / TWO_32);
    this.varint64(v - hi * TWO_32, hi >>> 0);
  }

  /** A varint of the 64-bit value hi * 2^32 + lo (both unsigned 32-bit). */
  varint64(lo: number, hi: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (hi > 0 || lo > 0x7f) {
      buf[pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    buf[pos++] = lo;
    this.pos = pos;
  }

  fixed32(n: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(n >>> 0, this.pos);
    this.pos += 4;
  }

  /** A fixed64 of hi * 2^32 + lo. */
  fixed64(lo: number, hi: number): void {
    this.ensure(8);
    this.buf.writeUInt32LE(lo, this.pos);
    this.buf.writeUInt32LE(hi, this.pos + 4);
    this.pos += 8;
  }

  double(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  /** Bytes given as they are (a precomputed field). */
  raw(bytes: Uint8Array): void {
    const n = bytes.length;
    this.ensure(n);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < n; i++) buf[pos++] = bytes[i]!;
    this.pos = pos;
  }

  /** A string field: `tag` (one byte), the UTF-8 byte length, the UTF-8 bytes. */
  string(tag: number, text: string): void {
    const n = text.length;
    if (n <= SHORT_STRING) {
      this.ensure(2 + 3 * n);
      const buf = this.buf;
      const start = this.pos + 2;
      // ASCII as a loop (cheaper than a call into C++ for a short string), else the encoder.
      let p = start;
      for (let i = 0; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c >= 0x80) {
          p = start + buf.write(text, start, "utf8");
          break;
        }
        buf[p++] = c;
      }
      buf[this.pos] = tag;
      buf[this.pos + 1] = p - start;
      this.pos = p;
      return;
    }
    const bytes = Buffer.byteLength(text, "utf8");
    this.ensure(6 + bytes);
    this.buf[this.pos++] = tag;
    this.varint32(bytes);
    this.pos += this.buf.write(text, this.pos, "utf8");
  }

  /** Start a nested message after its tag: reserves `guess` bytes for the length; returns the mark for endMessage(). */
  beginMessage(guess: number): number {
    this.ensure(guess);
    const at = this.pos;
    this.pos += guess;
    return at;
  }

  /** Write the length of the message begun at `at` with `guess` reserved bytes, moving it if the varint's size differs. */
  endMessage(at: number, guess: number): void {
    const length = this.pos - at - guess;
    const size = varintSize(length);
    if (size !== guess) {
      this.ensure(size - guess);
      this.buf.copyWithin(at + size, at + guess, this.pos);
      this.pos += size - guess;
    }
    const buf = this.buf;
    let n = length;
    let p = at;
    while (n > 0x7f) {
      buf[p++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    buf[p] = n;
  }
}
