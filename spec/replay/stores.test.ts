// Replay stores: the memory store evicts its oldest record at capacity; the JSONL file store
// appends, survives a restart, applies retention by age, count and bytes, compacts dead lines
// away, and skips a line torn by a crash. Both list newest first with route/status/since/limit.
// Last, the layer recording into a file that a restarted app serves.
import assert from "node:assert/strict";
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { App, json, route, silentLogger } from "../../lib/index.js";
import { FileReplayStore, MemoryReplayStore, replay, type ReplayRecord, type ReplayStore } from "../../lib/replay/index.js";

let seq = 0;
function record(over: { id?: string; route?: string; status?: number; at?: number; body?: string } = {}): ReplayRecord {
  seq++;
  const at = over.at ?? Date.UTC(2030, 0, 1, 0, 0, seq);
  return {
    id: over.id ?? `rec-${seq}`,
    recorded_at: new Date(at).toISOString(),
    request: { method: "GET", path: "/p", query: "", headers: {}, body: null, body_size: 0, body_truncated: false, body_omitted: false },
    response: { status: over.status ?? 200, headers: {}, body: over.body ?? "ok", body_size: 2, body_truncated: false, body_omitted: false },
    meta: { route: over.route ?? "/p", duration_ms: 1, request_id: null },
  };
}

async function ids(store: ReplayStore, filter?: Parameters<ReplayStore["list"]>[0]): Promise<string[]> {
  return (await store.list(filter)).map((r) => r.id);
}

function filterContract(name: string, make: () => Promise<ReplayStore>): void {
  it(`${name}: lists newest first, filtered by route, status, since and limit; gets and deletes by id`, async () => {
    const store = await make();
    const base = Date.UTC(2030, 5, 1);
    await store.save(record({ id: "a", route: "/x", status: 200, at: base }));
    await store.save(record({ id: "b", route: "/y", status: 404, at: base + 1000 }));
    await store.save(record({ id: "c", route: "/x", status: 404, at: base + 2000 }));
    assert.deepEqual(await ids(store), ["c", "b", "a"]);
    assert.deepEqual(await ids(store, { route: "/x" }), ["c", "a"]);
    assert.deepEqual(await ids(store, { status: 404 }), ["c", "b"]);
    assert.deepEqual(await ids(store, { since: new Date(base + 1000) }), ["c", "b"]);
    assert.deepEqual(await ids(store, { limit: 1 }), ["c"]);
    assert.equal((await store.get("b"))?.meta.route, "/y");
    assert.equal(await store.get("nope"), null);
    assert.equal(await store.delete("b"), true);
    assert.equal(await store.delete("b"), false);
    assert.deepEqual(await ids(store), ["c", "a"]);
  });
}

describe("MemoryReplayStore", () => {
  filterContract("memory", async () => new MemoryReplayStore());

  it("keeps `capacity` records and evicts the oldest on the next save", async () => {
    const store = new MemoryReplayStore({ capacity: 3 });
    for (const id of ["1", "2", "3"]) await store.save(record({ id }));
    assert.deepEqual(await ids(store), ["3", "2", "1"]);
    await store.save(record({ id: "4" }));
    assert.deepEqual(await ids(store), ["4", "3", "2"]);
    assert.equal(await store.get("1"), null);
    assert.equal(store.size, 3);
  });

  it("refuses a capacity that is not a positive integer", () => {
    assert.throws(() => new MemoryReplayStore({ capacity: 0 }), /capacity/);
  });
});

