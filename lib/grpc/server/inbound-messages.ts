// Request messages between the HTTP/2 stream and the handler, bounded in messages and bytes.
// A message counts from the moment it is taken off the wire (still to be inflated and decoded)
// until the handler pulls it; while the count or the bytes are at their limit the caller stops
// reading (`hasRoom()` is false) and pauses the stream, so HTTP/2 flow control holds the client back, and
// `resume` is called once the handler has caught up to half of both limits. A compressed
// message counts as the receive limit until it is inflated (its real size is not known before),
// so at most one inflated message is ever beyond the byte limit.

/** Messages taken in ahead of the handler (grpc-js takes one at a time). */
export const INBOUND_MAX_MESSAGES = 16;
/** Their bytes (decoded sizes; a compressed one counts as the receive limit until inflated). */
export const INBOUND_MAX_BYTES = 256 * 1024;

export class InboundMessages<T> implements AsyncIterable<T> {
  readonly #queue: T[] = [];
  /** Byte size of each queued message, in queue order. */
  readonly #sizes: number[] = [];
  readonly #maxMessages: number;
  readonly #maxBytes: number;
  readonly #resume: () => void;
  /** Messages and bytes taken in and not yet pulled by the handler (queued or being decoded). */
  #count = 0;
  #bytes = 0;
  #stalled = false;
  #ended = false;
  #discarding = false;
  #error: unknown = undefined;
  #failed = false;
  #waiter: ((step: void) => void) | undefined;
  #iterating = false;

  constructor(options: { maxMessages?: number; maxBytes?: number; resume: () => void }) {
    this.#maxMessages = options.maxMessages ?? INBOUND_MAX_MESSAGES;
    this.#maxBytes = options.maxBytes ?? INBOUND_MAX_BYTES;
    this.#resume = options.resume;
  }

  /** Whether the caller may take another message in; after a false, `resume` is called once it may. */
  hasRoom(): boolean {
    if (this.#discarding || (this.#count < this.#maxMessages && this.#bytes < this.#maxBytes)) return true;
    this.#stalled = true;
    return false;
  }

  /** A message was taken off the wire; `bytes` is what it will hold once decoded (or an upper bound). */
  admit(bytes: number): void {
    if (this.#discarding) return;
    this.#count++;
    this.#bytes += bytes;
  }

  /** The admitted message, decoded; `admitted` is what admit() counted and `bytes` its real size. */
  push(message: T, admitted: number, bytes: number): void {
    if (this.#ended || this.#failed) return;
    this.#bytes += bytes - admitted;
    this.#queue.push(message);
    this.#sizes.push(bytes);
    this.#release(0, 0); // an inflated message may have made room
    this.#wake();
  }

  /** The client half-closed: iteration ends after the queued messages. */
  end(): void {
    this.#ended = true;
    this.#wake();
  }

  /** The call failed: the iterator throws `error` (after nothing more is delivered). */
  fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#error = error;
    this.#queue.length = 0;
    this.#sizes.length = 0;
    this.#wake();
  }

  /**
   * The one request message of a unary or server-streaming call, once the client half-closed;
   * undefined if there was none. (A second message fails the call before it gets here.)
   */
  async only(): Promise<T | undefined> {
    let first: T | undefined;
    for await (const m of this) first ??= m;
    return first;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#iterating) throw new Error("grpc: request messages can be iterated once");
    this.#iterating = true;
    return {
      next: async (): Promise<IteratorResult<T>> => {
        for (;;) {
          if (this.#failed) throw this.#error;
          if (this.#queue.length > 0) {
            const value = this.#queue.shift()!;
            this.#release(1, this.#sizes.shift()!);
            return { value, done: false };
          }
          if (this.#ended) return { value: undefined, done: true };
          await new Promise<void>((resolve) => (this.#waiter = resolve));
        }
      },
      return: async (): Promise<IteratorResult<T>> => {
        // The handler stopped reading: drop what is queued and let the stream flow (discarded).
        this.#queue.length = 0;
        this.#sizes.length = 0;
        this.#ended = true;
        this.#discarding = true;
        this.#count = 0;
        this.#bytes = 0;
        this.#release(0, 0);
        return { value: undefined, done: true };
      },
    };
  }

  #release(count: number, bytes: number): void {
    this.#count -= count;
    this.#bytes -= bytes;
    if (this.#stalled && (this.#discarding || (this.#count <= this.#maxMessages / 2 && this.#bytes <= this.#maxBytes / 2))) {
      this.#stalled = false;
      this.#resume();
    }
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }
}
