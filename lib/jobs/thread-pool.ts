// A pool of node:worker_threads for CPU-bound job handlers. Functions cannot cross threads, so a
// thread handler is named by module (file URL) and export; each thread imports it once. A job that
// times out (or is dropped at the drain deadline) has its thread terminated and replaced: for
// CPU-bound code that never yields, that is the only cancellation that works.
import { availableParallelism } from "node:os";
import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

export interface JobThreadTarget {
  /** The module's file URL (`new URL("./resize.js", import.meta.url)`) or absolute path. */
  module: string | URL;
  /** Export called as `fn(payload)` (default "default"). */
  export?: string;
}

export interface JobThreadPoolOptions {
  /** Threads (default: available parallelism - 1, at least 1). */
  size?: number;
  /**
   * Modules imported in each thread before any handler, e.g. a loader registration when
   * handlers are TypeScript run without a build step.
   */
  preload?: readonly (string | URL)[];
}

/** An error thrown by a handler inside a thread, carried back by name and message. */
export class JobThreadError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name === "" ? "Error" : name;
  }
}

// Runs inside each thread, as an ES module loaded from a data: URL (so the vendored keel.js stays
// one self-contained ESM file). Imports are cached per module URL.
const THREAD_SOURCE = `
import { parentPort, workerData } from "node:worker_threads";
const ready = (async () => { for (const p of workerData.preload) await import(p); })();
const modules = new Map();
parentPort.on("message", async (m) => {
  try {
    await ready;
    let mod = modules.get(m.module);
    if (mod === undefined) { mod = await import(m.module); modules.set(m.module, mod); }
    const fn = Object.prototype.hasOwnProperty.call(mod, m.exportName) ? mod[m.exportName] : undefined;
    if (typeof fn !== "function") throw new TypeError("module " + m.module + " has no exported function " + JSON.stringify(m.exportName));
    await fn(m.payload);
    parentPort.postMessage({ id: m.id, ok: true });
  } catch (e) {
    const name = e && typeof e.name === "string" ? e.name : "Error";
    const message = e && typeof e.message === "string" ? e.message : String(e);
    parentPort.postMessage({ id: m.id, ok: false, name, message });
  }
});
`;
const THREAD_URL = new URL("data:text/javascript," + encodeURIComponent(THREAD_SOURCE));

interface Task {
  readonly id: number;
  readonly module: string;
  readonly exportName: string;
  readonly payload: unknown;
  readonly signal: AbortSignal;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
  onAbort: (() => void) | null;
}

interface Thread {
  readonly worker: Worker;
  task: Task | null;
  dead: boolean;
}

interface ThreadReply {
  id: number;
  ok: boolean;
  name?: string;
  message?: string;
}

/** Normalize a module reference to a URL string the thread can import. */
export function threadModuleUrl(module: string | URL): string {
  if (module instanceof URL) return module.href;
  if (/^(file|data):/.test(module)) return module;
  if (isAbsolute(module)) return pathToFileURL(module).href;
  throw new TypeError(`thread module ${JSON.stringify(module)} must be a file URL or an absolute path (new URL("./x.js", import.meta.url))`);
}

export class JobThreadPool {
  private readonly size: number;
  private readonly preload: string[];
  private readonly threads: Thread[] = [];
  private readonly waiting: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: JobThreadPoolOptions = {}) {
    this.size = options.size ?? Math.max(1, availableParallelism() - 1);
    if (!(Number.isInteger(this.size) && this.size >= 1)) throw new RangeError("thread pool size must be an integer >= 1");
    this.preload = (options.preload ?? []).map(threadModuleUrl);
  }

  /** Threads alive right now. */
  get threadCount(): number {
    return this.threads.length;
  }

  /** Run `module[exportName](payload)` in a thread; rejects with the handler's error, or the signal's reason. */
  run(target: JobThreadTarget, payload: unknown, signal: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(new Error("thread pool is closed"));
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const task: Task = {
        id: this.nextId++,
        module: threadModuleUrl(target.module),
        exportName: target.export ?? "default",
        payload,
        signal,
        resolve,
        reject,
        onAbort: null,
      };
      task.onAbort = () => this.abort(task);
      signal.addEventListener("abort", task.onAbort, { once: true });
      this.waiting.push(task);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.waiting.splice(0)) this.finish(task, new Error("thread pool is closed"));
    const threads = this.threads.splice(0);
    await Promise.all(
      threads.map((t) => {
        t.dead = true;
        if (t.task !== null) this.finish(t.task, new Error("thread pool is closed"));
        return t.worker.terminate();
      }),
    );
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      let thread = this.threads.find((t) => t.task === null && !t.dead);
      if (thread === undefined) {
        if (this.threads.length >= this.size) return;
        thread = this.spawn();
      }
      const task = this.waiting.shift()!;
      thread.task = task;
      thread.worker.ref();
      thread.worker.postMessage({ id: task.id, module: task.module, exportName: task.exportName, payload: task.payload });
    }
  }

  private spawn(): Thread {
    const worker = new Worker(THREAD_URL, { workerData: { preload: this.preload } });
    const thread: Thread = { worker, task: null, dead: false };
    worker.on("message", (reply: ThreadReply) => {
      const task = thread.task;
      if (task === null || task.id !== reply.id) return;
      thread.task = null;
      worker.unref();
      this.finish(task, reply.ok ? null : new JobThreadError(reply.name ?? "Error", reply.message ?? "thread handler failed"));
      this.dispatch();
    });
    worker.on("error", (err) => this.lose(thread, err));
    worker.on("exit", (code) => this.lose(thread, new Error(`job thread exited with code ${code}`)));
    this.threads.push(thread);
    return thread;
  }

  /** The thread died (uncaught error, process.exit, terminate): fail its task and forget it. */
  private lose(thread: Thread, err: unknown): void {
    const i = this.threads.indexOf(thread);
    if (i !== -1) this.threads.splice(i, 1);
    thread.dead = true;
    const task = thread.task;
    thread.task = null;
    if (task !== null) this.finish(task, err);
    if (!this.closed) this.dispatch();
  }

  private abort(task: Task): void {
    const queued = this.waiting.indexOf(task);
    if (queued !== -1) {
      this.waiting.splice(queued, 1);
      this.finish(task, task.signal.reason);
      return;
    }
    const thread = this.threads.find((t) => t.task === task);
    if (thread === undefined) return;
    thread.task = null;
    this.finish(task, task.signal.reason);
    this.lose(thread, null);
    void thread.worker.terminate();
  }

  private finish(task: Task, err: unknown): void {
    if (task.onAbort !== null) task.signal.removeEventListener("abort", task.onAbort);
    task.onAbort = null;
    if (err === null) task.resolve();
    else task.reject(err);
  }
}
