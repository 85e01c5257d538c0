// The freshness stamp of dist/server.js, so that `npm start` rebuilds the sample only when
// something it is built from changed (scripts/start-build.mjs) and never serves a stale build.
//
// The stamp (dist/.server-build.json) records a SHA-256 of every input and of every output as the
// build saw them. Inputs: every file under lib/ (the sample's sources and lib/sample/public, a
// superset of what esbuild bundles, so a new file that changes how an import resolves counts
// too), scripts/build.mjs and the scripts it imports, package.json (the banner's version;
// esbuild's module type), tsconfig.json (esbuild reads it) and the installed esbuild's version.
// Outputs: dist/server.js, dist/public/** and dist/migrations/**, so a missing, edited or half-written output
// rebuilds as well. Content hashes, not mtimes: git checkout/stash, `cp -p`, tar, rsync -a and
// backups can put back a file whose mtime is older than the build, and an mtime check would then
// serve the stale bundle; hashing the ~3 MiB of inputs costs tens of milliseconds. The build-time
// features (`--features`) are not an input: they shape dist/keel.js, never dist/server.js.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";

/** The stamp's name inside the output folder. */
export const STAMP_FILE = ".server-build.json";
/** Bumped when what the stamp records changes, so an older stamp never vouches for a build. */
const STAMP_FORMAT = 1;
/** The scripts whose code decides what dist/server.js holds (their local imports follow). */
const BUILD_SCRIPTS = ["scripts/build.mjs", "scripts/start-build.mjs"];
const CONFIG_FILES = ["package.json", "tsconfig.json"];

function sha256(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

const toPosix = (path) => path.split(sep).join("/");

/** Every file under `dir`, as paths relative to `base`, sorted. */
function filesUnder(dir, base, out = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = join(dir, entry.name);
    if (entry.isDirectory() || (entry.isSymbolicLink() && statSync(full).isDirectory())) filesUnder(full, base, out);
    else out.push(toPosix(relative(base, full)));
  }
  return out;
}

/** `script` and the local modules it imports (static or dynamic), transitively. */
function withLocalImports(root, script, seen = new Set()) {
  if (seen.has(script)) return seen;
  seen.add(script);
  const text = readFileSync(join(root, script), "utf8");
  // Statements at the start of a line and awaited import()s: not the examples in comments.
  const imports = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*["'](\.\.?\/[^"']+)["']/gm), ...text.matchAll(/\bawait import\(["'](\.\.?\/[^"']+)["']\)/g)];
  for (const m of imports) {
    withLocalImports(root, toPosix(join(dirname(script), String(m[1]))), seen);
  }
  return seen;
}

function esbuildVersion(root) {
  const require = createRequire(join(root, "package.json"));
  return String(JSON.parse(readFileSync(require.resolve("esbuild/package.json"), "utf8")).version);
}

/**
 * What dist/server.js is built from now: { "lib/...": sha256, ..., "esbuild": version }. Read it
 * before bundling: a file edited during the build then no longer matches the stamp.
 */
export function serverInputs(root) {
  const scripts = new Set();
  for (const script of BUILD_SCRIPTS) withLocalImports(root, script, scripts);
  const paths = [...filesUnder(join(root, "lib"), root), ...[...scripts].sort(), ...CONFIG_FILES];
  const inputs = {};
  for (const path of paths) inputs[path] = sha256(readFileSync(join(root, path)));
  inputs["esbuild"] = esbuildVersion(root);
  return inputs;
}

/** What the build wrote for the sample, as it is now: { "server.js": sha256, "public/...": ... }. */
export function serverOutputs(outDir) {
  const outputs = {};
  for (const path of ["server.js", ...filesUnder(join(outDir, "public"), outDir), ...filesUnder(join(outDir, "migrations"), outDir)]) {
    const full = join(outDir, path);
    outputs[path] = existsSync(full) ? sha256(readFileSync(full)) : null;
  }
  return outputs;
}

/** Drop the stamp before writing outputs: a build that stops halfway leaves no stamp behind. */
export function removeStamp(outDir) {
  rmSync(join(outDir, STAMP_FILE), { force: true });
}

/** After dist/server.js and dist/public are written: vouch for them, built from `inputs`. */
export function writeStamp(outDir, inputs) {
  const stamp = { format: STAMP_FORMAT, inputs, outputs: serverOutputs(outDir) };
  writeFileSync(join(outDir, STAMP_FILE), JSON.stringify(stamp, null, 1) + "\n");
}

function readStamp(outDir) {
  try {
    const stamp = JSON.parse(readFileSync(join(outDir, STAMP_FILE), "utf8"));
    return stamp?.format === STAMP_FORMAT && typeof stamp.inputs === "object" && typeof stamp.outputs === "object" ? stamp : null;
  } catch {
    return null;
  }
}

/** The keys whose values differ between two records, in a sentence ("lib/a.ts changed, ..."). */
function differences(before, now, what) {
  const changes = [];
  for (const [key, value] of Object.entries(now)) {
    if (!(key in before)) changes.push(`${what}${key} added`);
    else if (before[key] !== value) changes.push(key === "esbuild" ? `esbuild ${before[key]} -> ${value}` : `${what}${key} changed`);
  }
  for (const key of Object.keys(before)) if (!(key in now)) changes.push(`${what}${key} removed`);
  if (changes.length === 0) return null;
  return changes.length > 3 ? `${changes.slice(0, 3).join(", ")} and ${changes.length - 3} more` : changes.join(", ");
}

/**
 * Why dist/server.js in `outDir` must be rebuilt from `inputs` (serverInputs()), or null when
 * the stamp vouches for every input and every output as they are now.
 */
export function staleReason(outDir, inputs) {
  if (!existsSync(join(outDir, "server.js"))) return "no server.js";
  const stamp = readStamp(outDir);
  if (stamp === null) return `no build stamp (${STAMP_FILE})`;
  const outputs = differences(stamp.outputs, serverOutputs(outDir), "output ");
  if (outputs !== null) return `${outputs} since the build`;
  return differences(stamp.inputs, inputs, "");
}
