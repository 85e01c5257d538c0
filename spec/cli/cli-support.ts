// Shared by the CLI specs: build the tool once per file (dist/cli.js, dist/sample-app.js and
// dist/keel.js, without typecheck or declarations: under a second) into a scratch folder under the
// repo's ignored .tmp/ (so the tool finds keel's package.json above it, as in a checkout), and
// run it as a process with an environment the test chooses.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { root, runCommand, type RunResult } from "../build/build-support.js";

export { explain, root, tscBin, type RunResult } from "../build/build-support.js";

/** The environment of a child: no test-runner settings, no KEEL_* or PORT of the machine's. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === "NODE_OPTIONS" || k === "NODE_TEST_CONTEXT" || k.startsWith("KEEL_") || k === "PORT" || k === "HOST") continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** `node <args>` in `cwd` with `env` (default: a clean one). */
export function runNode(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv(), timeoutMs = 60_000): Promise<RunResult> {
  return runCommand(process.execPath, args, cwd, timeoutMs, env);
}

/** A scratch folder under <repo>/.tmp holding the built tool; `cleanup` removes it. */
export async function buildTool(): Promise<{ dir: string; cli: string; cleanup: () => void }> {
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const dir = mkdtempSync(join(root, ".tmp", "cli-spec-"));
  const { buildDevtool } = (await import(pathToFileURL(join(root, "scripts/build.mjs")).href)) as { buildDevtool: (o: { outDir: string }) => Promise<string> };
  await buildDevtool({ outDir: dir });
  return { dir, cli: join(dir, "cli.js"), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
