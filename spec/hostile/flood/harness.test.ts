// The flood harness itself: the sample starts in a child with a small heap, its memory is
// readable over IPC, HTTP answers, and SIGTERM ends it with exit code 0.
import assert from "node:assert/strict";
import { test } from "node:test";
import { startFloodTarget, MiB } from "./harness.js";

test("the flood target serves HTTP, reports its memory and exits 0 on SIGTERM", async () => {
  const target = await startFloodTarget({ grpc: true });
  try {
    assert.equal(await target.get("/health"), 200);
    assert.ok(target.grpcPort! > 0);
    const m = await target.memory();
    assert.ok(m.rss > 10 * MiB && m.heapUsed > MiB, JSON.stringify(m));
    target.watch(50);
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(target.peak().rssMiB >= m.rss / MiB / 2);
    assert.ok(target.alive());
  } finally {
    assert.equal(await target.stop(), 0);
  }
});
