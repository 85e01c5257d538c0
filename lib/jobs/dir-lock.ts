// One process at a time per store directory: a `lock` file holding the owner's pid. A lock left
// by a process that no longer exists (killed with SIGKILL, say) is taken over.
import { open, readFile, stat, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";

const heldHere = new Set<string>();
/** An empty lock file younger than this belongs to a process that is still writing its pid. */
const FRESH_LOCK_MS = 5000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function lockOwner(path: string): Promise<"stale" | "fresh" | number> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return "stale";
  }
  const pid = Number.parseInt(text.trim(), 10);
  if (Number.isInteger(pid) && pid > 0) return pid !== process.pid && isAlive(pid) ? pid : "stale";
  try {
    const info = await stat(path);
    return Date.now() - info.mtimeMs < FRESH_LOCK_MS ? "fresh" : "stale";
  } catch {
    return "stale";
  }
}

/** Lock `dir`; resolves to the release function. Throws when another live process holds it. */
export async function lockDirectory(dir: string): Promise<() => Promise<void>> {
  const key = resolve(dir);
  if (heldHere.has(key)) throw new Error(`job store directory ${key} is already open in this process`);
  const path = join(key, "lock");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fh = await open(path, "wx");
      try {
        await fh.writeFile(String(process.pid));
      } finally {
        await fh.close();
      }
      heldHere.add(key);
      return async () => {
        heldHere.delete(key);
        await unlink(path).catch(() => undefined);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const owner = await lockOwner(path);
    if (typeof owner === "number") throw new Error(`job store directory ${key} is locked by running process ${owner}`);
    if (owner === "fresh") throw new Error(`job store directory ${key} is being locked by another process`);
    await unlink(path).catch(() => undefined);
  }
  throw new Error(`could not lock job store directory ${key}`);
}
