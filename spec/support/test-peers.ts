// Test peers (real third-party clients to test interop against) installed on demand into
// <repo>/.tmp/test-peers/<name> (git-ignored), never into package.json. A failed install
// (offline machine) gives null, and the tests that need the peer skip with the reason.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
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
}
