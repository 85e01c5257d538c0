// One writer per audit directory. Two writers would each continue the chain from the same head
// and fork it, so a file log holds `audit.lock` (created exclusively, holding the owner's pid)
// while it is open. A lock whose process no longer exists (a crash, SIGKILL) is taken over;
// a second open in the same process, or one while another live process holds it, is refused.
import { open, readFile, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";

export const LOCK_FILE = "audit.lock";
const heldInThisProcess = new Set<string>();

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function tryCreate(path: string): Promise<boolean> {
  try {
    const handle = await open(path, "wx");
    try {
      await handle.writeFile(String(process.pid));
    } finally {
      await handle.close();
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

/** Take the directory's writer lock; resolves to its release. */
export async function lockAuditDirectory(dir: string): Promise<() => Promise<void>> {
  const key = resolve(dir);
  if (heldInThisProcess.has(key)) throw new Error(`audit: ${key} is already open for writing in this process`);
  heldInThisProcess.add(key);
  const path = join(key, LOCK_FILE);
  try {
    if (!(await tryCreate(path))) {
      const owner = Number.parseInt((await readFile(path, "utf8").catch(() => "")).trim(), 10);
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && processExists(owner)) {
        throw new Error(`audit: ${key} is being written by process ${owner} (one writer per audit directory)`);
      }
      // Stale: its writer is gone. Remove it and race once more, so two starters cannot both win.
      await unlink(path).catch(() => undefined);
      if (!(await tryCreate(path))) throw new Error(`audit: another process took the lock of ${key} first`);
    }
  } catch (err) {
    heldInThisProcess.delete(key);
    throw err;
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    heldInThisProcess.delete(key);
    await unlink(path).catch(() => undefined);
  };
}
