// Where one uploaded file's bytes go: a Writable that may not exist yet (a temp file being
// opened, a user sink returned by a promise). Bytes that arrive before it does are queued; the
// session stops reading the request while `write` says to wait, so the queue stays one chunk deep.
import { createHash, type Hash } from "node:crypto";
import { finished, type Writable } from "node:stream";

export class FileTarget {
  size = 0;
  private readonly sinkPromise: Promise<Writable>;
  private sink: Writable | null = null;
  private failed: unknown = null;
  private readonly queue: Buffer[] = [];
  private readonly hash: Hash | null;
  private waiters: (() => void)[] = [];
  private settled: Promise<void> | null = null;
  private destroyed = false;
  /** The sink was ended and closed without an error: nothing is left to destroy. */
  private ended = false;

  constructor(sink: Promise<Writable>, sha256: boolean) {
    this.hash = sha256 ? createHash("sha256") : null;
    this.sinkPromise = sink;
    sink.then(
      (s) => this.attach(s),
      (err: unknown) => this.fail(err),
    );
  }

  private attach(sink: Writable): void {
    if (this.destroyed) return; // destroy() closes it
    this.sink = sink;
    sink.on("error", (err) => this.fail(err));
    sink.on("drain", () => this.wake());
    for (const chunk of this.queue) sink.write(chunk);
    this.queue.length = 0;
    this.wake();
  }

  private fail(err: unknown): void {
    if (this.failed === null) this.failed = err ?? new Error("upload sink failed");
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** The sink's error, once it failed (null while it works). */
  get failure(): unknown {
    return this.failed;
  }

  /** Hand on a chunk; false means "wait for `writable()` before sending more". */
  write(data: Buffer): boolean {
    this.size += data.length;
    this.hash?.update(data);
    if (this.failed !== null) return true;
    const sink = this.sink;
    if (sink === null) {
      this.queue.push(Buffer.from(data));
      return false;
    }
    return sink.write(data);
  }

  /** Resolves when more may be written (or the sink failed: `end` then reports it). */
  writable(): Promise<void> {
    // Once ended there is nothing more to write, and a stream that is ending never emits
    // 'drain' (its writableNeedDrain stays true): waiting for one would stall the request.
    if (this.failed !== null || this.settled !== null || (this.sink !== null && !this.sink.writableNeedDrain)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The hex SHA-256 of the bytes written (only with hashing on). */
  digest(): string | undefined {
    return this.hash?.digest("hex");
  }

  /** End the sink and wait until it has flushed and closed; rejects with the sink's error. */
  end(): Promise<void> {
    if (this.settled !== null) return this.settled;
    this.settled = this.sinkPromise.then((sink) => {
      if (this.failed !== null) throw this.failed;
      sink.end();
      return waitClosed(sink, false).then(() => {
        if (this.failed !== null) throw this.failed;
        this.ended = true;
      });
    });
    this.wake();
    return this.settled;
  }

  /** Stop writing and destroy the sink; resolves once its file handle is closed. Never rejects. */
  destroy(): Promise<void> {
    if (this.ended) return Promise.resolve();
    this.destroyed = true;
    this.fail(new Error("upload aborted"));
    return this.sinkPromise.then(
      (sink) => {
        if (!sink.destroyed) sink.destroy();
        return waitClosed(sink, true);
      },
      () => undefined,
    );
  }
}

/** Resolves when the stream has finished (and closed, if it emits close); `quiet`: never rejects. */
function waitClosed(stream: Writable, quiet: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    finished(stream, (err) => {
      if (err && !quiet) reject(err);
      else resolve();
    });
  });
}
