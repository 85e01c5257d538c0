// One process at a time per job store directory (lib/util/dir-lock.ts), with the job store's words.
import { DirectoryLockError, lockDirectory } from "../shared/dir-lock.js";

/** Lock `dir`; resolves to the release function. Throws when another live process holds it. */
export async function lockStoreDirectory(dir: string): Promise<() => Promise<void>> {
  try {
    return await lockDirectory(dir, "lock");
  } catch (err) {
    if (!(err instanceof DirectoryLockError)) throw err;
    const d = err.dir;
    if (err.reason === "held-here") throw new Error(`job store directory ${d} is already open in this process`);
    if (err.reason === "held") throw new Error(`job store directory ${d} is locked by running process ${err.pid}`);
    if (err.reason === "being-taken") throw new Error(`job store directory ${d} is being locked by another process`);
    throw new Error(`could not lock job store directory ${d}`);
  }
}
