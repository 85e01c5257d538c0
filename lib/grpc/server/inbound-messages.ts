// Decoded request messages as an AsyncIterable for streaming handlers. Messages queue until the
// handler pulls them; past `highWater` queued messages the source is paused (HTTP/2 flow control
// then holds the client back) and resumed once the handler has caught up.
export class InboundMessages<T> implements AsyncIterable<T> {
  readonly #queue: T[] = [];
  readonly #highWater: number;
  readonly #pause: () => void;
  readonly #resume: () => void;
  #paused = false;
  #ended = false;
  #error: unknown = undefined;
  #failed = false;
  #waiter: ((step: void) => void) | undefined;
  #iterating = false;

  constructor(options: { highWater?: number; pause: () => void; resume: () => void }) {
    this.#highWater = options.highWater ?? 16;
    this.#pause = options.pause;
    this.#resume = options.resume;
  }

  push(message: T): void {
    if (this.#ended || this.#failed) return;
    this.#queue.push(message);
    if (!this.#paused && this.#queue.length >= this.#highWater) {
      this.#paused = true;
      this.#pause();
    }
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
    this.#wake();
  }

  /** All messages (for unary and server-streaming requests, which expect exactly one). */
  async collect(): Promise<T[]> {
    const all: T[] = [];
    for await (const m of this) all.push(m);
    return all;
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
            if (this.#paused && this.#queue.length < this.#highWater / 2) {
              this.#paused = false;
              this.#resume();
            }
            return { value, done: false };
          }
          if (this.#ended) return { value: undefined, done: true };
          await new Promise<void>((resolve) => (this.#waiter = resolve));
        }
      },
      return: async (): Promise<IteratorResult<T>> => {
        // The handler stopped reading: drop what is queued and let the stream flow (discarded).
        this.#queue.length = 0;
        this.#ended = true;
        if (this.#paused) {
          this.#paused = false;
          this.#resume();
        }
        return { value: undefined, done: true };
      },
    };
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }
}
