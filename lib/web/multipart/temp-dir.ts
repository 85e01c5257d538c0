// The temporary directory of one request's uploads: `os.tmpdir()/keel-upload-<random>/` (mkdtemp:
// mode 0700), files created with O_EXCL and mode 0600 under names we choose (never the client's).
// Every directory still present when the process exits is removed synchronously then, as a last
// resort for requests whose response never finished.
import { randomBytes } from "node:crypto";
import { createWriteStream, rmSync, type WriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const live = new Set<string>();
let exitHookInstalled = false;

function removeAllOnExit(): void {
  for (const dir of live) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // exiting anyway: nothing better to do with a directory we cannot remove
    }
  }
  live.clear();
}

export class UploadDir {
  private dirPromise: Promise<string> | null = null;
  private removed: Promise<void> | null = null;
  private count = 0;

  /** The directory, created on first use. */
  private dir(): Promise<string> {
    return (this.dirPromise ??= mkdtemp(join(tmpdir(), "keel-upload-")).then((dir) => {
      live.add(dir);
      if (!exitHookInstalled) {
        exitHookInstalled = true;
        process.once("exit", removeAllOnExit);
      }
      return dir;
    }));
  }

  /** A new, exclusively created file (0600) in the directory, with its path. */
  async createFile(): Promise<{ path: string; stream: WriteStream }> {
    if (this.removed !== null) throw new Error("upload directory already removed");
    const dir = await this.dir();
    const path = join(dir, `${++this.count}-${randomBytes(8).toString("hex")}`);
    return { path, stream: createWriteStream(path, { flags: "wx", mode: 0o600 }) };
  }

  /** Remove the directory and everything in it (once; later calls share the first removal). */
  remove(): Promise<void> {
    if (this.removed !== null) return this.removed;
    const pending = this.dirPromise;
    this.removed = pending === null
      ? Promise.resolve()
      : pending.then(
          (dir) => rm(dir, { recursive: true, force: true, maxRetries: 2 }).then(() => void live.delete(dir)),
          () => undefined,
        );
    return this.removed;
  }
}
