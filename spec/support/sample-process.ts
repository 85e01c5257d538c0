// The sample service as a real process (lib/sample/main.ts through tsx), for tests that need
// several instances, signals and restarts. Its stdout (JSON logs) is captured, never printed: the
// test runner fails on JSON lines in its output. Every process started here is SIGKILLed when
// the test process exits, so a failed test leaves none behind.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = fileURLToPath(new URL("../../lib/sample/main.ts", import.meta.url));
/** Captured output kept per process: enough for a failure message, bounded under load. */
const OUTPUT_TAIL_CHARS = 20_000;
const START_TIMEOUT_MS = 20_000;

export interface SampleProcess {
  /** http://127.0.0.1:PORT as the listening line says. */
  url: string;
  port: number;
  pid: number;
  /** The last part of what it wrote (stdout and stderr). */
  output(): string;
  /** True once the process has exited. */
  readonly exited: boolean;
  /** SIGTERM and wait for the exit code (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
  /** SIGKILL and wait until it is gone. */
  kill(): Promise<void>;
}

const live = new Set<ChildProcess>();
/** Data directories made for processes that were given none, removed when the test process exits. */
const madeDataDirs: string[] = [];
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const dir of madeDataDirs) rmSync(dir, { recursive: true, force: true });
    for (const child of live) {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
  });
}

/**
 * Start the sample with PORT=0 (plus `env`) and wait for its "listening" log line. Without a
 * KEEL_DATA_DIR in `env` each process gets a data directory of its own (its SQLite users), so
 * instances share no users unless a test gives them the same directory.
 */
export async function startSample(env: Record<string, string>): Promise<SampleProcess> {
  installExitHook();
  let dataDir = env["KEEL_DATA_DIR"];
  if (dataDir === undefined) {
    dataDir = mkdtempSync(join(tmpdir(), "keel-sample-data-"));
    madeDataDirs.push(dataDir);
  }
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "test", KEEL_ENV: "development", PORT: "0", ...env, KEEL_DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  let out = "";
  let gone = false;
  const keep = (d: Buffer): void => {
    out += d.toString();
    if (out.length > 2 * OUTPUT_TAIL_CHARS) out = out.slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      gone = true;
      live.delete(child);
      resolve(code);
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the sample printed no listening line within ${START_TIMEOUT_MS} ms:\n${out}`));
    }, START_TIMEOUT_MS);
    const look = (): void => {
      const m = /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(out) ?? /"url":"([^"]+)"[^\n]*"msg":"listening"/.exec(out);
      if (m === null) return;
      clearTimeout(timer);
      child.stdout.off("data", look);
      resolve(m[1]!);
    };
    child.stdout.on("data", look);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the sample exited (code ${code}) before listening:\n${out}`));
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid ?? 0,
    output: () => out.slice(-OUTPUT_TAIL_CHARS),
    get exited() {
      return gone;
    },
    async stop(graceMs = 10_000) {
      if (gone) return exited;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill() {
      if (!gone) child.kill("SIGKILL");
      await exited;
    },
  };
}

export interface TimedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Thrown by `sendWithin` when no complete answer came within its bound. */
export class RequestTimeoutError extends Error {}

/**
 * One HTTP request on a fresh connection, bounded by `timeoutMs` (default 5 s): rejects
 * RequestTimeoutError when the answer is not complete by then, so a hang is a failure, not a stall.
 */
export function sendWithin(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<TimedResponse> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "GET", headers: options.headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new RequestTimeoutError(`${options.method ?? "GET"} ${url}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(options.body);
  });
}
