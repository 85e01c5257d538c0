// keel/sse under a client that does not keep up (issue 32 item 3): events a function source sends
// without awaiting `send()` wait in the stream up to `maxBufferedBytes`; past that the stream is
// destroyed with ERR_SSE_BUFFER_LIMIT (its source's signal aborts, nothing it held is kept); under
// the limit everything sent arrives, in order, before the end. Driven on the stream itself, with a
// consumer that takes nothing until told to.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { SseStream } from "../../lib/sse/index.js";

const BOUND_MS = 5000;

/** A writable that holds every write until `release()`: the socket of a client that does not read. */
function stalledSink(): { sink: Writable; received: string[]; release: () => void } {
  const received: string[] = [];
  let held: Array<() => void> = [];
  let released = false;
  const sink = new Writable({
    objectMode: true,
    highWaterMark: 1,
    write(chunk: string, _enc, callback) {
      received.push(chunk);
      if (released) callback();
      else held.push(callback);
    },
  });
  return {
    sink,
    received,
    release() {
      released = true;
      const waiting = held;
      held = [];
      for (const cb of waiting) cb();
    },
  };
}

function once<T>(emitter: NodeJS.EventEmitter, event: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${BOUND_MS} ms`)), BOUND_MS);
    emitter.once(event, (value: T) => (clearTimeout(timer), resolve(value)));
  });
}

const EVENT = { event: "job", data: "x".repeat(100) }; // 124 bytes on the wire

describe("SseStream with a client that does not read", () => {
  it("ends the stream with ERR_SSE_BUFFER_LIMIT once events sent without awaiting pass maxBufferedBytes; the source's signal aborts", async () => {
    let signal!: AbortSignal;
    let sends = 0;
    const stream = new SseStream((send, info) => {
      signal = info.signal;
      return new Promise<void>((resolve) => {
        info.signal.addEventListener("abort", () => resolve(), { once: true });
        // An event bus listener: it never awaits. 10,000 events (1.2 MB) against a 4 KiB limit.
        setImmediate(() => {
          for (let i = 0; i < 10_000 && !info.signal.aborted; i++) {
            void send(EVENT);
            sends++;
          }
        });
      });
    }, { maxBufferedBytes: 4096, keepAliveMs: 0 });
    const { sink } = stalledSink();
    const failed = once<NodeJS.ErrnoException>(stream, "error");
    stream.pipe(sink);
    const err = await failed;
    assert.equal(err.code, "ERR_SSE_BUFFER_LIMIT");
    assert.match(err.message, /limit of 4096/);
    assert.equal(signal.aborted, true);
    assert.ok(stream.destroyed);
    // Held at most: the reader's 16 events, the sink's one, and 4 KiB of queue (33 events).
    assert.ok(sends < 100, `the source could send ${sends} events before the stream ended`);
  });

  it("delivers everything sent under the limit, in order, before the end, once the client reads", async () => {
    const stream = new SseStream((send) => {
      for (let i = 0; i < 60; i++) void send({ id: String(i), data: "x".repeat(100) });
    }, { maxBufferedBytes: 64 * 1024, keepAliveMs: 0 });
    const { sink, received, release } = stalledSink();
    stream.pipe(sink);
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(received.length < 60, "the sink took everything although it does not read");
    release();
    await once(sink, "finish");
    const ids = received.join("").match(/^id: \d+$/gm)!.map((line) => Number(line.slice(4)));
    assert.deepEqual(ids, Array.from({ length: 60 }, (_, i) => i));
  });

  it("makes an awaited send() wait until the client reads, and never queues then", async () => {
    let resolvedSends = 0;
    const stream = new SseStream(async (send) => {
      for (let i = 0; i < 40; i++) {
        await send({ id: String(i), data: "x".repeat(100) });
        resolvedSends++;
      }
    }, { maxBufferedBytes: 1, keepAliveMs: 0 });
    const { sink, received, release } = stalledSink();
    stream.pipe(sink);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(resolvedSends < 40, "send() resolved although nothing was read");
    release();
    await once(sink, "finish");
    assert.equal(resolvedSends, 40);
    assert.equal(received.join("").match(/^id: /gm)!.length, 40);
  });

  it("refuses a maxBufferedBytes that is not a positive integer", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, "1024" as unknown as number]) {
      assert.throws(() => new SseStream(async () => {}, { maxBufferedBytes: bad }), /maxBufferedBytes must be a positive integer/);
    }
  });
});
