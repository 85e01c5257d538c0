// `npm start` is `node scripts/start-build.mjs && node dist/server.js`: this half brings
// dist/server.js up to date and exits non-zero when it cannot, so a stale sample is never served.
// It rebuilds (esbuild only, scripts/build.mjs buildServer) when the stamp does not vouch for
// every input and output as they are now (scripts/build-stamp.mjs says which and why); otherwise
// it prints one line and loads nothing else, so a built checkout starts in well under a second.
// Type-checking is left to `npm test` (and `npm run build`): the sample runs as esbuild strips it.
//   node scripts/start-build.mjs [--outdir <dir>]   (default dist/)
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { serverInputs, staleReason } from "./build-stamp.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const USAGE = "usage: node scripts/start-build.mjs [--outdir <dir>]";

function outDirFrom(argv) {
  if (argv.length === 0) return join(root, "dist");
  if (argv.length === 2 && argv[0] === "--outdir") return resolve(argv[1]);
  throw new Error(`unknown arguments ${argv.join(" ")} (${USAGE})`);
}

try {
  const outDir = outDirFrom(process.argv.slice(2));
  const shown = relative(process.cwd(), join(outDir, "server.js"));
  const name = shown.startsWith("..") ? join(outDir, "server.js") : shown;
  const reason = staleReason(outDir, serverInputs(root));
  if (reason === null) {
    console.log(`${name} is up to date (no input changed since its build)`);
  } else {
    console.log(`rebuilding ${name}: ${reason}`);
    const { buildServer } = await import("./build.mjs");
    await buildServer({ outDir });
  }
} catch (err) {
  console.error(`build failed: ${err?.message ?? err}`);
  process.exitCode = 1;
}
