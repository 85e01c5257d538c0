// A real PostgreSQL for tests: a throwaway cluster (initdb) in a temp dir, started with pg_ctl on
// a free loopback port and removed after. No mocks of Postgres anywhere; when the Debian package
// is not installed (or the server cannot run as a non-root user), startPostgres() answers null and
// the tests skip visibly with the reason.
//
// initdb and postgres refuse to run as root, and CI runs as root: then the binaries run as the
// `postgres` system user the Debian package creates (runuser), in a temp dir owned by it.
import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, chmodSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { freePort } from "./redis-server.js";
import { selfSignedCertificate } from "./test-certificate.js";

export interface PostgresServerHandle {
  readonly port: number;
  /** Superuser `keel` (SCRAM-SHA-256, password `keel-secret`), database `keel`. */
  readonly url: string;
  /** User `keel_md5` (md5 password `md5-secret`), database `keel`. */
  readonly md5Url: string;
  /** With `tls: true`: the self-signed certificate (its own CA); the server takes TLS and plain. */
  readonly ca?: string;
  readonly dir: string;
  readonly version: string;
  /** `pg_ctl stop -m fast` (the cluster and port stay for start()). */
  stopServer(): Promise<void>;
  /** Starts the stopped server again on the same port. */
  startServer(): Promise<void>;
  /** Runs SQL as the superuser through psql (setup and checks in tests). */
  psql(sqlText: string): Promise<string>;
  /** Stops the server and removes the cluster. */
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  /** Also accept TLS with a self-signed certificate (needs openssl). */
  readonly tls?: boolean;
  /** Extra postgresql.conf lines. */
  readonly config?: readonly string[];
}

const READY_TIMEOUT_MS = 20_000;
const PASSWORD = "keel-secret";
const MD5_PASSWORD = "md5-secret";

/** The directory holding initdb, pg_ctl, postgres and psql; null when none is installed. */
export function postgresBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const dir = join(root, v, "bin");
    if (existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  return null;
}

/** Why postgres cannot be started here, or null when it can. */
export function postgresUnavailable(): string | null {
  if (postgresBinDir() === null) return "PostgreSQL is not installed (Debian package postgresql)";
  if (userInfo().uid === 0) {
    try {
      execFileSync("id", ["-u", "postgres"], { stdio: "ignore" });
    } catch {
      return "running as root and there is no `postgres` user to run the server as";
    }
  }
  return null;
}

interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
}

function runAs(): RunAs {
  if (userInfo().uid !== 0) return {};
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

function run(file: string, args: string[], as: RunAs, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { ...as, timeout: timeoutMs, encoding: "utf8", env: { ...process.env, LC_ALL: "C" } }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${file} ${args.join(" ")} failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** True once the server accepts a TCP connection and answers an SSLRequest (one byte, S or N). */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => socket.write(Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f])));
    socket.on("data", () => done(true));
  });
}

/** Servers alive in this process, stopped (immediate mode) when it exits. */
const live = new Map<string, { pgCtl: string; as: RunAs }>();
let hookInstalled = false;
function installExitHook(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  process.on("exit", () => {
    for (const [data, { pgCtl, as }] of live) {
      try {
        execFileSync(pgCtl, ["stop", "-D", data, "-m", "immediate", "-w"], { ...as, stdio: "ignore", timeout: 10_000 });
      } catch {
        // already stopped
      }
    }
  });
}

