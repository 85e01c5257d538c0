// `--node <path|major>` for the benchmark scripts: the whole script runs again under that Node
// binary (servers, load generator and report alike, since they all start from process.execPath),
// so a report names the Node that produced it. A bare major (`--node 24`) or an exact version
// (`--node 26.12.1`) is resolved by scripts/node-versions.mjs into the ignored .tmp/node cache.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const VERSION = /^\d+(\.\d+\.\d+)?$/;

/** `argv` without `--node X` / `--node=X`, and X (null when absent). */
export function takeNodeOption(argv) {
  const rest = [];
  let node = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--node") {
      node = argv[++i] ?? "";
      if (node === "") throw new Error("--node needs a path to a node binary, or a version (24, 26.12.1)");
    } else if (a.startsWith("--node=")) node = a.slice("--node=".length);
    else rest.push(a);
  }
  return { node, rest };
}

function resolveBinary(spec) {
  if (!VERSION.test(spec)) {
    if (!existsSync(spec)) throw new Error(`--node ${spec}: no such file`);
    return spec;
  }
  const script = fileURLToPath(new URL("../../scripts/node-versions.mjs", import.meta.url));
  const out = execFileSync(process.execPath, [script, spec], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  return out.split("\n").pop();
}

/**
 * When `--node` names another binary, run `script` under it with the other arguments and exit with
 * its status; otherwise return the arguments without `--node`.
 */
export function runUnderChosenNode(script, argv) {
  const { node, rest } = takeNodeOption(argv);
  if (node === null) return rest;
  const binary = resolveBinary(node);
  const version = execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
  if (version === process.version && binary === process.execPath) return rest;
  process.stderr.write(`running ${fileURLToPath(script)} under ${binary} (${version})\n`);
  const child = spawnSync(binary, [fileURLToPath(script), ...rest], { stdio: "inherit" });
  if (child.error !== undefined) throw child.error;
  process.exit(child.status ?? 1);
}
