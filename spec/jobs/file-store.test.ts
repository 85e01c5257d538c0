import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../lib/index.js";
import { FileJobStore, type FileJobStoreOptions, type JobRecord } from "../../lib/jobs/index.js";
import { captureLogger } from "../support/capture-logger.js";

async function tempDir(t: { after(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "keel-jobs-file-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function record(id: string, extra: Partial<JobRecord> = {}): JobRecord {
  return { id, type: "t", payload: { id, text: "héllo\nworld" }, state: "pending", attempts: 0, maxAttempts: 3, runAt: 0, createdAt: 0, updatedAt: 0, key: null, errors: [], ...extra };
}

async function openStore(dir: string, options: Partial<FileJobStoreOptions> = {}, now = 0): Promise<FileJobStore> {
  const store = new FileJobStore({ dir, logger: silentLogger, ...options });
  await store.open(now);
  return store;
}

const journal = (dir: string): string => join(dir, "journal.log");

test("a reopened store has the jobs, states, error history and keys it had", async (t) => {
  const dir = await tempDir(t);
  let store = await openStore(dir);
  await store.add(record("a"));
  await store.add(record("b", { key: "k" }));
  await store.add(record("c", { runAt: 50_000 }));
  await store.add(record("d", { maxAttempts: 1 }));
  const claimed = await store.claim(10, 10);
  assert.deepEqual(claimed.map((r) => r.id), ["a", "b", "d"]);
  await store.complete("a", 20);
  await store.fail("b", 20, "first failure", 1_000);
  await store.fail("d", 20, "fatal", null);
  await store.close();

  store = await openStore(dir, {}, 100);
  assert.deepEqual(await store.counts(), { pending: 2, running: 0, succeeded: 1, dead: 1 });
  const b = await store.get("b");
  assert.equal(b?.state, "pending");
  assert.equal(b?.attempts, 1);
  assert.equal(b?.runAt, 1_000);
  assert.deepEqual(b?.errors, [{ attempt: 1, at: 20, message: "first failure" }]);
  assert.deepEqual((await store.get("c"))?.payload, { id: "c", text: "héllo\nworld" });
  assert.deepEqual((await store.list("dead", 10)).map((r) => [r.id, r.errors[0]?.message]), [["d", "fatal"]]);
  assert.deepEqual(await store.add(record("b2", { key: "k" })), { id: "b", created: false }, "the key index survived");
  assert.equal(await store.nextRunAt(), 1_000);
  assert.equal(store.recovery?.interrupted, 0);
  await store.close();
});

test("a torn last line (crash mid-write) is dropped; everything before it survives and the journal is repaired", async (t) => {
  const dir = await tempDir(t);
  const logger = captureLogger();
  let store = await openStore(dir);
  for (const id of ["a", "b", "c"]) await store.add(record(id));
  await store.close();
  const before = await readFile(journal(dir), "utf8");
  const lines = before.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 3);
  const cut = before.length - Math.floor(lines[2]!.length / 2);
  await truncate(journal(dir), Buffer.byteLength(before.slice(0, cut)));

  store = await openStore(dir, { logger });
  assert.deepEqual((await store.list("pending", 10)).map((r) => r.id), ["a", "b"]);
  assert.ok((store.recovery?.tornBytes ?? 0) > 0);
  assert.equal(store.recovery?.corruptLines, 0);
  assert.ok(logger.records.some((r) => r.msg.includes("damaged") && (r.fields["torn_bytes"] as number) > 0));
  await store.add(record("d"));
  await store.close();

  const repaired = await readFile(journal(dir), "utf8");
  assert.ok(repaired.endsWith("\n"));
  store = await openStore(dir);
  assert.deepEqual((await store.list("pending", 10)).map((r) => r.id), ["a", "b", "d"]);
  assert.equal(store.recovery?.tornBytes, 0);
  await store.close();
});

test("a damaged line in the middle fails its checksum and is skipped; later lines still apply", async (t) => {
  const dir = await tempDir(t);
  let store = await openStore(dir);
  for (const id of ["a", "b", "c"]) await store.add(record(id));
  await store.close();
  const text = await readFile(journal(dir), "utf8");
  const damaged = text.replace('"id":"b","type"', '"id":"B","type"'); // same length, checksum no longer matches
  assert.notEqual(damaged, text);
  await writeFile(journal(dir), damaged);
  store = await openStore(dir);
  assert.deepEqual((await store.list("pending", 10)).map((r) => r.id), ["a", "c"]);
  assert.equal(store.recovery?.corruptLines, 1);
  assert.equal(store.recovery?.tornBytes, 0);
  await store.close();
});

test("jobs running when the process stopped run again after reopen (the attempt counts), or go dead after their last", async (t) => {
  const dir = await tempDir(t);
  let store = await openStore(dir);
  await store.add(record("again", { maxAttempts: 3 }));
  await store.add(record("last", { maxAttempts: 1 }));
  await store.claim(5, 10);
  await store.close(); // as if killed: no complete/fail was written
  store = await openStore(dir, {}, 500);
  assert.equal(store.recovery?.interrupted, 2);
  const again = await store.get("again");
  assert.equal(again?.state, "pending");
  assert.equal(again?.attempts, 1);
  assert.match(again?.errors[0]?.message ?? "", /interrupted/);
  assert.deepEqual((await store.claim(500, 10)).map((r) => r.id), ["again"]);
  assert.equal((await store.get("last"))?.state, "dead");
  await store.close();
});

test("the journal is compacted as it grows, and the compacted journal reads back the same", async (t) => {
  const dir = await tempDir(t);
  let store = await openStore(dir, { compactBytes: 4096, keepSucceeded: 5 });
  let maxSize = 0;
  for (let i = 0; i < 300; i++) {
    await store.add(record(`j${i}`));
    await store.claim(0, 1);
    await store.complete(`j${i}`, 1);
    maxSize = Math.max(maxSize, store.journalSize);
  }
  await store.add(record("left", { runAt: 9 }));
  await store.close();
  const size = (await stat(journal(dir))).size;
  assert.ok(maxSize < 4096 * 2, `journal stayed bounded (max ${maxSize} bytes)`);
  assert.ok(size < 4096 * 2, `journal on disk is ${size} bytes`);
  store = await openStore(dir, { keepSucceeded: 5 });
  assert.deepEqual(await store.counts(), { pending: 1, running: 0, succeeded: 5, dead: 0 });
  assert.deepEqual((await store.list("succeeded", 10)).map((r) => r.id), ["j295", "j296", "j297", "j298", "j299"]);
  await store.close();
});

test("fsync policies 'interval' and 'never' still persist what was written", async (t) => {
  for (const fsync of ["interval", "never"] as const) {
    const dir = await tempDir(t);
    let store = await openStore(dir, { fsync, fsyncIntervalMs: 10 });
    await store.add(record(`x-${fsync}`));
    await store.close();
    store = await openStore(dir);
    assert.equal((await store.get(`x-${fsync}`))?.state, "pending");
    await store.close();
  }
  assert.throws(() => new FileJobStore({ dir: "/tmp/x", fsync: "sometimes" as never }), TypeError);
});

test("one process per directory: a live owner's lock is refused, a dead owner's lock is taken over", async (t) => {
  const dir = await tempDir(t);
  const store = await openStore(dir);
  await assert.rejects(openStore(dir), /already open in this process/);
  await store.close();

  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  const deadPid = Number(child.stdout);
  assert.ok(deadPid > 0);
  await writeFile(join(dir, "lock"), String(deadPid));
  const taken = await openStore(dir);
  assert.equal((await readFile(join(dir, "lock"), "utf8")).trim(), String(process.pid));
  await taken.close();

  await writeFile(join(dir, "lock"), String(process.ppid)); // a live process that is not us
  await assert.rejects(openStore(dir), /locked by running process/);
});

test("closed or unopened stores refuse writes", async (t) => {
  const dir = await tempDir(t);
  const store = new FileJobStore({ dir, logger: silentLogger });
  await assert.rejects(store.add(record("a")), /not open/);
  await store.open(0);
  await store.close();
  await assert.rejects(store.add(record("a")), /closed/);
});
