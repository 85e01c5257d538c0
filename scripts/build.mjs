// npm run build [-- --features a,b] [--minify] [--outdir <dir>] [--no-typecheck]: typecheck, then
//   dist/keel.js     single-file ESM bundle of the kernel plus the chosen build-time features
//                    (scripts/features.mjs; default all), node:* builtins external; readable
//                    unless --minify
//   dist/keel.d.ts   its public types in one self-contained file (scripts/bundle-dts.mjs)
//   dist/server.js   the sample service as one file: `node dist/server.js`, with dist/public and
//                    the stamp saying what it was built from (scripts/build-stamp.mjs)
//   dist/cli.js      the developer's tool, package.json "bin" `keel` (lib/devtool), and
//   dist/sample-app.js the sample as an app module it reads (`keel routes --app dist/sample-app.js`)
//   dist/pkg/*.js    the package entries (package.json `exports`), code-split so that App,
//                    ApiError and every other module exist once however many entries are loaded
//   dist/types/**    the declaration tree tsc emits for lib/, the package entries' "types"
// and print keel.js's size and features. Runs with plain node.
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build as esbuild } from "esbuild";
import { removeStamp, serverInputs, writeStamp } from "./build-stamp.mjs";
import { bundleDeclarations, DtsBundleError } from "./bundle-dts.mjs";
import { DEFAULT_FEATURES, FEATURES, FeatureError, PACKAGE_ENTRIES, resolveFeatures } from "./features.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const tscBin = join(root, "node_modules/typescript/bin/tsc");
const VALUE_KINDS = new Set(["function", "class", "enum", "const enum", "const", "let", "var"]);
const TYPE_KINDS = new Set(["interface", "type"]);
/** The sample service bundled to dist/server.js. */
export const SAMPLE_ENTRY = "lib/sample/main.ts";
/** The sample's static files (served at /static), copied beside dist/server.js as dist/public. */
export const SAMPLE_PUBLIC_DIR = "lib/sample/public";
/** The developer's tool bundled to dist/cli.js (package.json "bin": keel). */
export const CLI_ENTRY = "lib/devtool/main.ts";
/** The sample as an app module (createApp()) for the tool, bundled to dist/sample-app.js. */
export const SAMPLE_APP_ENTRY = "lib/sample/app-module.ts";
/** The sample's SQL migrations (one folder per dialect), copied beside dist/server.js as dist/migrations. */
export const SAMPLE_MIGRATIONS_DIR = "lib/sample/migrations";
/** Name of the generated module that re-exports the chosen features (JS and d.ts). */
const FEATURES_MODULE = "keel-features";

export class BuildError extends Error {}

