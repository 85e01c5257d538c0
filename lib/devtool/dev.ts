// `keel dev [entry]`: run the entry with node and run it again whenever a file under the watched
// folders changes. Changes are debounced (an editor's save is several events; `git checkout` is
// hundreds), the old process gets SIGTERM and is waited for (so the port is free again; SIGKILL
// after STOP_TIMEOUT_MS), then the new one starts. A process that exits on its own is reported
// and started again on the next change. SIGINT/SIGTERM stop the child and end with exit 0.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { CommandIo } from "./io.js";
import { watchFiles } from "./file-watch.js";

export const DEBOUNCE_MS = 150;
export const STOP_TIMEOUT_MS = 5_000;

export interface DevOptions {
  entry?: string;
  /** Folders to watch (default: the working directory). */
  watch?: readonly string[];
  poll?: boolean;
}

/** The entry when none is named: package.json `main`, else server.js. */
export function defaultEntry(cwd: string): string {
  try {
    const main = (JSON.parse(readFileSync(resolve(cwd, "package.json"), "utf8")) as { main?: unknown }).main;
    if (typeof main === "string" && main !== "") return main;
  } catch {
    // no package.json, or not JSON: the default
  }
  return "server.js";
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const killer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    child.once("exit", () => {
      clearTimeout(killer);
      done();
    });
    child.kill("SIGTERM");
  });
}

/** Runs until SIGINT/SIGTERM; resolves with the exit code. */
export function runDev(io: CommandIo, options: DevOptions): Promise<number> {
  const entry = resolve(io.cwd, options.entry ?? defaultEntry(io.cwd));
  const say = (line: string): void => io.stderr(`[keel dev] ${line}\n`);
  if (!existsSync(entry)) {
    io.stderr(`keel dev: ${entry} does not exist (name the entry: keel dev <file>)\n`);
    return Promise.resolve(1);
  }
  const dirs = (options.watch ?? ["."]).map((d) => resolve(io.cwd, d));
  let child: ChildProcess | null = null;
  let timer: NodeJS.Timeout | null = null;
  let restarting: Promise<void> = Promise.resolve();
  let stopping = false;

  const start = (): void => {
    const c = spawn(process.execPath, [entry], { cwd: io.cwd, env: { ...io.env }, stdio: "inherit" });
    child = c;
    c.on("exit", (code, signal) => {
      if (child === c && !stopping) say(`${relative(io.cwd, entry)} exited (${signal ?? `code ${code}`}); waiting for a change`);
    });
  };
  let queued = false;
  const restart = (why: string): void => {
    // One restart at a time, and at most one waiting behind it: changes that come while one
    // waits are already covered by it.
    if (queued) return;
    queued = true;
    restarting = restarting.then(async () => {
      queued = false;
      if (stopping) return;
      say(`restarting: ${why}`);
      if (child !== null) await stop(child);
      if (!stopping) start();
    });
  };
  const watching = watchFiles(
    dirs,
    (path) => {
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        restart(`${relative(io.cwd, path) || path} changed`);
      }, DEBOUNCE_MS);
    },
    { ...(options.poll === undefined ? {} : { poll: options.poll }), warn: say },
  );
  say(`running ${relative(io.cwd, entry)}; watching ${dirs.map((d) => relative(io.cwd, d) || ".").join(", ")} (${watching.mode})`);
  start();

  return new Promise((done) => {
    const finish = (): void => {
      if (stopping) return;
      stopping = true;
      watching.close();
      if (timer !== null) clearTimeout(timer);
      void restarting.then(() => (child === null ? undefined : stop(child))).then(() => done(0));
    };
    process.once("SIGINT", finish);
    process.once("SIGTERM", finish);
  });
}
