// A buffered, non-blocking sink for log lines. Lines are appended to a buffer and written on the
// next turn of the event loop (setImmediate) or as soon as `flushBytes` are waiting, one write in
// flight at a time. A slow sink never blocks the event loop: while a write is pending, lines keep
// buffering up to `maxBufferBytes`, then are dropped and counted, and a notice with the count is
// written when the sink catches up (drops are never silent).
//
// Targets: a file descriptor (default 1, stdout) written with async `fs.write` on libuv's thread
// pool (process.stdout itself writes synchronously to files and pipes on Linux), or any Writable,
// whose backpressure (`write()` returning false, then "drain") is respected. On a descriptor,
// writes are cut at line boundaries into chunks of at most `atomicBytes` (PIPE_BUF, 4096), so
// lines from several processes sharing one pipe (cluster workers) never interleave mid-line.
import { Buffer } from "node:buffer";
import { fstatSync, write as fsWrite, writeSync } from "node:fs";
import type { Writable } from "node:stream";

export interface LogDestination {
  /** Queue one complete line (ending in "\n"). Never throws, never blocks. */
  write(line: string): void;
  /** Resolves once every queued line has been handed to the sink. */
  flush(): Promise<void>;
  /** Best effort, synchronous (exit paths): writes what is queued and not yet in flight. */
  flushSync(): void;
  /** Lines dropped so far (buffer full or sink failed). */
  readonly dropped: number;
  /** Characters queued and not yet written. */
  readonly pendingChars: number;
}

export interface LogDestinationOptions {
  /** A file descriptor (default 1) or a Writable. */
  target?: number | Writable;
  /** Write as soon as this many characters are queued (default 16 KiB). */
  flushBytes?: number;
  /** Queue limit while the sink is busy; lines beyond it are dropped (default 4 MiB). */
  maxBufferBytes?: number;
  /** Largest single write on a descriptor, cut at line ends (default 4096, PIPE_BUF). */
  atomicBytes?: number;
  /** Builds the line reporting dropped lines (default: a minimal pino-style warn line). */
  dropNotice?: (dropped: number) => string;
}

const EAGAIN_RETRY_MS = 10;

function defaultDropNotice(dropped: number): string {
  return '{"level":40,"time":' + Date.now() + ',"msg":"log lines dropped","dropped":' + dropped + "}\n";
}

