// npm test: typecheck (which includes the type-level tests in spec/types/), then every
// spec/**/*.test.ts through node:test with tsx. Node 20 has no --test globs, so we list files.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const only = process.argv.slice(2);

function findTests(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) findTests(full, out);
    else if (name.endsWith(".test.ts")) out.push(relative(root, full));
  }
  return out;
}

const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], {
  cwd: root,
  stdio: "inherit",
});
if (tsc.status !== 0) {
  console.error("typecheck failed");
  process.exit(tsc.status ?? 1);
}
console.log("typecheck ok");

const files = findTests(join(root, "spec"), []).filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
const run = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-reporter=spec", ...files],
  { cwd: root, stdio: "inherit", env: { ...process.env, NODE_ENV: "test" } },
);
process.exit(run.status ?? 1);
