// `keel doctor`: what a bug report needs and what a misconfigured deploy gets wrong. Prints the
// Node version (and whether package.json `engines` covers its line), which built files exist
// (dist/keel.js with its features, the declarations, the sample server, the package entries),
// and configuration problems in the environment: KEEL_ENV, PORT and the service's other
// variables parsed as `node dist/server.js` would, and KEEL_* names nothing reads. Exit 0 when
// nothing is wrong, 1 when something is; a missing build is reported but is not a problem.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { KEEL_ENV_VALUES } from "../plugin.js";
import { parseServiceConfig } from "../service/index.js";
import { nodeSatisfies } from "./engines.js";
import type { CommandIo, ExitCode } from "./io.js";
import { KNOWN_KEEL_VARIABLES } from "./known-variables.js";
import type { ToolHome } from "./tool-home.js";

const BUILT_FILES = ["keel.js", "keel.d.ts", "server.js", "cli.js", "sample-app.js"] as const;

function builtFeatures(keelJs: string): string | undefined {
  // The bundle's banner names its features (scripts/build.mjs); 4 KiB is well past it.
  const head = readFileSync(keelJs, "utf8").slice(0, 4096);
  return / \* features: ([^\n]*)/.exec(head)?.[1]?.trim();
}

/** The configuration problems of `env`, one sentence each. */
export function configProblems(env: Readonly<Record<string, string | undefined>>, known: readonly string[] = []): string[] {
  const problems: string[] = [];
  const rest: Record<string, string | undefined> = { ...env };
  const keelEnv = env["KEEL_ENV"];
  if (keelEnv !== undefined && !(KEEL_ENV_VALUES as readonly string[]).includes(keelEnv)) {
    problems.push(`KEEL_ENV=${JSON.stringify(keelEnv)} is not one of ${KEEL_ENV_VALUES.join(", ")}`);
    delete rest["KEEL_ENV"];
  }
  const port = env["PORT"];
  if (port !== undefined && !(/^\d{1,5}$/.test(port.trim()) && Number(port) <= 65535)) {
    problems.push(`PORT=${JSON.stringify(port)} is not a TCP port (0 to 65535)`);
    delete rest["PORT"];
  }
  // The rest as the service reads them (timeouts, limits, HOST, WORKERS, LOG_LEVEL...): it stops
  // at its first complaint, so at most one more is reported here.
  try {
    parseServiceConfig([], rest);
  } catch (err) {
    problems.push(err instanceof Error ? err.message : String(err));
  }
  const allowed = new Set([...KNOWN_KEEL_VARIABLES, ...known]);
  for (const name of Object.keys(env).sort()) {
    if (name.startsWith("KEEL_") && !allowed.has(name)) problems.push(`${name} is set but nothing in keel reads it (a typo? an app's own: --known ${name})`);
  }
  return problems;
}

export function runDoctor(io: CommandIo, home: ToolHome, options: { dist?: string; known?: readonly string[] } = {}): ExitCode {
  const out: string[] = [];
  let failed = false;
  const range = home.pkg.engines?.node;
  const supported = range === undefined ? undefined : nodeSatisfies(process.version, range);
  out.push(`node      ${process.version} ${range === undefined ? "(no engines range found)" : supported === undefined ? `(engines "${range}": not a range this reads)` : supported ? `supported (engines "${range}")` : `NOT supported (engines "${range}")`}`);
  if (supported === false) failed = true;
  out.push(`keel      ${home.pkg.version ?? "unknown version"}${home.root === null ? "" : ` at ${home.root}`}`);

  const dist = options.dist ?? home.dist;
  const present = BUILT_FILES.filter((f) => existsSync(join(dist, f)));
  const missing = BUILT_FILES.filter((f) => !present.includes(f));
  out.push(`built     ${dist}: ${present.length === 0 ? "nothing (npm run build)" : present.join(", ")}${missing.length > 0 && present.length > 0 ? `; not built: ${missing.join(", ")}` : ""}`);
  if (present.includes("keel.js")) out.push(`features  ${builtFeatures(join(dist, "keel.js")) ?? "(keel.js names none)"}`);
  const entries = Object.keys(home.pkg.exports ?? {}).length;
  const pkgDir = join(dist, "pkg");
  if (entries > 0) {
    const built = existsSync(pkgDir) ? readdirSync(pkgDir).filter((f) => f.endsWith(".js")).length : 0;
    out.push(`entries   ${built} of ${entries} package entries in ${pkgDir}`);
  }

  const problems = configProblems(io.env, options.known);
  if (problems.length === 0) out.push("config    no problems found");
  else {
    failed = true;
    for (const p of problems) out.push(`problem   ${p}`);
  }
  io.stdout(out.join("\n") + "\n");
  return failed ? 1 : 0;
}
