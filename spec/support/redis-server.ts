// A real redis-server for tests: started on a free loopback port in a temp dir, stopped after.
// No mocks of Redis anywhere; when the Debian package is not installed, startRedis() answers null
// and the tests skip visibly.
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

export interface RedisServerHandle {
  port: number;
  /** redis://[:password@]127.0.0.1:port */
  url: string;
  dir: string;
  /** With `tls: true`: the TLS port, its rediss:// URL and the self-signed CA (the certificate itself). */
  tlsPort?: number;
  tlsUrl?: string;
  ca?: string;
  /** SIGTERM, wait for exit, remove the temp dir. */
  stop(): Promise<void>;
  /** Stop (keeping the dir) and start again on the same port; data kept via the AOF. */
  restart(): Promise<void>;
  /** SIGKILL, no wait (the dir stays until stop()). */
  kill(): void;
}

export interface StartRedisOptions {
  password?: string;
  /** Default true (with appendfsync always). */
  appendonly?: boolean;
  /** Also listen for TLS on a second port with a self-signed certificate (needs openssl). */
  tls?: boolean;
}

const READY_TIMEOUT_MS = 10_000;

/** Servers alive in this process, killed when it exits so no test leaves one behind. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", killAllLive);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    const onSignal = (): void => {
      killAllLive();
      process.off(signal, onSignal);
      // Re-raise so the default behaviour (exit) happens when nobody else listens.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

function killAllLive(): void {
  for (const child of live) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
  live.clear();
}

/** The redis-server binary: /usr/bin/redis-server or one on PATH; null when absent. */
export function redisServerPath(): string | null {
  if (existsSync("/usr/bin/redis-server")) return "/usr/bin/redis-server";
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "redis-server");
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** A loopback port free right now (listen on 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function bulk(s: string): string {
  return `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
}

/** One PING over a raw socket (AUTH first with a password): true on +PONG. */
function pingOnce(port: number, password: string | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    let text = "";
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => {
      const auth = password === undefined ? "" : `*2\r\n${bulk("AUTH")}${bulk(password)}`;
      socket.write(`${auth}*1\r\n${bulk("PING")}`);
    });
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (text.includes("+PONG\r\n")) done(true);
      else if (password === undefined ? text.includes("\r\n") : text.split("\r\n").length > 2) done(false);
    });
  });
}

function makeCertificate(dir: string): { cert: string; key: string } | null {
  const certPath = join(dir, "tls-cert.pem");
  const keyPath = join(dir, "tls-key.pem");
  try {
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-days", "1",
      "-keyout", keyPath, "-out", certPath,
    ], { stdio: "ignore" });
  } catch {
    return null;
  }
  return { cert: certPath, key: keyPath };
}

/** Starts redis-server on a free loopback port in a temp dir, waits until it answers PING; null when redis-server is not installed. */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServerHandle | null> {
  const binary = redisServerPath();
  if (binary === null) return null;
  installExitHook();

  const dir = mkdtempSync(join(tmpdir(), "keel-redis-"));
  const port = await freePort();
  const args = [
    "--port", String(port), "--bind", "127.0.0.1", "--dir", dir,
    "--appendonly", options.appendonly === false ? "no" : "yes", "--appendfsync", "always",
    "--save", "", "--daemonize", "no", "--logfile", join(dir, "redis.log"),
    // DEBUG SLEEP / DEBUG PROTOCOL for tests (loopback only).
    "--enable-debug-command", "local",
  ];
  if (options.password !== undefined) args.push("--requirepass", options.password);

  let tlsPort: number | undefined;
  let ca: string | undefined;
  if (options.tls === true) {
    const files = makeCertificate(dir);
    if (files !== null) {
      tlsPort = await freePort();
      ca = readFileSync(files.cert, "utf8");
      args.push(
        "--tls-port", String(tlsPort), "--tls-cert-file", files.cert, "--tls-key-file", files.key,
        "--tls-ca-cert-file", files.cert, "--tls-auth-clients", "no",
      );
    }
  }

  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();

  const launch = async (): Promise<void> => {
    const proc = spawn(binary, args, { stdio: "ignore" });
    child = proc;
    live.add(proc);
    let gone = false;
    exited = new Promise<void>((resolve) => {
      proc.once("exit", () => {
        gone = true;
        live.delete(proc);
        resolve();
      });
      proc.once("error", () => {
        gone = true;
        live.delete(proc);
        resolve();
      });
    });
    // A forgotten server must not keep the test process alive; the exit hook kills it.
    proc.unref();
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (gone) throw new Error(`redis-server exited during startup:\n${readLog(dir)}`);
      if (await pingOnce(port, options.password)) return;
      if (Date.now() > deadline) {
        proc.kill("SIGKILL");
        throw new Error(`redis-server did not answer PING within ${READY_TIMEOUT_MS} ms:\n${readLog(dir)}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  const halt = async (signal: NodeJS.Signals): Promise<void> => {
    const proc = child as ChildProcess | null;
    if (proc === null) return;
    child = null;
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.ref(); // keep the loop alive until it has really exited
      proc.kill(signal);
    }
    await exited;
  };

  await launch();

  const auth = options.password === undefined ? "" : `:${encodeURIComponent(options.password)}@`;
  const handle: RedisServerHandle = {
    port,
    url: `redis://${auth}127.0.0.1:${port}`,
    dir,
    async stop() {
      await halt("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await halt("SIGTERM");
      await launch();
    },
    kill() {
      const proc = child as ChildProcess | null;
      if (proc !== null && proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    },
  };
  if (tlsPort !== undefined && ca !== undefined) {
    handle.tlsPort = tlsPort;
    handle.tlsUrl = `rediss://${auth}localhost:${tlsPort}`;
    handle.ca = ca;
  }
  return handle;
}

function readLog(dir: string): string {
  try {
    return readFileSync(join(dir, "redis.log"), "utf8").split("\n").slice(-20).join("\n");
  } catch {
    return "(no log)";
  }
}
