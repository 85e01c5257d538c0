// Chat fan-out to members that never read: one member sends as fast as it can to
// /api/v1/ws/chat and reads its own copies; the others joined the room and read nothing. Each
// broadcast skips (and counts) a member whose buffer is past its limit (1 MiB), so the service
// holds at most about a megabyte per member (16 here, plus the garbage of the fan-out itself):
// before, +166 MiB for 114 MiB broadcast.
import assert from "node:assert/strict";
import { test } from "node:test";
import { signJwt } from "../../../lib/jose/index.js";
import { FLOOD_JWT_SECRET, MiB, startFloodTarget } from "../flood/harness.js";
import { maskedFrame, openRaw, pollHealth, TEXT, writeUntilStalled } from "./client.js";

const SILENT_MEMBERS = 16;
const SENT = 32 * MiB; // × 16 members: 512 MiB of fan-out, five times the bound below
// Measured growth: +45 to +72 MiB on an idle machine (Node 20, 22, 24, 26), up to +98 MiB while
// another job loads both cores (the fan-out's garbage, Buffers outside the V8 heap, waits longer
// for a collection). Unbounded, it was +513 MiB: the bound sits between the two, with room for a
// loaded CI machine.
const RSS_GROWTH_BOUND_MIB = 128;

const token = (sub: string): string => signJwt({ role: "user" }, { algorithm: "HS256", key: FLOOD_JWT_SECRET, subject: sub, expiresIn: 300 });
const chat = (sub: string) => ({ authorization: `Bearer ${token(sub)}`, "sec-websocket-protocol": "chat" });

test("chat fan-out to members that never read keeps the service's memory bounded", { timeout: 60_000 }, async () => {
  const target = await startFloodTarget();
  const sockets: Array<{ socket: { destroy(): void } }> = [];
  try {
    const silent = [];
    for (let i = 0; i < SILENT_MEMBERS; i++) {
      const member = await openRaw(target.port, "/api/v1/ws/chat?room=flood", chat(`silent-${i}`));
      member.socket.pause(); // never reads
      silent.push(member);
      sockets.push(member);
    }
    const sender = await openRaw(target.port, "/api/v1/ws/chat?room=flood", chat("sender"));
    sockets.push(sender);
    sender.socket.resume(); // reads (and discards) its own copies
    const before = await target.memory();
    target.watch(50);
    const health = pollHealth(target.get);
    const frame = maskedFrame(TEXT, Buffer.alloc(4 * 1024, "a"));
    const written = await writeUntilStalled(sender.socket, frame, SENT);
    const statuses = await health.stop();
    const peak = target.peak();
    const growth = peak.rssMiB - before.rss / MiB;
    console.log(
      `chat fan-out: ${(written / MiB).toFixed(0)} MiB sent to ${SILENT_MEMBERS} silent members, ` +
        `RSS ${(before.rss / MiB).toFixed(0)} → peak ${peak.rssMiB.toFixed(0)} MiB (+${growth.toFixed(0)}), heap peak ${peak.heapMiB.toFixed(0)} MiB`,
    );
    assert.ok(written >= SENT / 2, `the sender was slowed down to ${written} bytes`);
    assert.ok(growth < RSS_GROWTH_BOUND_MIB, `RSS grew ${growth.toFixed(0)} MiB (bound ${RSS_GROWTH_BOUND_MIB})`);
    assert.ok(peak.heapMiB < 128, `heap peaked at ${peak.heapMiB.toFixed(0)} MiB`);
    assert.ok(statuses.length > 0 && statuses.every((s) => s === 200), `/health answered ${statuses.join(",")}`);
    assert.equal(await target.get("/health"), 200);
    for (const c of [...silent, sender]) c.socket.destroy();
    assert.ok(target.alive());
  } finally {
    // Closed before the stop whatever failed above: open members would hold the drain to its
    // deadline (exit 1), and that assertion would hide the real failure.
    for (const c of sockets) c.socket.destroy();
    assert.equal(await target.stop(), 0);
  }
});
