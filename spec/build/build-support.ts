// Shared by the build tests: run the build script, tsc and plain node in scratch folders
// outside the repo, and read the export lists of the files the build writes.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build as esbuild } from "esbuild";

export const root = fileURLToPath(new URL("../..", import.meta.url));
export const tscBin = join(root, "node_modules/typescript/bin/tsc");
export const buildScript = join(root, "scripts/build.mjs");

/** Child environment without the test runner's own settings (tsx loader, test context). */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env["NODE_OPTIONS"];
  delete env["NODE_TEST_CONTEXT"];
  return env;
}

export interface RunResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `node <args>` in `cwd`; resolves with its exit status and output (killed after `timeoutMs`). */
export function run(args: string[], cwd: string, timeoutMs = 60_000): Promise<RunResult> {
  return runCommand(process.execPath, args, cwd, timeoutMs);
}

/** `command <args>` in `cwd`, as `run` does for node (with `env`, default childEnv()). */
export function runCommand(command: string, args: readonly string[], cwd: string, timeoutMs = 60_000, env: NodeJS.ProcessEnv = childEnv()): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

export function explain(r: RunResult): string {
  return `exit ${r.status ?? r.signal}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

/** The names in a file's last `export { a, b as c, type d as e }` list (the exported side). */
export function exportList(text: string): string[] {
  const heads = [...text.matchAll(/\bexport\s*\{/g)];
  const last = heads[heads.length - 1];
  if (last === undefined) return [];
  const start = last.index + last[0].length;
  const body = text.slice(start, text.indexOf("}", start));
  return body
    .split(",")
    .map((item) => item.trim().replace(/^type\s+/, ""))
    .filter((item) => item !== "")
    .map((item) => item.split(/\s+as\s+/).pop() ?? item);
}

/** The source files esbuild put into an unminified bundle (its `// lib/x.ts` module markers). */
export function bundledFiles(js: string): string[] {
  return [...js.matchAll(/^\/\/ (lib\/\S+\.ts)$/gm)].map((m) => String(m[1]));
}

const entryExportsCache = new Map<string, Promise<string[]>>();

/** The runtime names an entry module exports (esbuild's view, as the build sees them). */
export function entryExports(entry: string): Promise<string[]> {
  let cached = entryExportsCache.get(entry);
  if (cached === undefined) {
    cached = esbuild({
      absWorkingDir: root,
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "esm",
      external: ["node:*"],
      write: false,
      metafile: true,
      outfile: "out.js",
      logLevel: "silent",
    }).then((r) => Object.values(r.metafile.outputs)[0]?.exports ?? []);
    entryExportsCache.set(entry, cached);
  }
  return cached;
}