function runTsc(args, what) {
  const result = spawnSync(process.execPath, [tscBin, ...args], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new BuildError(`${what} failed (tsc exit ${result.status ?? result.signal})`);
}

function readPackageJson() {
  return JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
}

function sampleBanner(pkg) {
  return `/*!\n * keel v${pkg.version} sample service | ${pkg.license} License\n * Run: node server.js (env PORT, HOST, KEEL_ENV)\n */`;
}

/**
 * The combined entry: `export * from` each feature's entry, relative to the repo root (for
 * esbuild) or, `fromLib`, to the declaration tree of lib/ (for the d.ts bundler).
 */
function reexports(features, fromLib) {
  const spec = (f) => "./" + (fromLib ? f.entry.replace(/^lib\//, "") : f.entry).replace(/\.ts$/, ".js");
  return features.map((f) => `export * from "${spec(f)}";\n`).join("");
}

const ESBUILD_COMMON = {
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  minify: false,
  sourcemap: false,
  charset: "utf8",
  external: ["node:*"],
  write: false,
  metafile: true,
  logLevel: "warning",
};

/** keel has no runtime dependencies: only lib/ may be bundled, only node builtins imported. */
function checkInputsAndImports(what, metafile, allowedInput) {
  for (const input of Object.keys(metafile.inputs)) {
    if (!input.startsWith("lib/") && input !== allowedInput) throw new BuildError(`${what}: bundled a file outside lib/: ${input}`);
  }
  for (const output of Object.values(metafile.outputs)) {
    for (const imported of output.imports) {
      if (imported.external && !isBuiltin(imported.path)) throw new BuildError(`${what}: imports ${imported.path}, not a node builtin`);
    }
  }
}

/** A single-file bundle imports nothing but builtins. */
function checkSingleFile(what, metafile) {
  for (const imported of Object.values(metafile.outputs)[0].imports) {
    if (!imported.external) throw new BuildError(`${what}: imports ${imported.path}, not a node builtin`);
  }
}

/** esbuild one entry into a single ESM file; returns its text and the exports esbuild saw. */
async function bundleEntry(entry, banner) {
  const result = await esbuild({ ...ESBUILD_COMMON, entryPoints: [entry], banner: { js: banner }, outfile: "out.js" });
  checkInputsAndImports(entry, result.metafile);
  checkSingleFile(entry, result.metafile);
  return { text: result.outputFiles[0].text, exports: Object.values(result.metafile.outputs)[0].exports };
}

/**
 * The vendorable bundle of the kernel plus `features` (resolved Feature objects): its text, the
 * exports esbuild saw, and the metafile (sizes per input). Exported for scripts/sizes.mjs and
 * bench/cold-start.mjs. `features`: resolveFeatures()'s result.
 */
export async function bundleFeatures(features, { minify = false } = {}) {
  const pkg = readPackageJson();
  const banner = `/*!\n * keel v${pkg.version} | ${pkg.license} License\n * ${pkg.description}\n * features: ${features.map((f) => f.name).join(", ")}\n */`;
  const sourcefile = `${FEATURES_MODULE}.ts`;
  const result = await esbuild({
    ...ESBUILD_COMMON,
    minify,
    stdin: { contents: reexports(features, false), resolveDir: root, sourcefile, loader: "ts" },
    banner: { js: banner },
    outfile: "keel.js",
  });
  checkInputsAndImports("keel.js", result.metafile, sourcefile);
  checkSingleFile("keel.js", result.metafile);
  const output = Object.values(result.metafile.outputs)[0];
  return { text: result.outputFiles[0].text, exports: output.exports, metafile: result.metafile };
}

/** dist/cli.js (with its #! line, so the bin runs) and dist/sample-app.js: { "cli.js": text, ... }. */
async function bundleDevtool(pkg) {
  const [cli, sampleApp] = await Promise.all([
    bundleEntry(CLI_ENTRY, `#!/usr/bin/env node\n/*!\n * keel v${pkg.version} developer tool | ${pkg.license} License\n * Run: node cli.js --help\n */`),
    bundleEntry(SAMPLE_APP_ENTRY, `/*!\n * keel v${pkg.version} sample app module (createApp) | ${pkg.license} License\n */`),
  ]);
  return { "cli.js": cli.text, "sample-app.js": sampleApp.text };
}

/**
 * Only the developer's tool and what it reads (dist/cli.js, dist/sample-app.js with dist/public,
 * and dist/keel.js of every feature, which `keel new` vendors), without typecheck or declarations: for the tool's
 * tests (spec/cli), which run it as a process from a scratch `outDir`.
 */
export async function buildDevtool({ outDir }) {
  const pkg = readPackageJson();
  const [files, lib] = await Promise.all([bundleDevtool(pkg), bundleFeatures(resolveFeatures(DEFAULT_FEATURES))]);
  mkdirSync(outDir, { recursive: true });
  for (const [name, text] of Object.entries({ ...files, "keel.js": lib.text })) writeFileSync(join(outDir, name), text);
  chmodSync(join(outDir, "cli.js"), 0o755);
  // sample-app.js, like server.js, serves its static files from beside itself.
  cpSync(join(root, SAMPLE_PUBLIC_DIR), join(outDir, "public"), { recursive: true });
  return outDir;
}

/**
 * Write the sample (dist/server.js and its static files) and the stamp that vouches for them,
 * built from `inputs` (serverInputs(), read before bundling).
 */
function writeServer(outDir, text, inputs) {
  mkdirSync(outDir, { recursive: true });
  removeStamp(outDir);
  writeFileSync(join(outDir, "server.js"), text);
  // server.js finds its static files next to itself (lib/sample/web.ts: new URL("./public/", import.meta.url)).
  rmSync(join(outDir, "public"), { recursive: true, force: true });
  cpSync(join(root, SAMPLE_PUBLIC_DIR), join(outDir, "public"), { recursive: true });
  // ...and its migrations (lib/sample/database.ts: new URL("./migrations/<dialect>/", import.meta.url)).
  rmSync(join(outDir, "migrations"), { recursive: true, force: true });
  cpSync(join(root, SAMPLE_MIGRATIONS_DIR), join(outDir, "migrations"), { recursive: true });
  writeStamp(outDir, inputs);
}

/**
 * Only the sample service, for `npm start` (scripts/start-build.mjs): no typecheck, no keel.js,
 * no declarations. A bundle error fails it before anything is written.
 */
export async function buildServer({ outDir = join(root, "dist"), log = (line) => console.log(line) } = {}) {
  const started = performance.now();
  const inputs = serverInputs(root);
  const server = await bundleEntry(SAMPLE_ENTRY, sampleBanner(readPackageJson()));
  writeServer(outDir, server.text, inputs);
  const shown = relative(process.cwd(), join(outDir, "server.js"));
  log(`built ${shown.startsWith("..") ? join(outDir, "server.js") : shown} (${formatBytes(Buffer.byteLength(server.text))}, ${SAMPLE_ENTRY}) in ${Math.round(performance.now() - started)} ms; not typechecked (npm test is)`);
}

/** The package entries, code-split: { files: { "pkg/index.js": text, ... }, exports: { out: names } }. */
async function bundlePackage(banner) {
  const result = await esbuild({
    ...ESBUILD_COMMON,
    entryPoints: Object.fromEntries(PACKAGE_ENTRIES.map((e) => [e.out, e.entry])),
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    outdir: "pkg",
    banner: { js: banner },
  });
  checkInputsAndImports("dist/pkg", result.metafile);
  const files = {};
  for (const file of result.outputFiles) files[relative(root, file.path).split(sep).join("/")] = file.text;
  const exports = {};
  for (const [path, output] of Object.entries(result.metafile.outputs)) {
    const entry = PACKAGE_ENTRIES.find((e) => e.entry === output.entryPoint);
    if (entry !== undefined) exports[entry.out] = output.exports;
    for (const imported of output.imports) {
      // Between outputs only relative chunk imports; everything else must be a builtin.
      if (!imported.external && !imported.path.startsWith("pkg/")) throw new BuildError(`dist/${path}: imports ${imported.path}`);
    }
  }
  return { files, exports };
}

/** tsc's declaration tree for every package entry and feature; `{ dir, files, cleanup }`. */
export function emitDeclarations() {
  const work = mkdtempSync(join(tmpdir(), "keel-dts-"));
  const outDir = join(work, "out");
  const tsconfig = {
    extends: join(root, "tsconfig.json"),
    compilerOptions: {
      noEmit: false,
      declaration: true,
      emitDeclarationOnly: true,
      declarationMap: false,
      outDir,
      rootDir: join(root, "lib"),
      // The config lives outside the repo: point type lookups back at its node_modules.
      typeRoots: [join(root, "node_modules/@types")],
    },
    files: [...new Set([...PACKAGE_ENTRIES.map((e) => e.entry), ...FEATURES.map((f) => f.entry)])].map((entry) => join(root, entry)),
    include: [],
  };
  const configPath = join(work, "tsconfig.json");
  writeFileSync(configPath, JSON.stringify(tsconfig, null, 2));
  try {
    runTsc(["-p", configPath], "declaration emit");
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    throw err;
  }
  const files = {};
  const walk = (dir) => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, name.name);
      if (name.isDirectory()) walk(full);
      else files[relative(outDir, full).split(sep).join("/")] = readFileSync(full, "utf8");
    }
  };
  walk(outDir);
  return { dir: outDir, files, cleanup: () => rmSync(work, { recursive: true, force: true }) };
}

