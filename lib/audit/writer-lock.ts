// One writer per audit directory. Two writers would each continue the chain from the same head
// and fork it, so a file log holds `audit.lock` (lib/util/dir-lock.ts: created exclusively,
// holding the owner's pid, taken over from a process that no longer exists) while it is open.
import { DirectoryLockError, lockDirectory } from "../shared/dir-lock.js";

export const LOCK_FILE = "audit.lock";

/** Take the directory's writer lock; resolves to its release. */
export async function lockAuditDirectory(dir: string): Promise<() => Promise<void>> {
  try {
    return await lockDirectory(dir, LOCK_FILE);
  } catch (err) {
    if (!(err instanceof DirectoryLockError)) throw err;
    const d = err.dir;
    if (err.reason === "held-here") throw new Error(`audit: ${d} is already open for writing in this process`);
    if (err.reason === "held") throw new Error(`audit: ${d} is being written by process ${err.pid} (one writer per audit directory)`);
    throw new Error(`audit: another process took the lock of ${d} first`);
  }
}
