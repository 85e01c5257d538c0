// npm test: typecheck (which includes the type-level tests in spec/types/), then every
// spec/**/*.test.ts through node:test with tsx. Node 20 has no --test globs, so we list files.
// The reporter's output is scanned as it streams: a JSON log line (`{"level":...`) in it means a
// test let the app's logger write to the console, which buries failures in noise, so the run
// fails and names the lines. Pass the logger a silent or capturing sink in tests.
//
// Test files run two at a time (KEEL_TEST_CONCURRENCY to change it): node:test's default on a
// 2-core machine is one, and most of the suite's time is spent waiting (timeouts that must
// fire, child processes starting, sockets settling), so a second file fills that time: 555 s
// one at a time, 281 s two at a time on Node 20 here. Every file already runs in a process of
// its own, with its own servers on port 0, so files do not share state.
// KEEL_TEST_DEADLINE_S=<seconds> ends a run that takes longer, after printing the test files
// still running, so a limit in CI names what hung instead of cutting the output short.
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

const started = Date.now();
const concurrency = positiveInteger("KEEL_TEST_CONCURRENCY") ?? 2;
const deadlineS = positiveInteger("KEEL_TEST_DEADLINE_S");

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
const child = spawn(process.execPath, ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, "--test-reporter=spec", ...files], {
  cwd: root,
  stdio: ["ignore", "pipe", "pipe"],
  env: { ...process.env, NODE_ENV: "test" },
  // Its own process group, so a deadline ends the test files' processes with it.
  detached: deadlineS !== undefined,
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
const deadline =
  deadlineS === undefined
    ? undefined
    : setTimeout(() => {
        console.error(`\nnpm test: still running after ${deadlineS} s; the test files in flight:`);
        const ps = spawnSync("ps", ["-o", "etimes=,args=", "--ppid", String(child.pid)], { encoding: "utf8" });
        for (const line of (ps.stdout ?? "").split("\n")) {
          const file = /\S+\.test\.ts/.exec(line)?.[0];
          if (file !== undefined) console.error(`  ${relative(root, file)}, for ${line.trim().split(" ")[0]} s`);
        }
        endTestProcesses();
        process.exit(124);
      }, Math.max(0, deadlineS * 1000 - (Date.now() - started)));
/** With a deadline the runner has a process group of its own: end it with us, however we end. */
function endTestProcesses() {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}
if (deadlineS !== undefined) {
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      endTestProcesses();
      process.exit(128 + (signal === "SIGINT" ? 2 : 15));
    });
  }
}
child.on("close", async (code, signal) => {
  await done;
  if (deadline !== undefined) clearTimeout(deadline);
  console.log(`npm test: ${files.length} files, ${concurrency} at a time, in ${Math.round((Date.now() - started) / 1000)} s on node ${process.version}`);
  if (leaked.length > 0) {
    console.error(`\n${leaked.length} JSON log line(s) leaked into the test output; give those apps a silent or capturing logger:`);
    for (const line of leaked.slice(0, 10)) console.error("  " + line.slice(0, 200));
    process.exit(1);
  }
  process.exit(code ?? (signal ? 1 : 0));
});

/** The environment variable `name` as a positive integer; undefined when unset, an error otherwise. */
function positiveInteger(name) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return n;
}
