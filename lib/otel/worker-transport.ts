// The exporter's POSTs made by a worker thread. Why: node's http client and server share internals
// (stream writes, the HTTP parser, IncomingMessage); client objects passing through them in the
// server's isolate give V8 new shapes to handle there, which deoptimizes the server's hot path and
// makes every request slower, sampled or not. A worker has its own isolate, so its type feedback
// cannot reach the server's. This thread keeps everything else (batching, retries, counts).
//
// The worker starts when the exporter is made (prepare()) and is ended by close(); it keeps the process alive only
// while a POST is in flight (as an inline request's socket does, bounded by the POST's timeout).
//
// Why the worker starts early (issue 34): a Worker is an EventEmitter and comes with two stdio
// streams (Readables of its own class), made in this thread. They pass through node's
// EventEmitter.init and stream code, whose type feedback the server's sockets, IncomingMessages
// and ServerResponses already fill: with the worker's two classes that was five, one over V8's
// polymorphic limit, and EventEmitter.init (inlined in every IncomingMessage and ServerResponse
// constructor) and Readable.read turned megamorphic for every request from the first sampled span
// on: ~940 instructions a request of /hello with 1% of spans exported. V8 gives a function its
// feedback only after a few calls, so objects made while the process starts leave none there: made
// with the exporter, at startup, the worker's objects are not counted. An exporter made later (or
// after the app made many EventEmitters) gets the old cost, nothing worse. The price: an exporter
// whose spans are never sampled holds an idle thread (it keeps nothing alive).
// A batch's body lies in shared memory (shared-bytes.ts): the worker reads it in place, nothing is
// copied or transferred, and the bytes stay here. Other bodies are transferred when their buffer
// owns its memory (and come back with the answer) or copied. If the worker cannot start or dies,
// POSTs go inline (http-post.ts) from then on; a POST the worker was making when it died answers
// status 0 and is retried like a network error, with its bytes when they stayed here (shared or
// copied); a transferred body went with the worker (`bytes: null`: that batch is counted failed).
import { Worker } from "node:worker_threads";
import { InlineTransport, NOT_SENT, type PostOutcome, type PostTarget, type PostTransport } from "./post-transport.js";
import { POST_WORKER_SOURCE } from "./post-worker-source.js";
import { isWholeShared } from "./shared-bytes.js";

/** What the worker sends back for one POST (see post-worker-source.ts). */
interface WorkerAnswer {
  id: number;
  status: number;
  retryAfter: string | undefined;
  body: Uint8Array;
  contentType: string;
  error: string | null;
  bodySent: boolean;
  /** The transferred body's memory, back (null when it was shared). */
  bytes: ArrayBuffer | null;
}

interface PendingPost {
  resolve(outcome: PostOutcome): void;
  /** Where the body lies in the transferred memory. */
  offset: number;
  length: number;
  /**
   * The body and its buffer when they stayed here (shared memory, or only a copy went to the
   * worker): they survive the worker. null when the body was transferred.
   */
  kept: { body: Buffer; owner: Buffer } | null;
}

export class WorkerTransport implements PostTransport {
  private readonly target: PostTarget;
  private readonly inline: InlineTransport;
  private readonly onFallback: (reason: string) => void;
  private worker: Worker | null = null;
  private state: "idle" | "running" | "failed" | "closed" = "idle";
  private readonly pending = new Map<number, PendingPost>();
  private nextId = 1;

  /** `onFallback` hears why POSTs go inline from now on. */
  constructor(target: PostTarget, onFallback: (reason: string) => void) {
    this.target = target;
    this.inline = new InlineTransport(target);
    this.onFallback = onFallback;
  }

  get kind(): "worker" | "inline" {
    return this.state === "failed" ? "inline" : "worker";
  }

  /** The worker thread while it runs (for tests: `exporter[EXPORT_WORKER]()`). */
  get thread(): Worker | null {
    return this.worker;
  }