function countLines(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

export function createLogDestination(options: LogDestinationOptions = {}): LogDestination {
  const target = options.target ?? 1;
  return typeof target === "number" ? new FdDestination(target, options) : new StreamDestination(target, options);
}

/** Buffering, scheduling and drop accounting shared by both targets. */
abstract class BufferedDestination implements LogDestination {
  protected pending = "";
  protected pendingLines = 0;
  protected busy = false;
  private scheduled = false;
  private droppedTotal = 0;
  private droppedUnreported = 0;
  private waiters: Array<() => void> = [];
  private readonly flushBytes: number;
  private readonly maxBuffer: number;
  private readonly dropNotice: (n: number) => string;
  private readonly tick = (): void => {
    this.scheduled = false;
    this.kick();
  };

  constructor(options: LogDestinationOptions) {
    this.flushBytes = options.flushBytes ?? 16 * 1024;
    this.maxBuffer = options.maxBufferBytes ?? 4 * 1024 * 1024;
    this.dropNotice = options.dropNotice ?? defaultDropNotice;
  }

  get dropped(): number {
    return this.droppedTotal;
  }

  get pendingChars(): number {
    return this.pending.length;
  }

  write(line: string): void {
    if (this.pending.length + line.length > this.maxBuffer) {
      this.countDropped(1);
      return;
    }
    this.pending += line;
    this.pendingLines++;
    if (this.busy) return;
    if (this.pending.length >= this.flushBytes) this.kick();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.tick);
    }
  }

  flush(): Promise<void> {
    if (!this.busy && this.pending === "") return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      if (!this.busy) this.kick();
    });
  }

  flushSync(): void {
    this.addDropNotice();
    if (this.pending === "") return;
    const chunk = this.pending;
    const lines = this.pendingLines;
    this.pending = "";
    this.pendingLines = 0;
    try {
      this.writeNowSync(chunk);
    } catch {
      this.countDropped(lines);
    }
  }

  protected countDropped(lines: number): void {
    this.droppedTotal += lines;
    this.droppedUnreported += lines;
  }

  /** Start writing what is queued, unless a write is already in flight. */
  protected kick(): void {
    if (this.busy) return;
    this.addDropNotice();
    if (this.pending === "") {
      this.settle();
      return;
    }
    const chunk = this.pending;
    const lines = this.pendingLines;
    this.pending = "";
    this.pendingLines = 0;
    this.busy = true;
    this.startWrite(chunk, lines);
  }

  /** Called by the target when the write in flight is done (or failed); continues with the queue. */
  protected writeDone(): void {
    this.busy = false;
    if (this.pending !== "") this.kick();
    else this.settle();
  }

  private addDropNotice(): void {
    if (this.droppedUnreported === 0) return;
    const notice = this.dropNotice(this.droppedUnreported);
    this.droppedUnreported = 0;
    this.pending += notice;
    this.pendingLines++;
  }

  private settle(): void {
    if (this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  protected abstract startWrite(chunk: string, lines: number): void;
  protected abstract writeNowSync(chunk: string): void;
}

class FdDestination extends BufferedDestination {
  private readonly fd: number;
  /** Longest piece per write: atomicBytes on pipes and sockets, unlimited on files. */
  private readonly pieceLimit: number;
  /** What is left of the chunk being written, and the piece in flight. */
  private rest = "";
  private piece = "";
  /** Set only after a partial write: the unwritten bytes of `piece`. */
  private tail: Buffer | null = null;
  private failed = false;
  private readonly onWritten = (err: NodeJS.ErrnoException | null, written: number): void => this.afterWrite(err, written);
  private readonly retry = (): void => this.writeCurrent();

  constructor(fd: number, options: LogDestinationOptions) {
    super(options);
    this.fd = fd;
    let shared = true;
    try {
      const st = fstatSync(fd);
      shared = st.isFIFO() || st.isSocket();
    } catch {
      // a bad descriptor: writes will fail and be counted
    }
    this.pieceLimit = shared ? Math.max(512, options.atomicBytes ?? 4096) : Infinity;
  }

  protected startWrite(chunk: string, lines: number): void {
    if (this.failed) {
      this.countDropped(lines);
      this.writeDone();
      return;
    }
    this.rest = chunk;
    this.nextPiece();
  }

  /** Cut the next piece at a line end within pieceLimit (a longer line goes alone), and write it. */
  private nextPiece(): void {
    const rest = this.rest;
    let end = rest.length;
    if (end > this.pieceLimit) {
      const cut = rest.lastIndexOf("\n", this.pieceLimit - 1);
      end = cut >= 0 ? cut + 1 : rest.indexOf("\n") + 1 || rest.length;
      // multi-byte characters can push a piece over the limit in bytes: halve until it fits
      while (end > 1 && Buffer.byteLength(rest.slice(0, end)) > this.pieceLimit) {
        const shorter = rest.lastIndexOf("\n", (end >> 1) - 1);
        if (shorter < 0) break;
        end = shorter + 1;
      }
    }
    this.piece = end === rest.length ? rest : rest.slice(0, end);
    this.rest = end === rest.length ? "" : rest.slice(end);
    this.tail = null;
    this.writeCurrent();
  }

  // Strings are written as strings: converting them to Buffers here would allocate external
  // memory on every flush and make the garbage collector run far more often.
  private writeCurrent(): void {
    if (this.tail === null) fsWrite(this.fd, this.piece, null, "utf8", this.onWritten);
    else fsWrite(this.fd, this.tail, 0, this.tail.length, null, this.onWritten);
  }

  private afterWrite(err: NodeJS.ErrnoException | null, written: number): void {
    if (err !== null) {
      if (err.code === "EAGAIN") {
        setTimeout(this.retry, EAGAIN_RETRY_MS);
        return;
      }
      // EPIPE, EBADF...: the sink is gone; count what is lost from now on.
      this.failed = true;
      this.countDropped(countLines(this.piece) + countLines(this.rest));
      this.piece = this.rest = "";
      this.tail = null;
      this.writeDone();
      return;
    }
    const size = this.tail === null ? Buffer.byteLength(this.piece) : this.tail.length;
    if (written < size) {
      // a partial write (rare): continue with the bytes left
      this.tail = (this.tail ?? Buffer.from(this.piece, "utf8")).subarray(written);
      this.writeCurrent();
      return;
    }
    if (this.rest !== "") {
      this.nextPiece();
      return;
    }
    this.piece = "";
    this.tail = null;
    this.writeDone();
  }

  protected writeNowSync(chunk: string): void {
    if (this.failed) throw new Error("log sink failed");
    const data = Buffer.from(chunk, "utf8");
    let off = 0;
    let spins = 0;
    while (off < data.length) {
      try {
        off += writeSync(this.fd, data, off, data.length - off);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EAGAIN" || ++spins > 1000) throw err;
      }
    }
  }
}

class StreamDestination extends BufferedDestination {
  private readonly stream: Writable;
  private failed = false;
  private readonly onDrain = (): void => this.writeDone();

  constructor(stream: Writable, options: LogDestinationOptions) {
    super(options);
    this.stream = stream;
    stream.on("error", () => {
      this.failed = true;
    });
  }

  protected startWrite(chunk: string, lines: number): void {
    if (this.failed || this.stream.destroyed || this.stream.writableEnded) {
      this.failed = true;
      this.countDropped(lines);
      this.writeDone();
      return;
    }
    if (this.stream.write(chunk)) this.writeDone();
    else this.stream.once("drain", this.onDrain);
  }

  protected writeNowSync(chunk: string): void {
    if (this.failed || this.stream.destroyed || this.stream.writableEnded) throw new Error("log sink failed");
    this.stream.write(chunk);
  }
}
