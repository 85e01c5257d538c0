// Flood tests' target: the sample service (lib/sample/main.ts, as `node dist/server.js` runs it)
// in a child process with a small V8 heap (--max-old-space-size=256 by default), so a flood that
// grows memory without bound kills the child instead of the test runner. The test reads the
// child's memory over IPC (memory-probe.mjs), checks that HTTP still answers while it floods,
// and at the end that the child is still alive. The young generation is pinned at
// --max-semi-space-size=16 (Node 20's default): V8 13 (Node 24) sizes it larger by default, and
// its uncollected garbage then counts in the peaks (the SSE flood's heap peak went from +48 to +84
// MiB over the quiet service, RSS from +63 to +157 MiB, with the same keel code); pinned, the
// figures measure what keel holds on every Node.
import { fork, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const MiB = 1024 * 1024;

export interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

export interface FloodTarget {
  /** The HTTP port. */
  port: number;
  /** The gRPC port (when started with `grpc: true`). */
  grpcPort: number | undefined;
  /** Every line the service wrote to stdout and stderr so far (its JSON log). */
  output(): string;
  /** The child's memory now. */
  memory(): Promise<Memory>;
  /** Largest RSS and heapUsed seen by `watch()` samples so far, in MiB. */
  peak(): { rssMiB: number; heapMiB: number };
  /** Sample memory every `ms` until `stop()`; the peaks feed `peak()`. */
  watch(ms?: number): void;
  /** Status of GET `path` on a fresh connection (rejects after `timeoutMs`). */
  get(path: string, timeoutMs?: number): Promise<number>;
  alive(): boolean;
  /** SIGTERM, then SIGKILL after 15 s; resolves with the exit code (null when killed by a signal). */
  stop(): Promise<number | null>;
}

export interface FloodTargetOptions {
  /** V8 old-space limit of the child, MiB (default 256). */
  maxOldSpaceMiB?: number;
  /** Serve gRPC too (GRPC_PORT=0). */
  grpc?: boolean;
  /** Extra environment (KEEL_ENV=production, PORT=0 and a JWT secret are set). */
  env?: Record<string, string>;
}

export const FLOOD_JWT_SECRET = "flood-secret-".padEnd(40, "x");

export async function startFloodTarget(options: FloodTargetOptions = {}): Promise<FloodTarget> {
  const child: ChildProcess = fork(`${root}lib/sample/main.ts`, [], {
    cwd: root,
    execArgv: ["--import", "tsx", `--max-old-space-size=${options.maxOldSpaceMiB ?? 256}`, "--max-semi-space-size=16", "--import", `${root}spec/hostile/flood/memory-probe.mjs`],
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      KEEL_ENV: "production",
      LOG_LEVEL: "info",
      KEEL_JWT_SECRET: FLOOD_JWT_SECRET,
      ...(options.grpc === true ? { GRPC_PORT: "0" } : {}),
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (out += d));
  let exited = false;
  // A child that died mid-flood makes `send` fail with EPIPE: that is a finding (it is not
  // alive()), not a crash of the test runner.
  child.on("error", () => undefined);
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => ((exited = true), resolve(code))));

  const urlOf = (message: string): RegExp => new RegExp(`"msg":"${message}"[^\\n]*"url":"[a-z]+://[^"]*:(\\d+)"`);
  const waitFor = (re: RegExp): Promise<number> =>
    new Promise((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`the service did not log ${re}: ${out}`)), 30_000);
      const check = (): void => {
        const m = re.exec(out);
        if (m !== null) {
          clearTimeout(deadline);
          child.stdout!.off("data", check);
          resolve(Number(m[1]));
        } else if (exited) {
          clearTimeout(deadline);
          reject(new Error(`the service exited before it listened: ${out}`));
        }
      };
      child.stdout!.on("data", check);
      void exit.then(check);
      check();
    });
  const port = await waitFor(urlOf("listening"));
  const grpcPort = options.grpc === true ? await waitFor(urlOf("grpc listening")) : undefined;

  let peakRss = 0;
  let peakHeap = 0;
  let timer: NodeJS.Timeout | undefined;
  // One listener for every memory() call: the child answers each "memory" in order, so the
  // answers go to the waiters first in, first out (a listener per call would pile up while a
  // flooded child is slow to answer).
  const waiters: Array<{ resolve: (m: Memory) => void; reject: (e: Error) => void }> = [];
  const gone = (): Error => new Error(`the service is gone: ${out.slice(-2000)}`);
  child.on("message", (msg: unknown) => {
    const m = (msg as { memory?: Memory }).memory;
    if (m === undefined) return;
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
    waiters.shift()?.resolve(m);
  });
  void exit.then(() => {
    for (const w of waiters.splice(0)) w.reject(gone());
  });
  const memory = (): Promise<Memory> =>
    new Promise((resolve, reject) => {
      if (exited || !child.connected) return reject(gone());
      const waiter = { resolve, reject };
      waiters.push(waiter);
      child.send("memory", (err) => {
        if (err === null) return;
        const i = waiters.indexOf(waiter);
        if (i !== -1) waiters.splice(i, 1);
        reject(gone());
      });
    });

  return {
    port,
    grpcPort,
    output: () => out,
    memory,
    peak: () => ({ rssMiB: peakRss / MiB, heapMiB: peakHeap / MiB }),
    watch(ms = 100) {
      clearInterval(timer);
      // A sample is asked for only when the last one came back: a slow child is not flooded too.
      timer = setInterval(() => {
        if (waiters.length === 0) void memory().catch(() => clearInterval(timer));
      }, ms);
      timer.unref();
    },
    get: (path, timeoutMs = 5000) => httpStatus(port, path, timeoutMs),
    alive: () => !exited,
    async stop() {
      clearInterval(timer);
      if (!exited) child.kill("SIGTERM");
      const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const code = await exit;
      clearTimeout(kill);
      return code;
    },
  };
}

/** Status of one GET on a fresh connection. */
export function httpStatus(port: number, path: string, timeoutMs = 5000): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${path} took longer than ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end();
  });
}

export { MiB };