/** One declaration file for the kernel plus `features`, from the emitted tree. */
function bundleFeatureDeclarations(declarationDir, features, banner) {
  const entry = `${FEATURES_MODULE}.d.ts`;
  writeFileSync(join(declarationDir, entry), reexports(features, true));
  try {
    const dts = bundleDeclarations({ declarationDir, entry, banner });
    if (dts.ambiguous.length > 0) {
      const lines = dts.ambiguous.map((a) => `${a.name} (from ${a.from.join(", ")})`);
      throw new BuildError(`features export the same name from different declarations (it would be left out):\n${lines.join("\n")}`);
    }
    return dts;
  } finally {
    unlinkSync(join(declarationDir, entry));
  }
}

/** The d.ts must promise exactly the values keel.js exports (types are extra). */
export function checkExportsAgree(jsExports, dtsExports, { js: jsName = "keel.js", dts: dtsName = "keel.d.ts" } = {}) {
  const js = new Set(jsExports);
  const problems = [];
  const declared = new Set();
  for (const e of dtsExports) {
    declared.add(e.name);
    const isValue = !e.typeOnly && e.kinds.some((k) => VALUE_KINDS.has(k));
    const isTypeOnly = e.typeOnly || (e.kinds.length > 0 && e.kinds.every((k) => TYPE_KINDS.has(k)));
    if (isValue && !js.has(e.name)) problems.push(`${dtsName} declares value ${e.name}, ${jsName} does not export it`);
    if (isTypeOnly && js.has(e.name)) problems.push(`${jsName} exports ${e.name}, ${dtsName} has it only as a type`);
  }
  for (const name of js) if (!declared.has(name)) problems.push(`${jsName} exports ${name}, ${dtsName} does not declare it`);
  if (problems.length > 0) throw new BuildError(problems.join("\n"));
}