/** A fresh cluster on a free loopback port with the users above; null (skip) when unavailable. */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServerHandle | null> {
  if (postgresUnavailable() !== null) return null;
  const bin = postgresBinDir()!;
  const as = runAs();
  installExitHook();

  const dir = mkdtempSync(join(tmpdir(), "keel-pg-"));
  const data = join(dir, "data");
  if (as.uid !== undefined) chownSync(dir, as.uid, as.gid!);
  chmodSync(dir, 0o700);
  const pwfile = join(dir, "pw");
  writeFileSync(pwfile, PASSWORD);
  if (as.uid !== undefined) chownSync(pwfile, as.uid, as.gid!);

  await run(join(bin, "initdb"), ["-D", data, "-U", "keel", "--pwfile", pwfile, "--auth", "scram-sha-256", "-E", "UTF8", "--locale", "C", "--no-sync"], as);
  const port = await freePort();
  const conf = [
    `listen_addresses = '127.0.0.1'`,
    `port = ${port}`,
    `unix_socket_directories = '${dir}'`,
    `fsync = off`,
    `synchronous_commit = off`,
    `full_page_writes = off`,
    `max_connections = 50`,
    `shared_buffers = 16MB`,
    `log_min_messages = warning`,
    ...(options.config ?? []),
  ];
  let ca: string | undefined;
  if (options.tls === true) {
    try {
      const { key, cert } = selfSignedCertificate();
      writeFileSync(join(data, "server.key"), key, { mode: 0o600 });
      writeFileSync(join(data, "server.crt"), cert);
      if (as.uid !== undefined) {
        chownSync(join(data, "server.key"), as.uid, as.gid!);
        chownSync(join(data, "server.crt"), as.uid, as.gid!);
      }
      ca = cert;
      conf.push(`ssl = on`);
    } catch {
      // openssl missing: no TLS; `ca` stays undefined and TLS tests skip.
    }
  }
  writeFileSync(join(data, "postgresql.auto.conf"), conf.join("\n") + "\n", { flag: "a" });
  // md5 for the md5 user, SCRAM for everyone else; loopback TCP only (plus the socket for psql).
  writeFileSync(
    join(data, "pg_hba.conf"),
    ["local all all trust", "host all keel_md5 127.0.0.1/32 md5", "host all all 127.0.0.1/32 scram-sha-256", ""].join("\n"),
  );
  if (as.uid !== undefined) chownSync(join(data, "pg_hba.conf"), as.uid, as.gid!);

  const pgCtl = join(bin, "pg_ctl");
  const psqlBin = join(bin, "psql");
  const startServer = async (): Promise<void> => {
    await run(pgCtl, ["start", "-D", data, "-l", join(dir, "server.log"), "-w", "-t", String(READY_TIMEOUT_MS / 1000)], as, READY_TIMEOUT_MS + 5000);
    live.set(data, { pgCtl, as });
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await answers(port))) {
      if (Date.now() > deadline) throw new Error(`postgres did not answer on ${port}:\n${readLog(dir)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stopServer = async (): Promise<void> => {
    await run(pgCtl, ["stop", "-D", data, "-m", "fast", "-w"], as);
    live.delete(data);
  };
  const psql = (sqlText: string): Promise<string> =>
    run(psqlBin, ["-h", dir, "-p", String(port), "-U", "keel", "-d", "keel", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sqlText], as);

  await startServer();
  await run(psqlBin, ["-h", dir, "-p", String(port), "-U", "keel", "-d", "postgres", "-X", "-q", "-c", "create database keel"], as);
  await psql(`set password_encryption = 'md5'; create user keel_md5 password '${MD5_PASSWORD}'; grant all on database keel to keel_md5; grant all on schema public to keel_md5;`);
  const version = (await psql("show server_version")).trim();

  return {
    port,
    url: `postgres://keel:${PASSWORD}@127.0.0.1:${port}/keel`,
    md5Url: `postgres://keel_md5:${MD5_PASSWORD}@127.0.0.1:${port}/keel`,
    ...(ca === undefined ? {} : { ca }),
    dir,
    version,
    stopServer,
    startServer,
    psql,
    async stop() {
      try {
        await run(pgCtl, ["stop", "-D", data, "-m", "immediate", "-w"], as);
      } catch {
        // already stopped
      }
      live.delete(data);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function readLog(dir: string): string {
  try {
    return readFileSync(join(dir, "server.log"), "utf8").split("\n").slice(-20).join("\n");
  } catch {
    return "(no log)";
  }
}
