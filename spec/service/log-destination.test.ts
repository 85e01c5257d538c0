// The buffered log destination: batching, order, slow sinks (never blocks, drops counted and
// reported), failed sinks, file descriptors, synchronous flush.
import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { createBufferedLogger, createLogDestination } from "../../lib/service/index.js";

/** A Writable that records each write; `delayMs` makes it slow, `stall` makes it never finish. */
function sink(options: { delayMs?: number; stall?: boolean; highWaterMark?: number } = {}): Writable & { chunks: string[] } {
  const chunks: string[] = [];
  const w = new Writable({
    highWaterMark: options.highWaterMark ?? 16 * 1024,
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString("utf8"));
      if (options.stall) return;
      if (options.delayMs !== undefined) setTimeout(cb, options.delayMs);
      else cb();
    },
  });
  return Object.assign(w, { chunks });
}

const line = (i: number): string => JSON.stringify({ i, pad: "x".repeat(40) }) + "\n";

describe("createLogDestination", () => {
  it("batches lines written in one tick into one write, in order", async () => {
    const s = sink();
    const d = createLogDestination({ target: s });
    for (let i = 0; i < 100; i++) d.write(line(i));
    assert.equal(s.chunks.length, 0, "nothing is written synchronously");
    await d.flush();
    assert.equal(s.chunks.length, 1);
    const got = s.chunks.join("").trim().split("\n").map((l) => (JSON.parse(l) as { i: number }).i);
    assert.deepEqual(got, Array.from({ length: 100 }, (_, i) => i));
  });

  it("writes early once flushBytes are queued", () => {
    const s = sink();
    const d = createLogDestination({ target: s, flushBytes: 200 });
    for (let i = 0; i < 10; i++) d.write(line(i));
    assert.ok(s.chunks.length >= 1, "a write started without waiting for the next tick");
  });

  it("never blocks on a sink that stalls: the queue is capped, drops are counted", () => {
    const s = sink({ stall: true, highWaterMark: 1 });
    const d = createLogDestination({ target: s, flushBytes: 1, maxBufferBytes: 1000 });
    const start = performance.now();
    for (let i = 0; i < 10_000; i++) d.write(line(i));
    const elapsed = performance.now() - start;
    assert.ok(d.pendingChars <= 1000, `queue capped, got ${d.pendingChars}`);
    assert.ok(d.dropped > 9000, `drops counted, got ${d.dropped}`);
    assert.ok(elapsed < 2000, "10k writes returned promptly");
  });

  it("reports dropped lines with a notice once a slow sink catches up; nothing is lost silently", async () => {
    const s = sink({ delayMs: 20, highWaterMark: 1 });
    const d = createLogDestination({ target: s, flushBytes: 1, maxBufferBytes: 600 });
    const total = 200;
    for (let i = 0; i < total; i++) d.write(line(i));
    const dropped = d.dropped;
    assert.ok(dropped > 0, "some lines were dropped while the sink was busy");
    await d.flush();
    const lines = s.chunks.join("").trim().split("\n").map((l) => JSON.parse(l) as { i?: number; msg?: string; dropped?: number; level?: number });
    const data = lines.filter((l) => l.i !== undefined);
    const notices = lines.filter((l) => l.msg === "log lines dropped");
    assert.equal(notices.length, 1);
    assert.equal(notices[0]!.dropped, dropped);
    assert.equal(notices[0]!.level, 40);
    assert.equal(data.length + dropped, total, "every line is either written or counted");
    const order = data.map((l) => l.i!);
    assert.deepEqual(order, [...order].sort((a, b) => a - b), "written lines keep their order");
  });

  it("counts lines for a destroyed sink instead of throwing", async () => {
    const s = sink();
    s.destroy();
    const d = createLogDestination({ target: s });
    d.write(line(1));
    d.write(line(2));
    await d.flush();
    assert.equal(d.dropped, 2);
  });

  it("writes to a file descriptor (a line longer than atomicBytes included)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-log-"));
    const file = join(dir, "out.log");
    const fd = openSync(file, "w");
    try {
      const d = createLogDestination({ target: fd, atomicBytes: 512 });
      const expected: string[] = [];
      for (let i = 0; i < 300; i++) {
        const l = i === 150 ? JSON.stringify({ i, big: "y".repeat(2000) }) + "\n" : line(i);
        expected.push(l);
        d.write(l);
      }
      await d.flush();
      assert.equal(readFileSync(file, "utf8"), expected.join(""));
      d.write(line(999));
      d.flushSync();
      assert.ok(readFileSync(file, "utf8").endsWith(line(999)), "flushSync wrote synchronously");
      assert.equal(d.dropped, 0);
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("counts drops when the descriptor is bad", async () => {
    const d = createLogDestination({ target: 987654 });
    d.write(line(1));
    await d.flush();
    assert.equal(d.dropped, 1);
  });
});

describe("createBufferedLogger's drop notice", () => {
  it("carries pid, hostname and the service fields like every other line", async () => {
    const s = sink({ delayMs: 20, highWaterMark: 1 });
    const logger = createBufferedLogger({ destination: s, base: { service: "svc", version: "9" } });
    // Over the default 4 MiB queue while the sink is busy with the first write.
    const pad = "y".repeat(1000);
    for (let i = 0; i < 6000; i++) logger.log(30, "line", { i, pad });
    assert.ok(logger.destination.dropped > 0, "some lines were dropped");
    await logger.flush();
    const notice = s.chunks
      .join("")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l["msg"] === "log lines dropped");
    assert.ok(notice, "a drop notice was written");
    assert.equal(notice["level"], 40);
    assert.equal(notice["pid"], process.pid);
    assert.equal(typeof notice["hostname"], "string");
    assert.equal(notice["service"], "svc");
    assert.equal(notice["version"], "9");
    assert.equal(notice["dropped"], logger.destination.dropped);
  });
});