  post(body: Buffer, owner: Buffer): Promise<PostOutcome> {
    if (this.state === "closed") return Promise.resolve({ ...NOT_SENT, error: new Error("OTLP exporter is shut down"), bytes: null, owner: null });
    const worker = this.state === "failed" ? null : (this.worker ?? this.start());
    if (worker === null) return this.inline.post(body, owner);
    const t = this.target;
    // A batch's buffer is the whole of a SharedArrayBuffer: the worker reads the body in place.
    // Another buffer that owns its memory is transferred; anything else is copied and kept.
    const shared = owner.buffer === body.buffer && isWholeShared(owner);
    const owned = !shared && owner.byteOffset === 0 && owner.buffer === body.buffer && owner.buffer.byteLength === owner.length && owner.buffer instanceof ArrayBuffer;
    const bytes: ArrayBuffer | SharedArrayBuffer = shared || owned ? owner.buffer : copyOf(body);
    const offset = shared || owned ? body.byteOffset : 0;
    const length = body.length; // read now: a transferred body has length 0
    const id = this.nextId++;
    const job = { id, url: t.url.href, headers: { ...t.headers, "content-type": t.contentType, "content-length": String(length) }, timeoutMs: t.timeoutMs, bytes, offset, length };
    return new Promise((resolve) => {
      try {
        // A SharedArrayBuffer cannot be transferred (and need not be): it is shared.
        worker.postMessage(job, shared ? [] : [bytes as ArrayBuffer]);
      } catch (err) {
        // Nothing was transferred when postMessage throws: send this one inline, and the rest.
        this.fallBack(`postMessage failed: ${err instanceof Error ? err.message : String(err)}`);
        resolve(this.inline.post(body, owner));
        return;
      }
      this.pending.set(id, { resolve, offset, length, kept: owned ? null : { body, owner } });
      // A POST in flight keeps the process alive, as an inline request's socket would (bounded by
      // its timeout): a flush on shutdown must not be cut off by the event loop running dry.
      if (this.pending.size === 1) worker.ref();
    });
  }

  /**
   * Start the worker now, if it is not running: called when the exporter is made (see "Why the
   * worker starts early" above); starting a thread (an isolate, node's bootstrap: tens of
   * milliseconds of CPU, mostly on that thread) then happens at startup rather than when the first
   * batch is due. An idle worker keeps nothing alive.
   */
  prepare(): void {
    if (this.state === "idle") this.start();
  }

  async close(): Promise<void> {
    if (this.state === "closed") return;
    this.state = "closed";
    const worker = this.worker;
    this.worker = null;
    if (worker !== null) await worker.terminate();
    this.abandonPending("OTLP exporter shut down during the POST");
    // POSTs made inline since the worker failed are cut off too.
    await this.inline.close();
  }

  private start(): Worker | null {
    let worker: Worker;
    try {
      // No execArgv: the worker needs no loaders (tsx, ...) and no flags of the main thread.
      worker = new Worker(new URL("data:text/javascript," + encodeURIComponent(POST_WORKER_SOURCE)), { execArgv: [] });
    } catch (err) {
      this.fallBack(`the export worker did not start: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
    worker.on("message", (answer: WorkerAnswer) => this.answered(answer));
    // An uncaught error ends the worker; 'exit' follows and does the work.
    worker.on("error", () => {});
    worker.on("exit", (code: number) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.fallBack(`the export worker exited (code ${code})`);
      this.abandonPending(`the OTLP export worker exited (code ${code}) during the POST`);
    });
    // After the listeners: adding a 'message' listener refs the worker's port again.
    worker.unref();
    this.worker = worker;
    this.state = "running";
    return worker;
  }

  private answered(answer: WorkerAnswer): void {
    const post = this.pending.get(answer.id);
    if (post === undefined) return;
    this.pending.delete(answer.id);
    if (this.pending.size === 0) this.worker?.unref();
    post.resolve({
      status: answer.status,
      retryAfter: answer.retryAfter,
      body: Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength),
      contentType: answer.contentType,
      error: answer.error === null ? null : new Error(answer.error),
      // Kept bytes are free again: a copy was never near a socket, and shared memory is answered
      // for only once the worker's socket is done with it (post-worker-source.ts).
      bodySent: post.kept !== null || answer.bodySent,
      bytes: post.kept?.body ?? Buffer.from(answer.bytes!, post.offset, post.length),
      owner: post.kept?.owner ?? Buffer.from(answer.bytes!),
    });
  }

  /**
   * Settle the POSTs the worker was making when it went away. Called once its thread has ended
   * ('exit', or close() after terminate()), so no socket of it reads kept shared memory any more.
   */
  private abandonPending(message: string): void {
    for (const [id, post] of this.pending) {
      this.pending.delete(id);
      post.resolve({ ...NOT_SENT, error: new Error(message), bodySent: post.kept !== null, bytes: post.kept?.body ?? null, owner: post.kept?.owner ?? null });
    }
  }

  private fallBack(reason: string): void {
    if (this.state === "closed" || this.state === "failed") return;
    this.state = "failed";
    this.onFallback(reason);
  }
}

function copyOf(body: Buffer): ArrayBuffer {
  const copy = new ArrayBuffer(body.length);
  new Uint8Array(copy).set(body);
  return copy;
}
