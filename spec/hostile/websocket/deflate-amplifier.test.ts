// The permessage-deflate amplifier: messages of about 85 bytes that inflate to 64 KiB each
// (the echo route's maxPayload), sent to /api/v1/ws/echo as a burst. Before, the service
// inflated (and compressed back) every one as fast as a core allowed: 98% of a core for 41 s.
// Now a connection inflates at most maxInflateRate (16 MiB/s by default, a one-second burst)
// and stops reading while the budget refills, so the work per connection is bounded: the test
// counts the echoes (one per inflated message) against that budget over the time it watched.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MiB, startFloodTarget } from "../flood/harness.js";
import { BINARY, countFrames, deflated, maskedFrame, openRaw, pollHealth, sleep } from "./client.js";

const MESSAGE = 64 * 1024; // inflated size: the echo route's maxPayload
const RATE = 16 * MiB; // the default maxInflateRate
const MESSAGES = 20_000; // 1.7 MB on the wire, 1.25 GiB inflated
const WATCH_MS = 4000;

test("permessage-deflate bombs within maxPayload are inflated at a bounded rate per connection", { timeout: 60_000 }, async () => {
  const target = await startFloodTarget();
  try {
    const before = await target.memory();
    target.watch(50);
    const health = pollHealth(target.get);
    const client = await openRaw(target.port, "/api/v1/ws/echo", { "sec-websocket-extensions": "permessage-deflate" });
    assert.match(client.head, /sec-websocket-extensions: permessage-deflate/i);
    const echoes = countFrames(client);
    const frame = maskedFrame(BINARY, deflated(Buffer.alloc(MESSAGE)), true);
    assert.ok(frame.length < 100, `${frame.length} bytes on the wire`);
    const started = performance.now();
    client.socket.write(Buffer.concat(Array.from({ length: MESSAGES }, () => frame)));
    await sleep(WATCH_MS);
    const echoed = echoes.frames;
    const elapsed = (performance.now() - started) / 1000;
    const statuses = await health.stop();
    const peak = target.peak();
    // Inflated bytes ≤ one second's burst + RATE × elapsed + one message in progress.
    const bound = Math.floor((RATE * (1 + elapsed)) / MESSAGE) + 1;
    console.log(
      `deflate amplifier: ${echoed} of ${MESSAGES} messages inflated in ${elapsed.toFixed(1)} s (budget ${bound}), ` +
        `RSS ${(before.rss / MiB).toFixed(0)} → peak ${peak.rssMiB.toFixed(0)} MiB, heap peak ${peak.heapMiB.toFixed(0)} MiB`,
    );
    assert.ok(echoed > 0, "nothing was echoed");
    assert.ok(echoed <= bound, `${echoed} messages (${((echoed * MESSAGE) / MiB).toFixed(0)} MiB) inflated in ${elapsed.toFixed(1)} s, budget ${bound}`);
    assert.ok(peak.rssMiB - before.rss / MiB < 64, `RSS grew ${(peak.rssMiB - before.rss / MiB).toFixed(0)} MiB`);
    assert.ok(peak.heapMiB < 128, `heap peaked at ${peak.heapMiB.toFixed(0)} MiB`);
    assert.ok(statuses.length > 0 && statuses.every((s) => s === 200), `/health answered ${statuses.join(",")}`);
    client.socket.destroy();
    assert.ok(target.alive());
  } finally {
    const code = await target.stop();
    assert.equal(code, 0, `the service exited with ${code}: ${target.output().slice(-3000)}`);
  }
});
