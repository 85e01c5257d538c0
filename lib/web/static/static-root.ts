// The directory files are served from, and the one check every served path goes through: its
// real path (symlinks resolved) must be the root or inside it, and, when dotfiles are denied, no
// name under the root may start with "." (a link `public/x -> .env` is refused like `.env`).
// The file is then opened without following a symlink (O_NOFOLLOW): a name swapped for a link
// between the check and the open fails instead of escaping. FIFOs and devices are never opened
// (O_NONBLOCK, then a regular-file check on the open descriptor).
import { constants, realpathSync, statSync, type Stats } from "node:fs";
import { open, realpath, type FileHandle } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Errors that mean "no such servable file": answered 404, never 500. */
const NOT_THERE = new Set(["ENOENT", "ENOTDIR", "ELOOP", "EACCES", "EPERM", "ENAMETOOLONG", "EINVAL", "EISDIR"]);

export interface OpenedFile {
  readonly handle: FileHandle;
  readonly stats: Stats;
  /** The real path of the file. */
  readonly path: string;
}

export type Located = { readonly kind: "file"; readonly file: OpenedFile } | { readonly kind: "directory"; readonly path: string } | null;

export class StaticRoot {
  /** The root's real path (symlinks resolved once, at startup). */
  readonly path: string;
  private readonly allowDotfiles: boolean;

  /** Throws a TypeError when `root` is not an existing directory (a wiring mistake, found at startup). */
  constructor(root: string, allowDotfiles: boolean) {
    if (typeof root !== "string" || root === "") throw new TypeError("serveStatic: root must be a directory path");
    let real: string;
    try {
      real = realpathSync(resolve(root));
    } catch {
      throw new TypeError(`serveStatic: root ${JSON.stringify(root)} does not exist`);
    }
    if (!statSync(real).isDirectory()) throw new TypeError(`serveStatic: root ${JSON.stringify(root)} is not a directory`);
    this.path = real;
    this.allowDotfiles = allowDotfiles;
  }

  /**
   * The regular file (opened) or directory at `segments` below the root, or null when there is
   * none that may be served. The caller closes an opened file's handle.
   */
  locate(segments: readonly string[]): Promise<Located> {
    return this.locatePath(segments.length === 0 ? this.path : join(this.path, ...segments));
  }

  /** A regular file named by a path (a precompressed sibling), under the same checks; null when none. */
  async locateFile(path: string): Promise<OpenedFile | null> {
    const found = await this.locatePath(path);
    return found !== null && found.kind === "file" ? found.file : null;
  }

  private async locatePath(candidate: string): Promise<Located> {
    const real = await this.realPathInside(candidate);
    if (real === null) return null;
    let handle: FileHandle;
    try {
      handle = await open(real, OPEN_FLAGS);
    } catch (err) {
      if (isNotThere(err)) return null;
      throw err;
    }
    let stats: Stats;
    try {
      stats = await handle.stat();
    } catch (err) {
      await handle.close();
      throw err;
    }
    if (stats.isFile()) return { kind: "file", file: { handle, stats, path: real } };
    await handle.close();
    return stats.isDirectory() ? { kind: "directory", path: real } : null;
  }

  /** The real path of `candidate` when it exists and lies inside the root (and passes the dotfile rule). */
  private async realPathInside(candidate: string): Promise<string | null> {
    let real: string;
    try {
      real = await realpath(candidate);
    } catch (err) {
      if (isNotThere(err)) return null;
      throw err;
    }
    if (real === this.path) return real;
    const root = this.path.endsWith(sep) ? this.path : this.path + sep;
    if (!real.startsWith(root)) return null;
    if (!this.allowDotfiles && relative(this.path, real).split(sep).some((name) => name.startsWith("."))) return null;
    return real;
  }
}

function isNotThere(err: unknown): boolean {
  return NOT_THERE.has((err as NodeJS.ErrnoException)?.code ?? "");
}
