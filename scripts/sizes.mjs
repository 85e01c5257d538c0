// npm run sizes [-- --why] [--minified]: the size of dist/keel.js for the kernel alone, for `all`, and for the
// kernel plus each feature (with what it requires), as a markdown table: raw and gzip -9 bytes
// and each feature's increment over the kernel. The bundles are made exactly as
// `npm run build -- --features <x>` makes dist/keel.js (JavaScript only: no typecheck, no d.ts).
// --why adds what weighs most in the kernel (esbuild's metafile, bytes per input file);
// --minified (what `npm run sizes` passes) adds the gzip -9 size of each bundle minified by
// esbuild, each feature's increment over the minified kernel, and the hello app: the size
// budgets of spec/build/budgets.test.ts are in those terms.
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build as esbuild } from "esbuild";
import { bundleFeatures, sizeOf } from "./build.mjs";
import { FEATURES, resolveFeatures } from "./features.mjs";

const fmt = (n) => n.toLocaleString("en-US");
const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * The smallest real app, as a user's bundler ships it: `App` and `route` from the kernel entry,
 * one route, `listen`; bundled by esbuild with tree-shaking and minified. Its size is what the
 * kernel costs an app that uses nothing else: { raw, gzipped, metafile }.
 */
export const HELLO_APP = `import { App, route } from "./lib/index.ts";
const app = new App().route(route.get("/hello", [], () => ({ hello: "world" })));
await app.listen({ port: Number(process.env.PORT ?? 3000) });
`;

export async function measureHelloApp() {
  const result = await esbuild({
    absWorkingDir: root,
    stdin: { contents: HELLO_APP, resolveDir: root, sourcefile: "hello.ts", loader: "ts" },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    minify: true,
    treeShaking: true,
    external: ["node:*"],
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return { ...sizeOf(result.outputFiles[0].text), metafile: result.metafile };
}
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

/** Rows { name, features, raw, gzipped } for kernel, all, then each feature in table order. */
export async function measureSizes({ minified = false } = {}) {
  const builds = [
    ["kernel", ["kernel"]],
    ["all", ["all"]],
    ...FEATURES.filter((f) => f.name !== "kernel").map((f) => [f.name, [f.name]]),
  ];
  const rows = [];
  let kernelMetafile;
  for (const [name, list] of builds) {
    const features = resolveFeatures(list);
    const bundle = await bundleFeatures(features);
    if (name === "kernel") kernelMetafile = bundle.metafile;
    const row = { name, features: features.map((f) => f.name), ...sizeOf(bundle.text) };
    if (minified) row.minifiedGzipped = sizeOf((await bundleFeatures(features, { minify: true })).text).gzipped;
    rows.push(row);
  }
  return { rows, kernelMetafile };
}

export function sizeTable(rows) {
  const kernel = rows.find((r) => r.name === "kernel");
  const minified = rows.every((r) => r.minifiedGzipped !== undefined);
  const lines = [
    `| build | raw bytes | gzip -9 bytes | raw over kernel | gzip -9 over kernel | brings along |${minified ? " minified, gzip -9 | minified, gzip -9 over kernel |" : ""}`,
    `|---|---:|---:|---:|---:|---|${minified ? "---:|---:|" : ""}`,
  ];
  for (const r of rows) {
    const isBase = r.name === "kernel" || r.name === "all";
    const label = r.name === "kernel" || r.name === "all" ? `**${r.name}**` : `+ ${r.name}`;
    const extra = r.features.filter((f) => f !== "kernel" && f !== r.name);
    const along = r.name === "all" ? `${r.features.length - 1} features` : extra.join(", ");
    const over = (a, b) => (r.name === "kernel" ? "" : `+${fmt(a - b)}`);
    lines.push(
      `| ${label} | ${fmt(r.raw)} | ${fmt(r.gzipped)} (${kib(r.gzipped)}) | ${over(r.raw, kernel.raw)} | ${over(r.gzipped, kernel.gzipped)} | ${isBase && r.name === "kernel" ? "" : along} |${minified ? ` ${fmt(r.minifiedGzipped)} | ${over(r.minifiedGzipped, kernel.minifiedGzipped)} |` : ""}`,
    );
  }
  return lines.join("\n");
}

/** The heaviest inputs of a bundle, and the folders they sit in. */
export function weightReport(metafile, top = 25) {
  const output = Object.values(metafile.outputs)[0];
  const inputs = Object.entries(output.inputs)
    .map(([file, v]) => ({ file, bytes: v.bytesInOutput }))
    .filter((i) => i.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  const folders = new Map();
  for (const i of inputs) {
    const folder = i.file.split("/").slice(0, 2).join("/");
    folders.set(folder, (folders.get(folder) ?? 0) + i.bytes);
  }
  const lines = ["| folder | bytes in keel.js |", "|---|---:|"];
  for (const [folder, bytes] of [...folders].sort((a, b) => b[1] - a[1])) lines.push(`| ${folder} | ${fmt(bytes)} |`);
  lines.push("", "| file | bytes in keel.js |", "|---|---:|");
  for (const i of inputs.slice(0, top)) lines.push(`| ${i.file} | ${fmt(i.bytes)} |`);
  return lines.join("\n");
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== "--why" && a !== "--minified");
  if (unknown.length > 0) {
    console.error(`unknown argument ${unknown[0]} (usage: node scripts/sizes.mjs [--why] [--minified])`);
    process.exit(1);
  }
  const { rows, kernelMetafile } = await measureSizes({ minified: args.includes("--minified") });
  console.log(`dist/keel.js by build-time feature (node ${process.version}; bytes; gzip -9 = zlib level 9):\n`);
  console.log(sizeTable(rows));
  if (args.includes("--minified")) {
    const hello = await measureHelloApp();
    console.log(`\nThe hello app (App, route, listen; esbuild tree-shaken and minified): ${fmt(hello.raw)} bytes, ${fmt(hello.gzipped)} gzip -9 (${kib(hello.gzipped)}).`);
  }
  if (args.includes("--why")) console.log(`\nWhat the kernel is made of (unminified bytes per input, esbuild metafile):\n\n${weightReport(kernelMetafile)}`);
}
