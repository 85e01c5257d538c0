// The MCP session table on its own, with a clock the test moves: idle sessions expire (on lookup,
// and from the old end when a new one is opened), the least recently used is evicted when full.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SessionTable } from "../../../lib/mcp/sessions.js";

describe("MCP sessions", () => {
  it("a session idle longer than idleMs is gone; a used one lives on", () => {
    let now = 0;
    const table = new SessionTable(10, 1000, () => now);
    const a = table.open("2025-06-18");
    const b = table.open("2025-06-18");
    now = 900;
    assert.ok(table.touch(b.id));
    now = 1500;
    assert.equal(table.touch(a.id), undefined);
    assert.ok(table.touch(b.id));
    assert.deepEqual(table.stats(), { sessions: 1, created: 2, evicted: 0, expired: 1, ended: 0 });
  });

  it("opening a session drops the idle ones first, then evicts the least recently used", () => {
    let now = 0;
    const table = new SessionTable(2, 1000, () => now);
    const old = table.open("v");
    now = 500;
    const mid = table.open("v");
    now = 1200; // `old` is idle past the limit, `mid` is not
    const fresh = table.open("v");
    assert.deepEqual(table.stats(), { sessions: 2, created: 3, evicted: 0, expired: 1, ended: 0 });
    let evicted: string | undefined;
    table.open("v", (s) => (evicted = s.id));
    assert.equal(evicted, mid.id);
    assert.equal(table.touch(old.id), undefined);
    assert.ok(table.touch(fresh.id));
    assert.equal(table.stats().evicted, 1);
    assert.throws(() => new SessionTable(0, 1), TypeError);
  });
});
