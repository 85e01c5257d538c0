// Change notices for `keel dev`: fs.watch with `recursive` where the platform has it (macOS,
// Windows, Linux since Node 20), otherwise (or with --poll) a scan of modification times every
// POLL_MS. Either way node_modules, .git and dot-folders are skipped, and a scan stops at
// MAX_POLLED_FILES files (it says so once) so a huge tree cannot make every poll unbounded.
import { readdirSync, statSync, watch, type FSWatcher } from "node:fs";
import { join, relative } from "node:path";

const POLL_MS = 300;
const MAX_POLLED_FILES = 10_000;

function skipped(name: string): boolean {
  return name === "node_modules" || name.startsWith(".");
}

function ignoredPath(path: string): boolean {
  return path.split(/[\\/]/).some(skipped);
}

export interface Watching {
  close(): void;
  readonly mode: "events" | "polling";
}

function scan(dirs: readonly string[], warn: (line: string) => void, warned: { done: boolean }): Map<string, number> {
  const seen = new Map<string, number>();
  const stack = [...dirs];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (skipped(e.name)) continue;
      const full = join(dir, e.name);
      if (e.isDirectory()) stack.push(full);
      else if (seen.size >= MAX_POLLED_FILES) {
        if (!warned.done) warn(`more than ${MAX_POLLED_FILES} files under ${dirs.join(", ")}: only the first ${MAX_POLLED_FILES} are polled (name narrower folders with --watch)`);
        warned.done = true;
        return seen;
      } else {
        try {
          seen.set(full, statSync(full).mtimeMs);
        } catch {
          // gone between readdir and stat: the next scan sees it missing
        }
      }
    }
  }
  return seen;
}

function poll(dirs: readonly string[], onChange: (path: string) => void, warn: (line: string) => void): Watching {
  const warned = { done: false };
  let before = scan(dirs, warn, warned);
  const timer = setInterval(() => {
    const now = scan(dirs, warn, warned);
    let changed: string | undefined;
    for (const [path, mtime] of now) if (before.get(path) !== mtime) changed ??= path;
    for (const path of before.keys()) if (!now.has(path)) changed ??= path;
    before = now;
    if (changed !== undefined) onChange(changed);
  }, POLL_MS);
  return { mode: "polling", close: () => clearInterval(timer) };
}

export function watchFiles(dirs: readonly string[], onChange: (path: string) => void, options: { poll?: boolean; warn: (line: string) => void }): Watching {
  if (options.poll === true) return poll(dirs, onChange, options.warn);
  const watchers: FSWatcher[] = [];
  try {
    for (const dir of dirs) {
      const w = watch(dir, { recursive: true }, (_event, name) => {
        const rel = name === null ? "" : String(name);
        if (rel === "" || !ignoredPath(rel)) onChange(join(dir, rel));
      });
      // A watched folder removed or unreadable: say so; the poller is not started behind the user's back.
      w.on("error", (err) => options.warn(`watching ${relative(process.cwd(), dir) || "."} failed: ${err.message}`));
      watchers.push(w);
    }
  } catch (err) {
    for (const w of watchers) w.close();
    if ((err as NodeJS.ErrnoException).code === "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM") return poll(dirs, onChange, options.warn);
    throw err;
  }
  return { mode: "events", close: () => watchers.forEach((w) => w.close()) };
}
