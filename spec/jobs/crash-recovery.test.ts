// At-least-once across a SIGKILL: a child process running the file store is killed mid-job,
// restarted, and must run the interrupted job again and lose none of the 1,000 enqueued jobs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const worker = fileURLToPath(new URL("./fixtures/journal-worker.ts", import.meta.url));
const JOB_COUNT = 1000;
const HANG = 200;

function startWorker(dir: string, out: string, mode: "first" | "resume"): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ["--import", "tsx", worker, dir, out, mode], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout!.on("data", (d: Buffer) => (text += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => text, exited };
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function lines(out: string): { started: Set<number>; done: Map<number, number> } {
  const started = new Set<number>();
  const done = new Map<number, number>();
  const text = existsSync(out) ? readFileSync(out, "utf8") : "";
  for (const line of text.split("\n")) {
    const [word, num] = line.split(" ");
    const n = Number(num);
    if (word === "start") started.add(n);
    else if (word === "done") done.set(n, (done.get(n) ?? 0) + 1);
  }
  return { started, done };
}

test("file store: a job running at SIGKILL runs again after restart, and none of 1,000 acknowledged jobs is lost", { timeout: 30_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "keel-jobs-crash-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const out = join(dir, "processed.txt");
  const storeDir = join(dir, "store");

  const first = startWorker(storeDir, out, "first");
  t.after(() => first.child.kill("SIGKILL"));
  await until("1000 acknowledged enqueues", () => first.output().includes(`enqueued ${JOB_COUNT}`), 15_000);
  await until("the hanging job to start and others to finish", () => {
    const l = lines(out);
    return l.started.has(HANG) && l.done.size >= 300;
  }, 15_000);
  first.child.kill("SIGKILL");
  assert.equal(await first.exited, null, "killed by a signal");

  const atKill = lines(out);
  assert.ok(atKill.done.size < JOB_COUNT, `killed mid-run (${atKill.done.size} done)`);
  assert.ok(atKill.started.has(HANG) && !atKill.done.has(HANG), "the hanging job was running at the kill");
  const interruptedIds = [...atKill.started].filter((n) => !atKill.done.has(n));

  const second = startWorker(storeDir, out, "resume");
  t.after(() => second.child.kill("SIGKILL"));
  assert.equal(await second.exited, 0, second.output());
  assert.match(second.output(), /complete /);
  const recovery = JSON.parse(/recovery (\{.*\})/.exec(second.output())![1]!) as { interrupted: number };
  // Not exactly interruptedIds.length: a claim can be journaled before its handler wrote "start",
  // and a handler can write "done" before its completion is journaled (that job runs twice).
  assert.ok(recovery.interrupted >= 1, "the journal had jobs running at the kill");

  const after = lines(out);
  const missing = [];
  for (let n = 0; n < JOB_COUNT; n++) if (!after.done.has(n)) missing.push(n);
  assert.deepEqual(missing, [], "every enqueued job was processed at least once");
  for (const n of interruptedIds) assert.ok(after.done.has(n), `interrupted job ${n} ran again`);
  assert.equal(after.done.get(HANG), 1);
});
