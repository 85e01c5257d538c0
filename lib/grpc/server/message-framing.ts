// gRPC's Length-Prefixed-Message: 1-byte compressed flag, 4-byte big-endian length, the bytes.
// DATA frames cut messages anywhere, so the reader keeps partial prefixes and bodies across
// chunks and refuses a message longer than the receive limit as soon as its prefix says so,
// before buffering it. It is pulled (`next()` one message at a time) so the caller decides how
// many messages it takes in: what it leaves stays here as the bytes of the last chunk, and the
// HTTP/2 stream, paused, holds the rest back by flow control. A method that takes one request
// message refuses a second one as soon as that message's prefix is complete.
import { GrpcError } from "./grpc-error.js";
import { GrpcStatus } from "./status.js";

export const PREFIX_LENGTH = 5;

export interface FramedMessage {
  readonly compressed: boolean;
  readonly data: Buffer;
}

/** One message with its prefix, uncompressed. */
export function frameMessage(data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(PREFIX_LENGTH + data.byteLength);
  out[0] = 0;
  out.writeUInt32BE(data.byteLength, 1);
  out.set(data, PREFIX_LENGTH);
  return out;
}

/** grpc-js's wording (and code, UNIMPLEMENTED) for a second message on a single-request method. */
export const SECOND_MESSAGE = "Received a second request message";

export class MessageReader {
  readonly #maxLength: number;
  readonly #maxMessages: number;
  #chunks: Buffer[] = [];
  #buffered = 0;
  /** Length of the message being read, once its prefix is complete; -1 while reading a prefix. */
  #length = -1;
  #compressed = false;
  #started = 0;

  /** `maxMessages`: 1 for methods that take a single request message (unary, server streaming). */
  constructor(maxLength: number, maxMessages = Infinity) {
    this.#maxLength = maxLength;
    this.#maxMessages = maxMessages;
  }

  /** Bytes held: a partial prefix or message, plus complete messages not taken yet. */
  get buffered(): number {
    return this.#buffered;
  }

  /** Append a chunk of the request stream. */
  push(chunk: Buffer): void {
    if (chunk.byteLength === 0) return;
    this.#chunks.push(chunk);
    this.#buffered += chunk.byteLength;
  }

  /**
   * The next complete message, or undefined until more bytes arrive. Throws a GrpcError
   * (RESOURCE_EXHAUSTED past the limit, INTERNAL for a bad flag, UNIMPLEMENTED for a message past
   * `maxMessages`); after a throw the reader is not to be used again.
   */
  next(): FramedMessage | undefined {
    if (this.#length === -1) {
      if (this.#buffered < PREFIX_LENGTH) return undefined;
      const prefix = this.#take(PREFIX_LENGTH);
      if (++this.#started > this.#maxMessages) throw new GrpcError(GrpcStatus.UNIMPLEMENTED, SECOND_MESSAGE);
      const flag = prefix[0]!;
      if (flag > 1) throw new GrpcError(GrpcStatus.INTERNAL, `Invalid compressed flag ${flag}`);
      const length = prefix.readUInt32BE(1);
      if (length > this.#maxLength) {
        throw new GrpcError(GrpcStatus.RESOURCE_EXHAUSTED, `Received message larger than max (${length} vs. ${this.#maxLength})`);
      }
      this.#compressed = flag === 1;
      this.#length = length;
    }
    if (this.#buffered < this.#length) return undefined;
    const message: FramedMessage = { compressed: this.#compressed, data: this.#take(this.#length) };
    this.#length = -1;
    return message;
  }

  /** The request stream ended (every message taken): throws INTERNAL if a message was cut off. */
  end(): void {
    if (this.#buffered > 0 || this.#length !== -1) {
      throw new GrpcError(GrpcStatus.INTERNAL, "Request stream ended inside a message");
    }
  }

  #take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    let result: Buffer;
    const first = this.#chunks[0]!;
    if (first.byteLength >= n) {
      result = first.subarray(0, n);
      if (first.byteLength === n) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(n);
    } else {
      result = Buffer.allocUnsafe(n);
      let at = 0;
      while (at < n) {
        const head = this.#chunks[0]!;
        const used = Math.min(head.byteLength, n - at);
        head.copy(result, at, 0, used);
        at += used;
        if (used === head.byteLength) this.#chunks.shift();
        else this.#chunks[0] = head.subarray(used);
      }
    }
    this.#buffered -= n;
    return result;
  }
}
