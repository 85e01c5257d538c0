// MemoryStore: LRU by count and by bytes, TTL on an injected clock, atomic add/update, scans.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryStore } from "../../lib/stores/index.js";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe("MemoryStore", () => {
  it("evicts the least recently used entry when maxEntries is reached (a read refreshes recency)", () => {
    const s = new MemoryStore<number>({ maxEntries: 3 });
    s.set("a", 1);
    s.set("b", 2);
    s.set("c", 3);
    assert.equal(s.get("a"), 1); // a is now the most recent
    s.set("d", 4);
    assert.equal(s.get("b"), undefined);
    assert.deepEqual([s.get("a"), s.get("c"), s.get("d")], [1, 3, 4]);
    assert.equal(s.size, 3);
    assert.equal(s.evictions, 1);
  });

  it("keeps least-recently-used order when the newest key is read again, deleted and written back", () => {
    const s = new MemoryStore<number>({ maxEntries: 3 });
    s.set("a", 1);
    s.set("b", 2);
    assert.equal(s.get("b"), 2); // already the newest: stays last
    assert.equal(s.get("a"), 1); // a moves after b
    s.delete("a");
    s.set("c", 3);
    s.set("a", 10); // back, newest again
    assert.equal(s.get("a"), 10);
    s.set("d", 4); // evicts b, the oldest
    assert.deepEqual([s.get("b"), s.get("c"), s.get("a"), s.get("d")], [undefined, 3, 10, 4]);
    s.clear();
    s.set("x", 1);
    s.set("a", 2);
    assert.equal(s.get("x"), 1);
    s.set("y", 3);
    s.set("z", 4); // evicts a (x was read after it)
    assert.deepEqual([s.get("a"), s.get("x"), s.get("y"), s.get("z")], [undefined, 1, 3, 4]);
  });

  it("stays within its bounds under many keys", () => {
    const s = new MemoryStore<string>({ maxEntries: 1000, maxBytes: 50_000 });
    for (let i = 0; i < 100_000; i++) s.set("k" + i, "v", { size: 40 + (i % 20) });
    assert.ok(s.size <= 1000, `size ${s.size}`);
    assert.ok(s.byteSize <= 50_000, `bytes ${s.byteSize}`);
    assert.equal(s.get("k99999"), "v");
    assert.equal(s.get("k0"), undefined);
  });

  it("evicts by bytes, and refuses an entry larger than the whole budget without evicting others", () => {
    const s = new MemoryStore<string>({ maxBytes: 100 });
    s.set("a", "x", { size: 40 });
    s.set("b", "x", { size: 40 });
    s.set("c", "x", { size: 40 });
    assert.equal(s.get("a"), undefined);
    assert.equal(s.byteSize, 80);
    s.set("huge", "x", { size: 101 });
    assert.equal(s.get("huge"), undefined);
    assert.equal(s.get("b"), "x");
    assert.equal(s.byteSize, 80);
  });

  it("expires entries by TTL on the injected clock", () => {
    const c = clock();
    const s = new MemoryStore<number>({ now: c.now, defaultTtlMs: 1000 });
    s.set("a", 1);
    s.set("b", 2, { ttlMs: 5000 });
    c.advance(999);
    assert.equal(s.get("a"), 1);
    c.advance(1);
    assert.equal(s.get("a"), undefined);
    assert.equal(s.get("b"), 2);
    c.advance(4000);
    assert.equal(s.sweep(), 1);
    assert.equal(s.size, 0);
  });

  it("add inserts only when absent or expired", () => {
    const c = clock();
    const s = new MemoryStore<string>({ now: c.now });
    assert.equal(s.add("k", "first", { ttlMs: 100 }), true);
    assert.equal(s.add("k", "second"), false);
    assert.equal(s.get("k"), "first");
    c.advance(100);
    assert.equal(s.add("k", "third"), true);
    assert.equal(s.get("k"), "third");
  });

  it("update reads, writes and deletes atomically and keeps byte counts right", () => {
    const s = new MemoryStore<{ n: number }>({ maxBytes: 1000 });
    assert.deepEqual(s.update("x", (v) => ({ n: (v?.n ?? 0) + 1 }), { size: 10 }), { n: 1 });
    assert.deepEqual(s.update("x", (v) => ({ n: (v?.n ?? 0) + 1 }), { size: 30 }), { n: 2 });
    assert.equal(s.byteSize, 30);
    assert.equal(s.update("x", () => undefined), undefined);
    assert.equal(s.get("x"), undefined);
    assert.equal(s.byteSize, 0);
  });

  it("deleteWhere removes matching live entries and drops expired ones", () => {
    const c = clock();
    const s = new MemoryStore<string[]>({ now: c.now });
    s.set("/users/1", ["users"]);
    s.set("/users/2", ["users", "vip"]);
    s.set("/projects", ["projects"]);
    s.set("/old", ["users"], { ttlMs: 10 });
    c.advance(10);
    assert.equal(s.deleteWhere((_k, tags) => tags.includes("users")), 2);
    assert.deepEqual(s.get("/projects"), ["projects"]);
    assert.equal(s.size, 1);
    assert.equal(s.deleteWhere((k) => k.startsWith("/p")), 1);
    assert.equal(s.size, 0);
  });

  it("rejects nonsense bounds", () => {
    assert.throws(() => new MemoryStore({ maxEntries: 0 }), /maxEntries/);
    assert.throws(() => new MemoryStore({ maxBytes: -1 }), /maxBytes/);
  });
});