describe("FileReplayStore", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "keel-replay-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));
  let n = 0;
  const file = (): string => join(dir, `sub-${++n}`, "replays.jsonl");
  const farFuture = (): number => Date.UTC(2030, 0, 1);

  filterContract("file", async () => new FileReplayStore({ path: file(), now: farFuture }));

  it("appends one JSON line per record and finds the records again after a restart", async () => {
    const path = file();
    const first = new FileReplayStore({ path, now: farFuture });
    await first.save(record({ id: "r1" }));
    await first.save(record({ id: "r2", body: "ünïcode" }));
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    assert.equal(lines.length, 2);
    assert.equal((JSON.parse(lines[1]!) as ReplayRecord).id, "r2");
    const reopened = new FileReplayStore({ path, now: farFuture });
    assert.deepEqual(await ids(reopened), ["r2", "r1"]);
    assert.equal((await reopened.get("r2"))?.response.body, "ünïcode");
  });

  it("remembers deletions across a restart", async () => {
    const path = file();
    const first = new FileReplayStore({ path, now: farFuture });
    await first.save(record({ id: "keep" }));
    await first.save(record({ id: "gone" }));
    await first.save(record({ id: "keep2" }));
    assert.equal(await first.delete("gone"), true);
    assert.deepEqual(await ids(new FileReplayStore({ path, now: farFuture })), ["keep2", "keep"]);
  });

  it("keeps at most maxRecords: the oldest go first, on disk too", async () => {
    const path = file();
    const store = new FileReplayStore({ path, maxRecords: 3, now: farFuture });
    for (let i = 1; i <= 3; i++) await store.save(record({ id: `m${i}` }));
    assert.deepEqual(await ids(store), ["m3", "m2", "m1"]);
    await store.save(record({ id: "m4" }));
    assert.deepEqual(await ids(store), ["m4", "m3", "m2"]);
    for (let i = 5; i <= 12; i++) await store.save(record({ id: `m${i}` }));
    assert.deepEqual(await ids(new FileReplayStore({ path, maxRecords: 3, now: farFuture })), ["m12", "m11", "m10"]);
  });

  it("drops records older than maxAgeMs (exactly maxAgeMs old is kept)", async () => {
    let now = Date.UTC(2030, 0, 1, 12);
    const store = new FileReplayStore({ path: file(), maxAgeMs: 60_000, now: () => now });
    await store.save(record({ id: "old", at: now - 60_001 }));
    await store.save(record({ id: "edge", at: now - 60_000 }));
    await store.save(record({ id: "new", at: now }));
    assert.deepEqual(await ids(store), ["new", "edge"]);
    now += 1;
    assert.deepEqual(await ids(store), ["new"]);
    assert.equal(await store.get("edge"), null);
  });

  it("keeps the live records within maxBytes and the file within twice that (compaction)", async () => {
    const path = file();
    const one = Buffer.byteLength(JSON.stringify(record({ id: "probe-000" })) + "\n");
    const maxBytes = one * 4;
    const store = new FileReplayStore({ path, maxBytes, now: farFuture });
    for (let i = 0; i < 40; i++) {
      await store.save(record({ id: `probe-${String(i).padStart(3, "0")}` }));
      const size = (await stat(path)).size;
      assert.ok(size <= 2 * maxBytes + one, `file is ${size} bytes after ${i + 1} saves`);
      assert.equal(size, store.sizeOnDisk);
    }
    assert.deepEqual(await ids(store), ["probe-039", "probe-038", "probe-037", "probe-036"]);
    assert.deepEqual(await ids(new FileReplayStore({ path, maxBytes, now: farFuture })), ["probe-039", "probe-038", "probe-037", "probe-036"]);
  });

  it("skips a line torn by a crash and rewrites the file before appending again", async () => {
    const path = file();
    const first = new FileReplayStore({ path, now: farFuture });
    await first.save(record({ id: "whole" }));
    await appendFile(path, '{"id":"torn","recorded_at":"2030-');
    const second = new FileReplayStore({ path, now: farFuture });
    assert.deepEqual(await ids(second), ["whole"]);
    await second.save(record({ id: "after" }));
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    assert.deepEqual(lines.map((l) => (JSON.parse(l) as ReplayRecord).id), ["whole", "after"]);
  });

  it("ignores lines that are JSON but not records", async () => {
    const path = join(dir, "plain.jsonl");
    await writeFile(path, JSON.stringify(record({ id: "fine" })) + "\n" + '{"id":1}\n[]\nnull\n');
    assert.deepEqual(await ids(new FileReplayStore({ path, now: farFuture })), ["fine"]);
  });
});

describe("replay() recording into a FileReplayStore", () => {
  it("writes what the layer records, and a restarted app serves it on its admin routes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "keel-replay-app-"));
    try {
      const path = join(dir, "replays.jsonl");
      const token = "0123456789abcdef-admin";
      const firstStore = new FileReplayStore({ path });
      const first = new App({ logger: silentLogger }).register(replay({ store: firstStore, redactFields: ["secret"], allowFields: ["text"] })).routes(route.post("/notes", [json()], (b) => ({ saved: b })));
      const res = await first.inject({ method: "POST", url: "/notes", body: { text: "hi", secret: "s3" } });
      assert.equal(res.status, 200);
      assert.deepEqual(res.json(), { saved: { text: "hi", secret: "s3" } });
      await firstStore.flush(); // the answer does not wait for the disk
      const restarted = new App({ logger: silentLogger }).register(replay({ store: new FileReplayStore({ path }), adminToken: token, enabled: false }));
      const list = await restarted.inject({ url: "/admin/replays", headers: { authorization: `Bearer ${token}` } });
      const [summary] = list.json<{ records: Array<{ id: string; route: string }> }>().records;
      assert.equal(summary!.route, "/notes");
      const full = (await restarted.inject({ url: `/admin/replays/${summary!.id}`, headers: { authorization: `Bearer ${token}` } })).json<ReplayRecord>();
      assert.deepEqual(JSON.parse(full.request.body!), { text: "hi", secret: "[redacted]" });
      assert.doesNotMatch(await readFile(path, "utf8"), /s3/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
