// The body of a server-sent event reply (see sse.ts): an object-mode Readable of event texts that
// the writer pipes like any other stream, with backpressure.
//
// Bounded: a function source may call `send()` without awaiting it (a listener on some event
// bus). Once the socket and the stream's own buffer are full, such events wait in a queue of at
// most `maxBufferedBytes`; past that the client is too slow to be served and the stream is
// destroyed with an error (logged by the writer), freeing everything it held. Ending is the
// policy rather than dropping events: an EventSource reconnects with Last-Event-ID and can be
// told what it missed, while a silently dropped event is lost for good (Redis cuts a pub/sub
// client past its output-buffer limit for the same reason).
//
// The stream owns the source's lifetime: when the client goes away (the writer's pipeline
// destroys the body), a HEAD or failed write discards it, or it simply ends, the source function's
// signal aborts, an iterable's `return()` is called, the keep-alive timer is cleared, and nothing
// more is pushed. It carries keel/plugin's `endOnDrain`, so the writer ends it (after what was
// sent) when the app drains.
import { Readable } from "node:stream";
import { endOnDrain, isPromise } from "../plugin.js";
import { formatSseEvent, type SseEvent } from "./event.js";

/**
 * Send one event (a string is `data` alone). Resolves at once, or, when the socket's buffer is
 * full, once the client has taken what was sent: `await` it to respect backpressure. Events sent
 * without awaiting wait in the stream, up to `maxBufferedBytes`; past that the stream ends (see
 * SseOptions). A malformed event throws a TypeError. After the stream closed it writes nothing
 * and resolves.
 */
export type SseSender = (event: SseEvent | string) => Promise<void>;

export interface SseSourceInfo {
  /** The Last-Event-ID the client sent, when the handler passed it (`options.lastEventId`). */
  readonly lastEventId: string | undefined;
  /** Aborts when the stream closes: the client went away or the response was discarded. */
  readonly signal: AbortSignal;
}

/**
 * A function source runs as soon as the reply is made (a synchronous throw fails the request
 * with the uniform 500) and the stream lasts until it returns or its promise settles.
 */
export type SseSourceFunction = (send: SseSender, info: SseSourceInfo) => void | Promise<void>;

/** Where the events come from: an async iterable (pulled as the client reads) or a function. */
export type SseSource = AsyncIterable<SseEvent | string> | SseSourceFunction;

export interface SseOptions {
  /** Send `: keep-alive` after this many idle milliseconds (default 15000; 0 turns it off). */
  keepAliveMs?: number;
  /** The request's Last-Event-ID (from the `lastEventId()` extractor), handed to a function source. */
  lastEventId?: string | undefined;
  /**
   * Bytes of events a function source may have waiting for a client that does not keep up
   * (default 256 KiB): sent without awaiting `send()` once the socket and the stream's buffer are
   * full. One more and the stream is destroyed with an `ERR_SSE_BUFFER_LIMIT` error (the writer
   * logs it and closes the connection; the source's signal aborts); a client that reconnects can
   * resume from its Last-Event-ID. An iterable source is only pulled as the client reads.
   */
  maxBufferedBytes?: number;
}

export const DEFAULT_SSE_KEEP_ALIVE_MS = 15_000;
export const DEFAULT_SSE_MAX_BUFFERED_BYTES = 256 * 1024;
const KEEP_ALIVE_COMMENT = ": keep-alive\n\n";
// setTimeout's largest delay; a longer one would fire at once.
const MAX_TIMER_MS = 2_147_483_647;

function keepAliveDelay(value: number | undefined): number {
  if (value === undefined) return DEFAULT_SSE_KEEP_ALIVE_MS;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_TIMER_MS) {
    throw new TypeError(`SSE keepAliveMs must be an integer from 0 to ${MAX_TIMER_MS}`);
  }
  return value;
}

function bufferLimit(value: number | undefined): number {
  if (value === undefined) return DEFAULT_SSE_MAX_BUFFERED_BYTES;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) throw new TypeError("SSE maxBufferedBytes must be a positive integer");
  return value;
}

const RESOLVED: Promise<void> = Promise.resolve();
const ignore = (): void => {};

