// One connection, one unit of work at a time: while a transaction (or a savepoint inside it) is
// open, every other statement on the same scope waits its turn, or it would run inside that
// transaction. Waiters are bounded in number (`maxQueue`) and in time (`waitTimeoutMs`, the
// busy timeout); past either the call is refused with SQLITE_BUSY, which keel/db-errors answers
// as a 503, as a pool's acquire queue does.

/** An error shaped like SQLite's own SQLITE_BUSY, so keel/db-errors maps it (503). */
export class SqliteBusyError extends Error {
  override readonly name = "SqliteBusyError";
  readonly code = "SQLITE_BUSY";
  readonly errcode = 5;
}

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
  timer: ReturnType<typeof setTimeout> | null;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | null;
}

export class WorkQueue {
  readonly #maxQueue: number;
  readonly #waitTimeoutMs: number;
  readonly #waiters: Waiter[] = [];
  #held = false;
  #refused = 0;

  constructor(maxQueue: number, waitTimeoutMs: number) {
    this.#maxQueue = maxQueue;
    this.#waitTimeoutMs = waitTimeoutMs;
  }

  /** True when nothing holds the queue and nobody waits: the caller may run now, synchronously. */
  get free(): boolean {
    return !this.#held && this.#waiters.length === 0;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  /** Calls refused because the queue was full or the wait timed out. */
  get refused(): number {
    return this.#refused;
  }

  /** Takes the queue; resolves when it is this caller's turn. Release with `release()`. */
  acquire(signal?: AbortSignal, timeoutMs: number = this.#waitTimeoutMs): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    if (this.free) {
      this.#held = true;
      return Promise.resolve();
    }
    if (this.#waiters.length >= this.#maxQueue) {
      this.#refused++;
      return Promise.reject(new SqliteBusyError(`keel/sqlite: ${this.#waiters.length} calls already wait for the database (maxQueue)`));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, timer: null, signal, onAbort: null };
      const leave = (err: unknown) => {
        const at = this.#waiters.indexOf(waiter);
        if (at === -1) return;
        this.#waiters.splice(at, 1);
        this.#settle(waiter);
        reject(err);
      };
      waiter.timer = setTimeout(() => {
        this.#refused++;
        leave(new SqliteBusyError(`keel/sqlite: waited ${timeoutMs} ms for the database (busyTimeoutMs): a transaction holds it`));
      }, timeoutMs);
      waiter.timer.unref?.();
      if (signal !== undefined) {
        waiter.onAbort = () => leave(signal.reason);
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.#waiters.push(waiter);
    });
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next === undefined) {
      this.#held = false;
      return;
    }
    this.#settle(next);
    next.resolve();
  }

  #settle(waiter: Waiter): void {
    if (waiter.timer !== null) clearTimeout(waiter.timer);
    if (waiter.onAbort !== null) waiter.signal?.removeEventListener("abort", waiter.onAbort);
  }
}
