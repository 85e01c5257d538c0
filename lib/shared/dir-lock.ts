// One process at a time per directory (the job store's journal, the audit log's chain): a lock
// file created exclusively and holding the owner's pid. A lock left by a process that no longer
// exists (killed with SIGKILL, say) is taken over; an empty lock file younger than a few seconds
// belongs to a process that is still writing its pid. The callers word the refusal: the error
// says why (`reason`) and, when another process holds it, which one (`pid`).
import { open, readFile, stat, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";

export type DirectoryLockRefusal = "held-here" | "held" | "being-taken" | "lost-race";

export class DirectoryLockError extends Error {
  readonly reason: DirectoryLockRefusal;
  /** The directory, resolved. */
  readonly dir: string;
  /** The live process holding the lock (reason "held"). */
  readonly pid: number;

  constructor(reason: DirectoryLockRefusal, dir: string, pid = 0) {
    super(`directory ${dir} is locked (${reason}${pid === 0 ? "" : `, process ${pid}`})`);
    this.name = "DirectoryLockError";
    this.reason = reason;
    this.dir = dir;
    this.pid = pid;
  }
}

const heldHere = new Set<string>();
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

/**
 * Lock `dir` with the lock file `file`; resolves to the release (safe to call twice). Rejects
 * with a DirectoryLockError when this process or another live one holds the lock.
 */
export async function lockDirectory(dir: string, file: string): Promise<() => Promise<void>> {
  const key = resolve(dir);
  const path = join(key, file);
  // Keyed by the lock file: a job store and an audit log may share a directory.
  if (heldHere.has(path)) throw new DirectoryLockError("held-here", key);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fh = await open(path, "wx");
      try {
        await fh.writeFile(String(process.pid));
      } finally {
        await fh.close();
      }
      heldHere.add(path);
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        heldHere.delete(path);
        await unlink(path).catch(() => undefined);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const owner = await lockOwner(path);
    if (typeof owner === "number") throw new DirectoryLockError("held", key, owner);
    if (owner === "fresh") throw new DirectoryLockError("being-taken", key);
    await unlink(path).catch(() => undefined);
  }
  throw new DirectoryLockError("lost-race", key);
}