/**
 * The body of an SSE reply: an object-mode Readable of strings (the writer and inject both take
 * strings as they are). Events are pushed as they come; a function source that outruns the client
 * waits on `send()` (or, not waiting, fills a queue of at most `maxBufferedBytes`), an iterable is
 * pulled only when the reader asks for more.
 */
export class SseStream extends Readable {
  private readonly abortController: AbortController;
  private readonly keepAliveMs: number;
  private readonly maxBufferedBytes: number;
  private sourceIterator: AsyncIterator<SseEvent | string> | null;
  private timer: NodeJS.Timeout | null;
  /** No more pushes: ended, failed or destroyed. */
  private closedForWrites: boolean;
  /** The reader asked for data at least once: someone listens for errors from here on. */
  private reading: boolean;
  private pulling: boolean;
  /** A source error raised before anyone read: kept until the reader arrives. */
  private pendingError: Error | null;
  /**
   * What every `send()` made while the reader is full returns, resolved when it wants more: one
   * promise for them all, so events sent without awaiting cost no promise each.
   */
  private readerWants: Promise<void> | null;
  private resolveReaderWants: (() => void) | null;
  /** The last push found the buffer full and the reader has not asked for more since. */
  private full: boolean;
  /** Events sent while full, oldest first, and their size in bytes (at most maxBufferedBytes). */
  private queue: string[];
  private queuedBytes: number;

  constructor(source: SseSource, options: SseOptions = {}) {
    super({ objectMode: true });
    this.abortController = new AbortController();
    this.keepAliveMs = keepAliveDelay(options.keepAliveMs);
    this.maxBufferedBytes = bufferLimit(options.maxBufferedBytes);
    this.sourceIterator = null;
    this.timer = null;
    this.closedForWrites = false;
    this.reading = false;
    this.pulling = false;
    this.pendingError = null;
    this.readerWants = null;
    this.resolveReaderWants = null;
    this.full = false;
    this.queue = [];
    this.queuedBytes = 0;
    // An empty first chunk: writing it sends the response headers at once, so the client sees the
    // stream open before the first event (a zero-byte write adds nothing to the body).
    this.push("");
    if (typeof source === "function") this.startFunction(source, options.lastEventId);
    else if (source !== null && typeof source === "object" && typeof source[Symbol.asyncIterator] === "function") this.sourceIterator = source[Symbol.asyncIterator]();
    else throw new TypeError("sse(): the source must be an async iterable or a function");
  }

  /** Aborts when the stream closes (also given to a function source). */
  get signal(): AbortSignal {
    return this.abortController.signal;
  }

  private startFunction(fn: SseSourceFunction, lastEventId: string | undefined): void {
    const send: SseSender = (event) => this.send(event);
    let result: void | Promise<void>;
    try {
      result = fn(send, { lastEventId, signal: this.abortController.signal });
    } catch (err) {
      // Thrown before the reply exists: the request fails with the uniform 500 instead.
      this.closedForWrites = true;
      this.abortController.abort();
      throw err;
    }
    if (isPromise(result)) result.then(() => this.finish(), (err: unknown) => this.fail(err));
    else this.finish();
  }

  private send(event: SseEvent | string): Promise<void> {
    const chunk = formatSseEvent(event);
    if (this.closedForWrites || chunk === "") return RESOLVED;
    if (!this.full) {
      if (this.write(chunk)) return RESOLVED;
      this.full = true;
    } else {
      // Sent without waiting for the last one: it waits here, within the limit.
      this.queuedBytes += Buffer.byteLength(chunk);
      if (this.queuedBytes > this.maxBufferedBytes) {
        this.overflow();
        return RESOLVED;
      }
      this.queue.push(chunk);
    }
    return (this.readerWants ??= new Promise<void>((resolve) => (this.resolveReaderWants = resolve)));
  }

  /** Move queued events to the reader until its buffer is full again; true when all went. */
  private flushQueue(): boolean {
    while (this.queue.length > 0) {
      const chunk = this.queue.shift()!;
      this.queuedBytes -= Buffer.byteLength(chunk);
      if (!this.write(chunk)) return false;
    }
    return true;
  }

