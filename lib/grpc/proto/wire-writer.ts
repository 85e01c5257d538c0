// Writes the protobuf wire format into one growing buffer. Nested messages reserve five bytes
// for their length and close the gap afterwards, so nothing is encoded twice.
export class WireWriter {
  private buf: Buffer = Buffer.allocUnsafe(256);
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  pos = 0;

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
  }

  /** A varint from unsigned 32-bit halves. */
  varint(lo: number, hi: number): void {
    this.ensure(10);
    const buf = this.buf;
    lo >>>= 0;
    hi >>>= 0;
    while (hi !== 0 || lo > 0x7f) {
      buf[this.pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    buf[this.pos++] = lo;
  }

  uint32(n: number): void {
    this.varint(n >>> 0, 0);
  }

  /** int32 and enums: a negative value is sign-extended to 64 bits (ten bytes on the wire). */
  int32(n: number): void {
    this.varint(n >>> 0, n < 0 ? 0xffffffff : 0);
  }

  tag(fieldNumber: number, wireType: number): void {
    this.uint32(((fieldNumber << 3) | wireType) >>> 0);
  }

  fixed32(n: number): void {
    this.ensure(4);
    this.view.setUint32(this.pos, n >>> 0, true);
    this.pos += 4;
  }

  fixed64(lo: number, hi: number): void {
    this.ensure(8);
    this.view.setUint32(this.pos, lo >>> 0, true);
    this.view.setUint32(this.pos + 4, hi >>> 0, true);
    this.pos += 8;
  }

  float(v: number): void {
    this.ensure(4);
    this.view.setFloat32(this.pos, v, true);
    this.pos += 4;
  }

  double(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  /** Length-prefixed bytes. */
  bytes(b: Uint8Array): void {
    this.uint32(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Length-prefixed UTF-8. */
  string(s: string): void {
    const length = Buffer.byteLength(s, "utf8");
    this.uint32(length);
    this.ensure(length);
    this.pos += this.buf.write(s, this.pos, length, "utf8");
  }

  /** Start a length-delimited value whose length is not known yet; pass the result to endLength(). */
  beginLength(): number {
    this.ensure(5);
    this.pos += 5;
    return this.pos;
  }

  endLength(start: number): void {
    const length = this.pos - start;
    let size = 1;
    for (let n = length >>> 7; n !== 0; n >>>= 7) size++;
    const at = start - 5;
    if (size < 5) this.buf.copyWithin(at + size, start, this.pos);
    // Written in place: the space is already there (a call to varint() could regrow and lose the body).
    let n = length;
    let p = at;
    while (n > 0x7f) {
      this.buf[p++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.buf[p] = n;
    this.pos = at + size + length;
  }

  /** The bytes written (a copy, so the writer's buffer can be dropped). */
  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }
}
