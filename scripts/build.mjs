// npm run build: typecheck, then
//   dist/keel.js    single-file ESM bundle of lib/index.ts (node:* builtins external)
//   dist/keel.d.ts  its public types in one self-contained file (scripts/bundle-dts.mjs)
//   dist/server.js  the sample service (lib/server.ts) as one file: `node dist/server.js`
// and print the bundle's size. Runs with plain node. `--outdir <dir>` builds elsewhere (tests).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build as esbuild } from "esbuild";
import { bundleDeclarations, DtsBundleError } from "./bundle-dts.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const tscBin = join(root, "node_modules/typescript/bin/tsc");
const VALUE_KINDS = new Set(["function", "class", "enum", "const enum", "const", "let", "var"]);
const TYPE_KINDS = new Set(["interface", "type"]);

export class BuildError extends Error {}

function runTsc(args, what) {
  const result = spawnSync(process.execPath, [tscBin, ...args], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new BuildError(`${what} failed (tsc exit ${result.status ?? result.signal})`);
}

/** Declarations for lib/ (only what lib/index.ts reaches), bundled into one file. */
function buildDeclarations(banner) {
  const work = mkdtempSync(join(tmpdir(), "keel-dts-"));
  try {
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
      files: [join(root, "lib/index.ts")],
      include: [],
    };
    const configPath = join(work, "tsconfig.json");
    writeFileSync(configPath, JSON.stringify(tsconfig, null, 2));
    runTsc(["-p", configPath], "declaration emit");
    return bundleDeclarations({ declarationDir: outDir, entry: "index.d.ts", banner });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** esbuild one entry into a single ESM file; returns its text and the exports esbuild saw. */
async function bundleEntry(entry, banner) {
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    minify: false,
    sourcemap: false,
    charset: "utf8",
    external: ["node:*"],
    banner: { js: banner },
    write: false,
    metafile: true,
    outfile: "out.js",
    logLevel: "warning",
  });
  // keel has no runtime dependencies: only lib/ may be bundled, only node builtins imported.
  for (const input of Object.keys(result.metafile.inputs)) {
    if (!input.startsWith("lib/")) throw new BuildError(`${entry}: bundled a file outside lib/: ${input}`);
  }
  const output = Object.values(result.metafile.outputs)[0];
  for (const imported of output.imports) {
    if (!imported.external || !isBuiltin(imported.path)) throw new BuildError(`${entry}: imports ${imported.path}, not a node builtin`);
  }
  return { text: result.outputFiles[0].text, exports: output.exports };
}

/** The d.ts must promise exactly the values keel.js exports (types are extra). */
export function checkExportsAgree(jsExports, dtsExports) {
  const js = new Set(jsExports);
  const problems = [];
  const declared = new Set();
  for (const e of dtsExports) {
    declared.add(e.name);
    const isValue = !e.typeOnly && e.kinds.some((k) => VALUE_KINDS.has(k));
    const isTypeOnly = e.typeOnly || (e.kinds.length > 0 && e.kinds.every((k) => TYPE_KINDS.has(k)));
    if (isValue && !js.has(e.name)) problems.push(`keel.d.ts declares value ${e.name}, keel.js does not export it`);
    if (isTypeOnly && js.has(e.name)) problems.push(`keel.js exports ${e.name}, keel.d.ts has it only as a type`);
  }
  for (const name of js) if (!declared.has(name)) problems.push(`keel.js exports ${name}, keel.d.ts does not declare it`);
  if (problems.length > 0) throw new BuildError(problems.join("\n"));
}

function formatBytes(n) {
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`;
}

/**
 * Build everything into `outDir` (default dist/). Files are written only when every step
 * succeeded, so a failed build never leaves a half-updated dist/.
 */
export async function build({ outDir = join(root, "dist"), log = (line) => console.log(line) } = {}) {
  const started = performance.now();
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const timings = [];
  const step = async (name, fn) => {
    const t0 = performance.now();
    const value = await fn();
    timings.push(`${name} ${Math.round(performance.now() - t0)} ms`);
    return value;
  };

  await step("typecheck", () => runTsc(["-p", "tsconfig.json"], "typecheck"));
  const libBanner = `/*!\n * keel v${pkg.version} | ${pkg.license} License\n * ${pkg.description}\n */`;
  const [lib, server] = await step("bundle", () =>
    Promise.all([
      bundleEntry("lib/index.ts", libBanner),
      bundleEntry("lib/server.ts", `/*!\n * keel v${pkg.version} sample service | ${pkg.license} License\n * Run: node server.js (env PORT, HOST, KEEL_ENV)\n */`),
    ]),
  );
  const dts = await step("types", () => buildDeclarations(`/*!\n * keel v${pkg.version} type declarations | ${pkg.license} License\n */`));
  checkExportsAgree(lib.exports, dts.exports);

  mkdirSync(outDir, { recursive: true });
  const files = { "keel.js": lib.text, "keel.d.ts": dts.text, "server.js": server.text };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(outDir, name), text);

  const raw = Buffer.byteLength(lib.text);
  const gzipped = gzipSync(lib.text, { level: 9 }).length;
  const shown = relative(process.cwd(), outDir).startsWith("..") ? outDir : relative(process.cwd(), outDir) || ".";
  const where = (name) => `${shown}${sep}${name}`;
  log(`${where("keel.js")}    ${formatBytes(raw)} raw, ${formatBytes(gzipped)} gzipped (${lib.exports.length} exports)`);
  log(`${where("keel.d.ts")}  ${formatBytes(Buffer.byteLength(dts.text))} (${dts.exports.length} exports)`);
  log(`${where("server.js")}  ${formatBytes(Buffer.byteLength(server.text))}`);
  log(`built in ${Math.round(performance.now() - started)} ms (${timings.join(", ")})`);
  return { outDir, files: Object.keys(files).map((name) => join(outDir, name)), size: { raw, gzipped } };
}

function parseArgs(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--outdir" && argv[i + 1] !== undefined) options.outDir = resolve(argv[++i]);
    else throw new BuildError(`unknown argument ${argv[i]} (usage: node scripts/build.mjs [--outdir <dir>])`);
  }
  return options;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  build(parseArgs(process.argv.slice(2))).catch((err) => {
    console.error(`build failed: ${err instanceof BuildError || err instanceof DtsBundleError ? err.message : err?.stack ?? err}`);
    process.exit(1);
  });
}