  /** The client is too slow: drop what waits and destroy the stream (its connection closes). */
  private overflow(): void {
    const queued = this.queuedBytes;
    this.queue = [];
    this.queuedBytes = 0;
    const err = new Error(`SSE client too slow: ${queued} bytes of events waiting, over the limit of ${this.maxBufferedBytes}; stream ended`) as NodeJS.ErrnoException;
    err.code = "ERR_SSE_BUFFER_LIMIT";
    this.fail(err);
  }

  /** Push one event's text; false when the reader's buffer is full. */
  private write(chunk: string): boolean {
    this.timer?.refresh(); // the connection is not idle: restart the keep-alive countdown
    return this.push(chunk);
  }

  override _read(): void {
    if (!this.reading) {
      this.reading = true;
      if (this.pendingError !== null) {
        this.destroy(this.pendingError);
        return;
      }
      if (this.keepAliveMs > 0 && !this.closedForWrites) this.timer = setTimeout(() => this.keepAlive(), this.keepAliveMs);
    }
    this.full = false;
    if (!this.flushQueue()) {
      this.full = true; // full again: the waiters wait for the next read
      return;
    }
    this.releaseWaiters();
    if (this.sourceIterator !== null && !this.closedForWrites) void this.pull();
  }

  private keepAlive(): void {
    if (this.closedForWrites) return;
    // Something still waiting in the buffer means the stream is not idle, only slow.
    if (this.readableLength === 0) this.push(KEEP_ALIVE_COMMENT);
    this.timer?.refresh();
  }

  private async pull(): Promise<void> {
    if (this.pulling) return;
    this.pulling = true;
    const iterator = this.sourceIterator!;
    try {
      for (;;) {
        const step = await iterator.next();
        if (this.closedForWrites) return; // closed while waiting: nothing is written after close
        if (step.done === true) {
          this.finish();
          return;
        }
        const chunk = formatSseEvent(step.value);
        if (chunk !== "" && !this.write(chunk)) return; // full: the next _read pulls again
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.pulling = false;
    }
  }

  /** End the stream after what was already sent and stop the source (graceful shutdown). */
  close(): void {
    this.finish();
  }

  /** The app is draining: end as `close()` does, so the client reconnects elsewhere. */
  [endOnDrain](): void {
    this.finish();
  }

  private finish(): void {
    if (this.closedForWrites) return;
    this.closedForWrites = true;
    this.stopTimer();
    this.releaseWaiters();
    // What waits was sent: it goes before the end (bounded by the limit it was held to).
    for (const chunk of this.queue) this.push(chunk);
    this.queue = [];
    this.queuedBytes = 0;
    this.push(null);
  }

  /**
   * The source failed after the reply was made: the status is sent, so the stream is destroyed
   * with the error and the writer logs it (once) and closes the response. A failure after the
   * stream closed (often caused by the close) is nobody's concern.
   */
  private fail(err: unknown): void {
    if (this.closedForWrites) return;
    this.closedForWrites = true;
    this.stopTimer();
    this.releaseWaiters();
    const error = err instanceof Error ? err : new Error(String(err));
    // An 'error' event with no listener would crash the process: wait for the reader.
    if (this.reading) this.destroy(error);
    else this.pendingError = error;
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.closedForWrites = true;
    this.queue = [];
    this.queuedBytes = 0;
    this.stopTimer();
    this.releaseWaiters();
    if (!this.abortController.signal.aborted) this.abortController.abort();
    const iterator = this.sourceIterator;
    this.sourceIterator = null;
    if (iterator !== null && typeof iterator.return === "function") {
      // An async generator suspended at an await runs its finally when that await settles.
      try {
        Promise.resolve(iterator.return()).then(ignore, ignore);
      } catch {
        // a return() that throws synchronously has nothing left to stop
      }
    }
    callback(err);
  }

  private stopTimer(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private releaseWaiters(): void {
    const resolve = this.resolveReaderWants;
    if (resolve === null) return;
    this.readerWants = null;
    this.resolveReaderWants = null;
    resolve();
  }
}
