// The seeded fuzzers (spec/fuzz/*.test.ts) with a real time budget: `--seconds N` (default 60)
// is split evenly across the fuzz properties. CI runs `node scripts/fuzz.mjs --seconds 60`;
// locally give it more. KEEL_FUZZ_SEED=<n> replays a failing run (the failure prints it).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const at = args.indexOf("--seconds");
const seconds = at === -1 ? 60 : Number(args[at + 1]);
if (!(seconds > 0)) {
  console.error("usage: node scripts/fuzz.mjs [--seconds N]");
  process.exit(2);
}
const dir = join(root, "spec/fuzz");
const files = readdirSync(dir).filter((f) => f.endsWith(".test.ts")).sort().map((f) => relative(root, join(dir, f)));
// Every test of spec/fuzz is one timed property (it runs for KEEL_FUZZ_MS): the budget is split
// across the tests the files declare, so --seconds is the whole run's length.
const PROPERTIES = files.reduce((n, f) => n + (readFileSync(join(root, f), "utf8").match(/^\s*(?:test|it)\(/gm)?.length ?? 0), 0);
const perProperty = Math.max(500, Math.floor((seconds * 1000) / PROPERTIES));
console.log(`fuzzing ${files.length} files, ${perProperty} ms per property (${seconds} s in all)${process.env.KEEL_FUZZ_SEED ? `, seed ${process.env.KEEL_FUZZ_SEED}` : ""}`);
const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", "--test-reporter=spec", ...files], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, NODE_ENV: "test", KEEL_FUZZ_MS: String(perProperty) },
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
