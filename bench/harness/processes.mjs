// Child processes for the benchmark: servers and the load generator, each pinned to its own CPU
// with `taskset` when it is available, and plain commands with a time limit.
import { execFileSync, spawn } from "node:child_process";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";

const WORKER = fileURLToPath(new URL("./loadgen-worker.mjs", import.meta.url));

/** Children still running; killed if the harness exits early (Ctrl-C, a crash). */
const live = new Set();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

export function track(child) {
  live.add(child);
  child.once("exit", () => live.delete(child));
  return child;
}

/** `taskset -c N` when the machine has it and at least two CPUs; otherwise no pinning. */
export function detectPinning() {
  const cpuCount = cpus().length;
  if (process.platform !== "linux" || cpuCount < 2) return { available: false, reason: `${cpuCount} CPU(s)` };
  try {
    execFileSync("taskset", ["-c", "0", "true"], { stdio: "ignore" });
    return { available: true, serverCpu: 0, clientCpu: 1 };
  } catch {
    return { available: false, reason: "taskset not found" };
  }
}

/** [command, args] for node with `args`, pinned to `cpu` when pinning is on. */
export function nodeCommand(pinning, cpu, nodeArgs) {
  if (pinning.available && cpu !== null) return ["taskset", ["-c", String(cpu), process.execPath, ...nodeArgs]];
  return [process.execPath, nodeArgs];
}

export function clockTicksPerSecond() {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}

/**
 * Start a benchmark server (a bundled file from bench/servers). Resolves when it prints
 * BENCH_READY (→ { port, pid, stop }) or BENCH_PENDING (→ { pending: reason }).
 */
export function startServer({ file, args = [], pinning, nodeFlags = [], env = process.env, timeoutMs = 20_000 }) {
  const [cmd, cmdArgs] = nodeCommand(pinning, pinning.available ? pinning.serverCpu : null, [...nodeFlags, file, ...args]);
  const child = track(spawn(cmd, cmdArgs, { stdio: ["ignore", "ignore", "pipe"], env }));
  return new Promise((resolve, reject) => {
    let buffered = "";
    let settled = false;
    const timer = setTimeout(() => fail(new Error(`server ${file} did not start within ${timeoutMs} ms\n${buffered}`)), timeoutMs);
    const fail = (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(err);
    };
    child.on("error", fail);
    child.on("exit", (code, signal) => fail(new Error(`server ${file} exited (${code ?? signal}) before it was ready\n${buffered}`)));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      if (settled) return;
      buffered += chunk;
      for (const line of buffered.split("\n")) {
        const ready = /^BENCH_READY (.*)$/.exec(line);
        const pending = /^BENCH_PENDING (.*)$/.exec(line);
        if (!ready && !pending) continue;
        settled = true;
        clearTimeout(timer);
        child.removeAllListeners("exit");
        if (pending) {
          child.kill("SIGKILL");
          resolve({ pending: JSON.parse(pending[1]).reason });
          return;
        }
        const info = JSON.parse(ready[1]);
        resolve({ pending: null, port: info.port, pid: info.pid, url: `http://127.0.0.1:${info.port}`, stop: () => stopChild(child) });
        return;
      }
    });
  });
}

/** SIGTERM (the servers exit cleanly so --cpu-prof can write), SIGKILL after 5 s. */
export function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** The load generator child: `run(spec)` → measurement; `close()` when done. */
export async function startLoadGenerator(pinning) {
  const [cmd, cmdArgs] = nodeCommand(pinning, pinning.available ? pinning.clientCpu : null, [WORKER]);
  const child = track(spawn(cmd, cmdArgs, { stdio: ["ignore", "inherit", "inherit", "ipc"] }));
  const waiting = new Map();
  let nextId = 1;
  await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`load generator exited early (${code})`)));
    child.once("message", resolve);
  });
  child.removeAllListeners("exit");
  child.on("exit", () => {
    for (const { reject } of waiting.values()) reject(new Error("load generator exited"));
    waiting.clear();
  });
  child.on("message", (msg) => {
    const w = waiting.get(msg.id);
    if (w === undefined) return;
    waiting.delete(msg.id);
    if (msg.ok) w.resolve(msg.result);
    else w.reject(new Error(msg.error));
  });
  return {
    pid: child.pid,
    run(spec) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.send({ type: "run", id, spec });
      });
    },
    close() {
      if (child.connected) child.send({ type: "exit" });
      return stopChild(child);
    },
  };
}

/** Run a command to completion with a time limit → { code, stdout, stderr, ms, timedOut }. */
export function runCommand(cmd, args, { cwd, env = process.env, timeoutMs = 120_000 } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = track(spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] }));
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: stderr + String(err), ms: Date.now() - started, timedOut });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started, timedOut });
    });
  });
}
