// permessage-deflate codec (RFC 7692 §7.2) over node:zlib, one compressor and one inflater
// per connection, created on first use. Work is asynchronous (zlib's thread pool) and the
// caller runs one job per direction at a time, so messages keep their order. Each message
// ends with a sync flush; the final 00 00 ff ff is stripped on the way out and appended on
// the way in. Without context takeover the stream is reset after each message. Inflated
// output is counted as it is produced: past the limit the job fails at once (zip bombs).
import { constants, createDeflateRaw, createInflateRaw, type DeflateRaw, type InflateRaw } from "node:zlib";
import type { DeflateParams } from "./deflate-negotiation.js";

const TRAILER = Buffer.from([0x00, 0x00, 0xff, 0xff]);

export type CodecCallback = (error: Error | null, result: Buffer | null) => void;

/** Raised when the inflated message would exceed the limit (close 1009). */
export class MessageTooBigError extends RangeError {
  constructor(limit: number) {
    super(`inflated message exceeds ${limit} bytes`);
    this.name = "MessageTooBigError";
  }
}

export class PerMessageDeflate {
  readonly params: DeflateParams;
  private deflater: DeflateRaw | null = null;
  private inflater: InflateRaw | null = null;

  // Compression job in progress.
  private deflateChunks: Buffer[] = [];
  private deflateCallback: CodecCallback | null = null;

  // Inflation job in progress.
  private inflateChunks: Buffer[] = [];
  private inflateLength = 0;
  private inflateLimit = 0;
  private inflateCallback: CodecCallback | null = null;

  constructor(params: DeflateParams) {
    this.params = params;
    this.onDeflateData = this.onDeflateData.bind(this);
    this.onDeflateFlushed = this.onDeflateFlushed.bind(this);
    this.onInflateData = this.onInflateData.bind(this);
    this.onInflateFlushed = this.onInflateFlushed.bind(this);
    this.onInflateError = this.onInflateError.bind(this);
    this.onDeflateError = this.onDeflateError.bind(this);
  }

  /** Whether a message of this size is worth compressing. */
  shouldCompress(length: number): boolean {
    return length >= this.params.threshold;
  }

  /** Compress one whole message. One job at a time. */
  compress(data: Uint8Array, callback: CodecCallback): void {
    if (this.deflater === null) {
      this.deflater = createDeflateRaw({
        windowBits: this.params.serverWindowBits,
        level: this.params.level,
        memLevel: this.params.memLevel,
      });
      this.deflater.on("data", this.onDeflateData);
      this.deflater.on("error", this.onDeflateError);
    }
    this.deflateCallback = callback;
    this.deflater.write(data);
    this.deflater.flush(constants.Z_SYNC_FLUSH, this.onDeflateFlushed);
  }

  /** Inflate one whole message from its frames' payloads; fails past `limit` bytes. */
  decompress(pieces: readonly Buffer[], limit: number, callback: CodecCallback): void {
    if (this.inflater === null) {
      this.inflater = createInflateRaw({ windowBits: this.params.clientWindowBits });
      this.inflater.on("data", this.onInflateData);
      this.inflater.on("error", this.onInflateError);
    }
    this.inflateCallback = callback;
    this.inflateChunks = [];
    this.inflateLength = 0;
    this.inflateLimit = limit;
    for (const piece of pieces) this.inflater.write(piece);
    this.inflater.write(TRAILER);
    this.inflater.flush(this.onInflateFlushed);
  }

  /** Free the zlib streams (connection closed). Pending callbacks are dropped. */
  close(): void {
    this.deflateCallback = null;
    this.inflateCallback = null;
    this.deflater?.close();
    this.inflater?.close();
    this.deflater = null;
    this.inflater = null;
  }

  private onDeflateData(chunk: Buffer): void {
    this.deflateChunks.push(chunk);
  }

  private onDeflateFlushed(): void {
    const callback = this.deflateCallback;
    if (callback === null) return;
    this.deflateCallback = null;
    const chunks = this.deflateChunks;
    this.deflateChunks = [];
    let data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    // A sync flush always ends with an empty stored block: 00 00 ff ff.
    data = data.subarray(0, data.length - 4);
    if (this.params.serverNoContextTakeover) this.deflater?.reset();
    callback(null, data);
  }

  private onDeflateError(error: Error): void {
    const callback = this.deflateCallback;
    this.deflateCallback = null;
    this.deflater?.close();
    this.deflater = null;
    if (callback !== null) callback(error, null);
  }

  private onInflateData(chunk: Buffer): void {
    if (this.inflateCallback === null) return;
    this.inflateLength += chunk.length;
    if (this.inflateLength > this.inflateLimit) {
      // Stop here: the rest of the bomb is never inflated.
      const callback = this.inflateCallback;
      this.inflateCallback = null;
      this.inflateChunks = [];
      this.inflater?.removeListener("data", this.onInflateData);
      this.inflater?.close();
      this.inflater = null;
      callback(new MessageTooBigError(this.inflateLimit), null);
      return;
    }
    this.inflateChunks.push(chunk);
  }

  private onInflateFlushed(): void {
    const callback = this.inflateCallback;
    if (callback === null) return;
    this.inflateCallback = null;
    const chunks = this.inflateChunks;
    this.inflateChunks = [];
    if (this.params.clientNoContextTakeover) this.inflater?.reset();
    callback(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.inflateLength));
  }

  private onInflateError(error: Error): void {
    const callback = this.inflateCallback;
    this.inflateCallback = null;
    this.inflater?.close();
    this.inflater = null;
    if (callback !== null) callback(error, null);
  }
}
