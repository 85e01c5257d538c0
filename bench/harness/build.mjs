// Bundles the benchmark servers and micro-benchmarks with esbuild's JS API into
// bench/.peers/build/*.mjs, so no TypeScript loader runs inside a measured process. Bare imports
// (fastify, hono, ajv) stay external and resolve from bench/.peers/node_modules at run time.
import { mkdirSync } from "node:fs";
import { basename, extname, join } from "node:path";

// Bundled CommonJS helpers may call require(); give the ESM output one.
const REQUIRE_BANNER = 'import { createRequire as __benchRequire } from "node:module"; const require = __benchRequire(import.meta.url);';

/**
 * @param {{ benchDir: string, outDir: string, entries: string[] }} options entries relative to benchDir
 * @returns {Promise<{ builds: Record<string, string>, errors: Record<string, string> }>} by entry
 *   name (file name without extension): the built file, or why it did not build
 */
export async function buildBenchEntries({ benchDir, outDir, entries }) {
  const { build } = await import("esbuild");
  mkdirSync(outDir, { recursive: true });
  const builds = {};
  const errors = {};
  for (const entry of entries) {
    const name = basename(entry, extname(entry));
    const outfile = join(outDir, `${name}.mjs`);
    try {
      await build({
        entryPoints: [join(benchDir, entry)],
        outfile,
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        packages: "external",
        sourcemap: "linked",
        logLevel: "silent",
        banner: { js: REQUIRE_BANNER },
      });
      builds[name] = outfile;
    } catch (err) {
      errors[name] = String(err?.message ?? err).split("\n").slice(0, 6).join("\n");
    }
  }
  return { builds, errors };
}
