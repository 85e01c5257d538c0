// npm test: typecheck (which includes the type-level tests in spec/types/), then every
// spec/**/*.test.ts through node:test with tsx. Node 20 has no --test globs, so we list files.
// The reporter's output is scanned as it streams: a JSON log line (`{"level":...`) in it means a
// test let the app's logger write to the console, which buries failures in noise, so the run
// fails and names the lines. Pass the logger a silent or capturing sink in tests.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const only = process.argv.slice(2);
const LOG_LINE = /^\s*\{"level":\d+,/;

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
const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=spec", ...files], {
  cwd: root,
  stdio: ["ignore", "pipe", "pipe"],
  env: { ...process.env, NODE_ENV: "test" },
});
const leaked = [];
const forward = (stream, sink) => {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  lines.on("line", (line) => {
    sink.write(line + "\n");
    if (LOG_LINE.test(line)) leaked.push(line);
  });
  return new Promise((resolve) => lines.once("close", resolve));
};
const done = Promise.all([forward(child.stdout, process.stdout), forward(child.stderr, process.stderr)]);
child.on("close", async (code, signal) => {
  await done;
  if (leaked.length > 0) {
    console.error(`\n${leaked.length} JSON log line(s) leaked into the test output; give those apps a silent or capturing logger:`);
    for (const line of leaked.slice(0, 10)) console.error("  " + line.slice(0, 200));
    process.exit(1);
  }
  process.exit(code ?? (signal ? 1 : 0));
});
