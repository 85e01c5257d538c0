// Backend message framing: a type byte and an Int32 length (counting itself), collected across
// socket chunks. A message announcing more than maxMessageBytes is refused before anything is
// allocated at that size: the connection is closed with an error (the peer is broken or hostile).

export interface BackendMessage {
  readonly type: number;
  /** The body, without type and length (a view into the received bytes). */
  readonly body: Buffer;
}

export class MessageTooLargeError extends Error {}

/** Nothing buffered (shared: a chunk that ends on a message boundary allocates nothing). */
const NONE = Buffer.alloc(0);

export class MessageReader {
  readonly #maxMessageBytes: number;
  #buffer: Buffer = NONE;

  constructor(maxMessageBytes: number) {
    this.#maxMessageBytes = maxMessageBytes;
  }

  /** Buffered bytes not yet a whole message. */
  get pending(): number {
    return this.#buffer.length;
  }

  /** Feeds a chunk; calls `onMessage` for each whole message. Throws MessageTooLargeError. */
  push(chunk: Buffer, onMessage: (type: number, body: Buffer) => void): void {
    const buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    let at = 0;
    while (buffer.length - at >= 5) {
      const length = buffer.readInt32BE(at + 1);
      if (length < 4 || length - 4 > this.#maxMessageBytes) {
        this.#buffer = NONE;
        throw new MessageTooLargeError(`the server sent a message of ${length - 4} bytes, over maxMessageBytes (${this.#maxMessageBytes})`);
      }
      if (buffer.length - at < 1 + length) break;
      const type = buffer[at]!;
      const body = buffer.subarray(at + 5, at + 1 + length);
      at += 1 + length;
      onMessage(type, body);
    }
    // Copy the tail so a small leftover does not pin a large chunk.
    this.#buffer = at === buffer.length ? NONE : Buffer.from(buffer.subarray(at));
  }
}