export function formatBytes(n) {
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`;
}

/** Raw and gzip -9 bytes of a text. */
export function sizeOf(text) {
  return { raw: Buffer.byteLength(text), gzipped: gzipSync(text, { level: 9 }).length };
}

/**
 * Build everything into `outDir` (default dist/). Files are written only when every step
 * succeeded, so a failed build never leaves a half-updated dist/.
 */
export async function build({
  outDir = join(root, "dist"),
  features: featureNames = DEFAULT_FEATURES,
  minify = false,
  typecheck = true,
  log = (line) => console.log(line),
} = {}) {
  const started = performance.now();
  const serverBuiltFrom = serverInputs(root);
  const features = resolveFeatures(featureNames);
  const pkg = readPackageJson();
  const timings = [];
  const step = async (name, fn) => {
    const t0 = performance.now();
    const value = await fn();
    timings.push(`${name} ${Math.round(performance.now() - t0)} ms`);
    return value;
  };

  if (typecheck) await step("typecheck", () => runTsc(["-p", "tsconfig.json"], "typecheck"));
  const featureList = features.map((f) => f.name).join(", ");
  const pkgBanner = `/*!\n * keel v${pkg.version} | ${pkg.license} License\n */`;
  const [lib, server, pkgBuild, devtool] = await step("bundle", () =>
    Promise.all([
      bundleFeatures(features, { minify }),
      bundleEntry(SAMPLE_ENTRY, sampleBanner(pkg)),
      bundlePackage(pkgBanner),
      bundleDevtool(pkg),
    ]),
  );
  const declarations = await step("types", () => emitDeclarations());
  let dts;
  try {
    dts = bundleFeatureDeclarations(declarations.dir, features, `/*!\n * keel v${pkg.version} type declarations | ${pkg.license} License\n * features: ${featureList}\n */`);
    // Each package entry's d.ts promises what its JS exports, too.
    for (const entry of PACKAGE_ENTRIES) {
      const typesPath = entry.entry.replace(/^lib\//, "").replace(/\.ts$/, ".d.ts");
      const entryDts = bundleDeclarations({ declarationDir: declarations.dir, entry: typesPath });
      checkExportsAgree(pkgBuild.exports[entry.out] ?? [], entryDts.exports, { js: `dist/pkg/${entry.out}.js`, dts: `dist/types/${typesPath}` });
    }
  } finally {
    declarations.cleanup();
  }
  checkExportsAgree(lib.exports, dts.exports);

  const files = { "keel.js": lib.text, "keel.d.ts": dts.text, ...pkgBuild.files, ...devtool };
  for (const [path, text] of Object.entries(declarations.files)) files[`types/${path}`] = text;
  // dist/pkg and dist/types are wholly the build's: clear them so no stale chunk survives.
  for (const dir of ["pkg", "types"]) rmSync(join(outDir, dir), { recursive: true, force: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(outDir, name)), { recursive: true });
    // cli.js is package.json's "bin": executable, as npm would make it.
    writeFileSync(join(outDir, name), text);
    if (name === "cli.js") chmodSync(join(outDir, name), 0o755);
  }
  writeServer(outDir, server.text, serverBuiltFrom);

  const size = sizeOf(lib.text);
  const shown = relative(process.cwd(), outDir).startsWith("..") ? outDir : relative(process.cwd(), outDir) || ".";
  const where = (name) => `${shown}${sep}${name}`;
  log(`${where("keel.js")}    ${formatBytes(size.raw)} raw, ${formatBytes(size.gzipped)} gzipped (gzip -9; ${size.raw} / ${size.gzipped} bytes; ${lib.exports.length} exports)`);
  log(`${where("keel.d.ts")}  ${formatBytes(Buffer.byteLength(dts.text))} (${dts.exports.length} exports)`);
  log(`features: ${featureList}${minify ? " (minified)" : ""}`);
  log(`${where("server.js")}  ${formatBytes(Buffer.byteLength(server.text))} (${SAMPLE_ENTRY})`);
  log(`${where("cli.js")}     ${formatBytes(Buffer.byteLength(devtool["cli.js"]))} (${CLI_ENTRY}, package.json bin: keel); ${where("sample-app.js")} for it`);
  log(`${where("pkg")}${sep}  ${PACKAGE_ENTRIES.length} package entries, ${Object.keys(pkgBuild.files).length - PACKAGE_ENTRIES.length} shared chunks; ${where("types")}${sep} ${Object.keys(declarations.files).length} declaration files`);
  log(`built in ${Math.round(performance.now() - started)} ms (${timings.join(", ")})`);
  return { outDir, features: features.map((f) => f.name), files: [...Object.keys(files), "server.js"].map((name) => join(outDir, name)), size };
}

const USAGE = "usage: node scripts/build.mjs [--features <a,b,...|all|kernel>] [--minify] [--outdir <dir>] [--no-typecheck]";

export function parseArgs(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const value = () => {
      if (eq !== -1) return arg.slice(eq + 1);
      const next = argv[++i];
      if (next === undefined) throw new BuildError(`${name} needs a value (${USAGE})`);
      return next;
    };
    if (name === "--outdir") options.outDir = resolve(value());
    else if (name === "--features") options.features = value().split(",");
    else if (arg === "--no-typecheck") options.typecheck = false;
    else if (arg === "--minify") options.minify = true;
    else throw new BuildError(`unknown argument ${arg} (${USAGE})`);
  }
  return options;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const options = parseArgs(process.argv.slice(2));
    await build(options);
  } catch (err) {
    const known = err instanceof BuildError || err instanceof DtsBundleError || err instanceof FeatureError;
    console.error(`build failed: ${known ? err.message : (err?.stack ?? err)}`);
    process.exitCode = 1;
  }
}
