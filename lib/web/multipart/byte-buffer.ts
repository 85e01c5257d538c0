// A growable byte buffer (capacity doubles), for the small things a multipart body is read into
// whole: part headers and text fields. Appends copy; `view()` is valid until the next append/reset.

export class ByteBuffer {
  private bytes: Buffer;
  length = 0;

  constructor(initial = 256) {
    this.bytes = Buffer.allocUnsafe(initial);
  }

  append(chunk: Uint8Array): void {
    const need = this.length + chunk.length;
    if (need > this.bytes.length) {
      let size = this.bytes.length * 2;
      while (size < need) size *= 2;
      const grown = Buffer.allocUnsafe(size);
      this.bytes.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
    this.bytes.set(chunk, this.length);
    this.length = need;
  }

  view(): Buffer {
    return this.bytes.subarray(0, this.length);
  }

  /** A copy of the content, independent of later appends. */
  take(): Buffer {
    return Buffer.from(this.view());
  }

  reset(): void {
    this.length = 0;
  }
}
