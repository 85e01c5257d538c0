// A unary call that never ends its request: one GetUser call on a raw node:http2 stream keeps
// sending request messages (7 bytes each, many MiB) without END_STREAM. The server must refuse
// the second message as soon as its prefix arrives (UNIMPLEMENTED, as grpc-js does) and close the
// stream, so the client is stopped after a few KiB; before, every message was decoded and kept
// until END_STREAM and the 256 MiB heap ran out. HTTP keeps answering and the child lives on.
import assert from "node:assert/strict";
import { connect, type ClientHttp2Stream, type IncomingHttpHeaders } from "node:http2";
import { test } from "node:test";
import { startFloodTarget, MiB } from "../flood/harness.js";

/** How much the flooding client offers; the server must stop it long before. */
const OFFERED = 48 * MiB;
/** The client may get this far before the server's refusal reaches it (windows and buffers). */
const STOPPED_WITHIN = 2 * MiB;
/** Growth over the idle child the flood may cause. */
const HEAP_GROWTH_MIB = 32;
const RSS_GROWTH_MIB = 64;

// GetUserRequest { id: 1 } is 08 01; with its 5-byte prefix one message is 7 bytes.
const MESSAGE = Buffer.from([0, 0, 0, 0, 2, 0x08, 0x01]);
const CHUNK = Buffer.concat(Array.from({ length: Math.floor(65536 / MESSAGE.length) }, () => MESSAGE));

interface Outcome {
  written: number;
  headers: IncomingHttpHeaders;
  trailers: IncomingHttpHeaders | undefined;
  rstCode: number;
}

/** Write CHUNKs (honouring backpressure) until OFFERED bytes are out or the server closed the stream. */
function flood(req: ClientHttp2Stream, onProgress: (written: number) => void): Promise<Outcome> {
  return new Promise((resolve) => {
    let written = 0;
    let closed = false;
    let headers: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders | undefined;
    req.on("response", (h) => (headers = h));
    req.on("trailers", (t) => (trailers = t));
    req.on("error", () => {});
    req.resume();
    req.on("close", () => {
      closed = true;
      resolve({ written, headers, trailers, rstCode: req.rstCode ?? -1 });
    });
    const pump = (): void => {
      while (!closed && written < OFFERED) {
        written += CHUNK.length;
        onProgress(written);
        if (!req.write(CHUNK)) {
          req.once("drain", pump);
          return;
        }
      }
      // Everything offered was taken without a refusal: the server buffered it. Give up.
      if (!closed) req.close();
    };
    pump();
  });
}

test("a unary call flooded with request messages ends at the second one; memory stays flat; HTTP answers", { timeout: 60_000 }, async () => {
  const target = await startFloodTarget({ grpc: true });
  try {
    const idle = await target.memory();
    target.watch(50);
    const session = connect(`http://127.0.0.1:${target.grpcPort}`);
    session.on("error", () => {});
    const req = session.request({ ":method": "POST", ":path": "/users.v1.Users/GetUser", "content-type": "application/grpc", te: "trailers" });
    // HTTP is asked as the flood starts, and again once it got 8 MiB in (if it gets that far).
    const health = [target.get("/health", 15_000)];
    const outcome = await flood(req, (written) => {
      if (health.length === 1 && written >= 8 * MiB) health.push(target.get("/health", 15_000));
    });

    const afterFlood = target.alive() ? await target.memory().catch(() => undefined) : undefined;
    console.log(`unary flood: the call ended after ${(outcome.written / 1024).toFixed(0)} KiB sent (rst ${outcome.rstCode}); peak so far heap ${target.peak().heapMiB.toFixed(0)} MiB, rss ${target.peak().rssMiB.toFixed(0)} MiB; now ${afterFlood === undefined ? "gone" : `heap ${(afterFlood.heapUsed / MiB).toFixed(0)} MiB, rss ${(afterFlood.rss / MiB).toFixed(0)} MiB`}`);
    const status = outcome.trailers ?? outcome.headers;
    assert.equal(status["grpc-status"], "12", `grpc-status after ${(outcome.written / MiB).toFixed(1)} MiB: ${JSON.stringify(status)}; the service is ${target.alive() ? "alive" : `gone: ${target.output().slice(-300)}`}`);
    assert.match(String(status["grpc-message"]), /second request message/);
    assert.ok(outcome.written <= STOPPED_WITHIN, `the client sent ${(outcome.written / MiB).toFixed(1)} MiB before the call ended (bound ${STOPPED_WITHIN / MiB} MiB)`);

    // The connection is still usable: an ordinary call gets an ordinary status.
    const normal = session.request({ ":method": "POST", ":path": "/users.v1.Users/GetUser", "content-type": "application/grpc", te: "trailers" });
    const normalStatus = await new Promise<string | undefined>((resolve, reject) => {
      let h: IncomingHttpHeaders = {};
      normal.on("response", (x) => (h = x));
      normal.on("trailers", (t) => (h = t));
      normal.on("error", reject);
      normal.resume();
      normal.on("close", () => resolve(h["grpc-status"] as string | undefined));
      normal.end(MESSAGE);
    });
    assert.ok(normalStatus === "0" || normalStatus === "5", `an ordinary GetUser answered grpc-status ${normalStatus}`);
    session.close();

    for (const h of health) assert.equal(await h, 200);
    assert.equal(await target.get("/health"), 200);
    await target.memory();
    const peak = target.peak();
    const bounds = { heapMiB: idle.heapUsed / MiB + HEAP_GROWTH_MIB, rssMiB: idle.rss / MiB + RSS_GROWTH_MIB };
    const seen = `idle heap ${(idle.heapUsed / MiB).toFixed(0)} MiB, rss ${(idle.rss / MiB).toFixed(0)} MiB; peak heap ${peak.heapMiB.toFixed(0)} MiB, rss ${peak.rssMiB.toFixed(0)} MiB`;
    console.log(`unary flood: ${seen}`);
    assert.ok(peak.heapMiB < bounds.heapMiB, `heap: ${seen}`);
    assert.ok(peak.rssMiB < bounds.rssMiB, `rss: ${seen}`);
    assert.ok(target.alive());
  } finally {
    await target.stop();
  }
});
