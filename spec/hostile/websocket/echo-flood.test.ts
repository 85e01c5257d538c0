// Echo flood: a client sends binary messages to /api/v1/ws/echo as fast as the server takes them
// and never reads the echoes. The connection stops reading once its outgoing buffer is past
// maxBufferedAmount (1 MiB), so the service's memory stays flat: before, it grew 1:1 with the
// bytes sent (1,400 MiB sent → RSS +1,431 MiB), outside the V8 heap.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MiB, startFloodTarget } from "../flood/harness.js";
import { BINARY, maskedFrame, openRaw, pollHealth, writeUntilStalled } from "./client.js";

const SENT = 192 * MiB; // six times the bound below
const RSS_GROWTH_BOUND_MIB = 32;

test("a WebSocket echo client that never reads cannot grow the service's memory", { timeout: 60_000 }, async () => {
  const target = await startFloodTarget();
  try {
    const before = await target.memory();
    target.watch(50);
    const health = pollHealth(target.get);
    const client = await openRaw(target.port, "/api/v1/ws/echo");
    client.socket.pause(); // never reads
    const frame = maskedFrame(BINARY, Buffer.alloc(60 * 1024, 0x5a)); // under the route's 64 KiB
    const written = await writeUntilStalled(client.socket, frame, SENT);
    const statuses = await health.stop();
    const peak = target.peak();
    const growth = peak.rssMiB - before.rss / MiB;
    console.log(`echo flood: ${(written / MiB).toFixed(0)} MiB written, RSS ${(before.rss / MiB).toFixed(0)} → peak ${peak.rssMiB.toFixed(0)} MiB (+${growth.toFixed(0)}), heap peak ${peak.heapMiB.toFixed(0)} MiB`);
    assert.ok(growth < RSS_GROWTH_BOUND_MIB, `RSS grew ${growth.toFixed(0)} MiB (bound ${RSS_GROWTH_BOUND_MIB})`);
    assert.ok(peak.heapMiB < 128, `heap peaked at ${peak.heapMiB.toFixed(0)} MiB`);
    assert.ok(statuses.length > 0 && statuses.every((s) => s === 200), `/health answered ${statuses.join(",")}`);
    assert.equal(await target.get("/health"), 200);
    client.socket.destroy();
    assert.ok(target.alive());
  } finally {
    assert.equal(await target.stop(), 0);
  }
});
