// Instructions per request, exactly (valgrind's callgrind; see ../shared/BENCHMARKING.md):
//   node bench/callgrind/run.mjs [--n 2000] [case ...]     cases: hello param post big (default all)
// Bundles contract-loop.ts, runs each case with and without response schemas at N and 2N
// iterations and prints (I(2N) - I(N)) / N for both, and their ratio.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const nAt = args.indexOf("--n");
const n = nAt === -1 ? 2000 : Number(args[nAt + 1]);
const cases = args.filter((a, i) => !a.startsWith("--") && (nAt === -1 || i !== nAt + 1));
const work = mkdtempSync(join(tmpdir(), "keel-callgrind-"));
const bundle = join(work, "contract-loop.mjs");
await build({ entryPoints: [join(here, "contract-loop.ts")], bundle: true, platform: "node", format: "esm", target: "node20", outfile: bundle, logLevel: "error" });

function instructions(name, schemas, count) {
  const out = join(work, `cg-${name}-${schemas}-${count}`);
  execFileSync(
    "valgrind",
    ["--tool=callgrind", `--callgrind-out-file=${out}.%p`, "--zero-before=uv_get_free_memory", "--dump-before=uv_get_total_memory",
      process.execPath, "--single-threaded", "--hash-seed=1", "--random-seed=1", "--no-flush-bytecode", bundle, name, schemas, String(count)],
    { stdio: ["ignore", "ignore", "ignore"] },
  );
  // The last dump holds the measured loop (node also reads total memory once at boot).
  const files = readdirSync(work).filter((f) => f.startsWith(`cg-${name}-${schemas}-${count}.`)).sort();
  let last = 0;
  for (const f of files) {
    const text = readFileSync(join(work, f), "utf8");
    for (const m of text.matchAll(/^summary: (\d+)$/gm)) last = Number(m[1]);
  }
  return last;
}

try {
  console.log(`instructions per request (callgrind, N=${n}, I(2N)-I(N))`);
  console.log("| case | JSON.stringify | response schema | ratio |\n|---|---:|---:|---:|");
  for (const name of cases.length > 0 ? cases : ["hello", "param", "post", "big"]) {
    const per = (schemas) => (instructions(name, schemas, 2 * n) - instructions(name, schemas, n)) / n;
    const plain = per("0");
    const typed = per("1");
    console.log(`| ${name} | ${Math.round(plain).toLocaleString("en-US")} | ${Math.round(typed).toLocaleString("en-US")} | ${(typed / plain).toFixed(3)} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
