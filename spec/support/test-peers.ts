// Test peers (real third-party clients to test interop against) installed on demand into
// <repo>/.tmp/test-peers/<name> (git-ignored), never into package.json. A failed install
// (offline machine) gives null, and the tests that need the peer skip with the reason.
// Test files run side by side (scripts/test.mjs), and several need the same peer: one process at
// a time installs into a peer's folder, under a lock directory beside it (withInstallLock).
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const INSTALL_TIMEOUT_MS = 180_000;
const installs = new Map<string, Promise<string | null>>();

function installedVersion(packageDir: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version?: unknown };
    return typeof manifest.version === "string" ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}

/** The directory of `name@version`, installing it first if needed; null when that fails. */
export function testPeer(name: string, version: string): Promise<string | null> {
  const key = `${name}@${version}`;
  let pending = installs.get(key);
  if (pending === undefined) {
    pending = install(name, version);
    installs.set(key, pending);
  }
  return pending;
}

async function install(name: string, version: string): Promise<string | null> {
  const prefix = join(root, ".tmp", "test-peers", name);
  const packageDir = join(prefix, "node_modules", name);
  return withInstallLock(prefix, async () => {
    // Checked under the lock: another process may be halfway through installing it.
    if (installedVersion(packageDir) === version) return packageDir;
    mkdirSync(prefix, { recursive: true });
    const ok = await new Promise<boolean>((resolve) => {
      execFile(
        "npm",
        ["install", "--prefix", prefix, `${name}@${version}`, "--no-save", "--no-audit", "--no-fund"],
        { timeout: INSTALL_TIMEOUT_MS, windowsHide: true },
        (error) => resolve(error === null),
      );
    });
    return ok && existsSync(packageDir) && installedVersion(packageDir) === version ? packageDir : null;
  });
}

/** How long a lock without its owner's pid may stand before it is taken as abandoned, ms. */
const OWNERLESS_LOCK_MS = 10_000;

/**
 * Run `task` holding `<prefix>.lock`, a directory made with mkdir (atomic: one process wins).
 * The others poll until it is gone. A lock whose owner process has exited (killed mid-install),
 * or that stands past the install timeout, is taken over.
 */
export async function withInstallLock<T>(prefix: string, task: () => Promise<T>): Promise<T> {
  const lock = `${prefix}.lock`;
  const giveUpAt = Date.now() + INSTALL_TIMEOUT_MS;
  mkdirSync(join(prefix, ".."), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (lockAbandoned(lock) || Date.now() > giveUpAt) rmSync(lock, { recursive: true, force: true });
      else await sleep(100);
    }
  }
  try {
    return await task();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function lockAbandoned(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, "pid"), "utf8"));
  } catch {
    // Made, its pid not written yet; abandoned only when that has lasted.
    try {
      return Date.now() - statSync(lock).mtimeMs > OWNERLESS_LOCK_MS;
    } catch {
      return false; // gone meanwhile: the next mkdir decides
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}
