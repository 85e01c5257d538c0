// WebSocket echo traffic (`/api/v1/ws/echo`). Readers send one message at a time, text and
// binary in turn (1 B to 32 KiB; the text has multi-byte characters), read its echo and compare
// it byte for byte; each reconnects (a clean 1000 close) every READER_LIFETIME_MS. Non-readers
// (hostile) send 16 KiB binary frames at --hostile-kib KiB/s, waiting for 'drain' whenever their
// own socket's buffer is full, and never read; they are dropped and replaced every --recycle s.
// A reader's wrong echo, missing echo, error or close it did not start is unexpected; what
// happens to non-readers is counted (policy, not failure).
import { randomBytes } from "node:crypto";
import { encodeFrame, OP_BINARY, openWebSocket } from "./ws-client.mjs";
import { recycling, sleep } from "./recycle.mjs";

const PATH = "/api/v1/ws/echo";
const INTERVAL_MS = 100;
const ECHO_TIMEOUT_MS = 10_000;
const READER_LIFETIME_MS = 60_000;
const HOSTILE_FRAME = 16 * 1024;
const TICK_MS = 50;

/** A few payloads made once: [data, isBinary]. Text mixes ASCII with 2-, 3- and 4-byte characters. */
function payloads() {
  const out = [];
  for (const size of [1, 100, 1000, 4096, 16_384, 32_768]) {
    out.push([randomBytes(size), true]);
    let text = "";
    const alphabet = ["a", "Z", "0", " ", "é", "ß", "€", "→", "😀"];
    while (Buffer.byteLength(text) < size) text += alphabet[Math.floor(Math.random() * alphabet.length)];
    out.push([Buffer.from(text), false]);
  }
  return out;
}

export function startWsEcho({ port, signal, readers, hostile, recycleMs, hostileKiBps, tally, hostileTally, address }) {
  const pool = payloads();

  async function reader(i) {
    let seq = 0;
    while (!signal.aborted) {
      let ws;
      try {
        ws = await openWebSocket({ port, path: PATH, localAddress: address(i) });
      } catch (err) {
        tally.fail(`connect: ${err.message}`);
        await sleep(1000, signal);
        continue;
      }
      tally.count("connections");
      let waiting = null;
      ws.on("message", (data, isBinary) => {
        if (waiting === null) return tally.fail("a message nobody asked for");
        const w = waiting;
        waiting = null;
        w(data, isBinary);
      });
      ws.on("close", (info) => {
        if (info.byServer) tally.fail(`closed by the server: ${info.code} ${info.reason}${info.error ? ` (${info.error.code ?? info.error.message})` : ""}`);
        waiting?.(null, false);
      });
      const until = Date.now() + READER_LIFETIME_MS;
      while (!signal.aborted && !ws.closed && Date.now() < until) {
        const [data, isBinary] = pool[seq++ % pool.length];
        const started = process.hrtime.bigint();
        let timer;
        const echo = await new Promise((resolve) => {
          waiting = (d, b) => resolve({ d, b });
          timer = setTimeout(() => resolve(null), ECHO_TIMEOUT_MS);
          ws.send(data, isBinary);
        });
        clearTimeout(timer);
        waiting = null;
        if (echo === null) {
          tally.fail(`no echo within ${ECHO_TIMEOUT_MS} ms`);
          break;
        }
        if (echo.d === null) break; // closed meanwhile: counted above
        tally.latency(Number(process.hrtime.bigint() - started) / 1e6);
        if (echo.b !== isBinary || !echo.d.equals(data)) tally.fail(`wrong echo: ${echo.b ? "binary" : "text"} ${echo.d.length} B for ${isBinary ? "binary" : "text"} ${data.length} B`);
        else tally.count(isBinary ? "binary_echoes" : "text_echoes");
        await sleep(INTERVAL_MS, signal);
      }
      if (!ws.closed) {
        await ws.close(1000);
        if (!ws.byServer && ws.closeCode !== 1000) tally.fail(`close answered ${ws.closeCode ?? "nothing"}`);
        else tally.count("clean_closes");
      }
    }
  }

  function openHostile(i) {
    return openWebSocket({ port, path: PATH, localAddress: address(100 + i), read: false }).then((ws) => {
      hostileTally.count("connections");
      const frame = encodeFrame(OP_BINARY, randomBytes(HOSTILE_FRAME)); // one mask, reused
      const socket = ws.socket;
      let blocked = false;
      let allowance = 0;
      let recycled = false;
      ws.on("close", (info) => {
        if (!recycled) hostileTally.count(`ended_by_server_${info.code}`);
      });
      const pump = setInterval(() => {
        if (blocked || ws.closed) return;
        // As fast as the socket takes it when hostileKiBps is 0 (a tick's worth at most).
        allowance = hostileKiBps > 0 ? Math.min(allowance + (hostileKiBps * 1024 * TICK_MS) / 1000, hostileKiBps * 1024) : 64 * HOSTILE_FRAME;
        while (allowance >= HOSTILE_FRAME) {
          allowance -= HOSTILE_FRAME;
          hostileTally.count("bytes_sent", HOSTILE_FRAME);
          if (!socket.write(frame)) {
            blocked = true;
            hostileTally.count("write_blocked");
            socket.once("drain", () => (blocked = false));
            break;
          }
        }
      }, TICK_MS);
      return {
        close() {
          recycled = true;
          clearInterval(pump);
          if (!ws.closed) hostileTally.count(blocked ? "recycled_while_blocked" : "recycled_while_flowing");
          ws.destroy();
        },
      };
    });
  }

  const loops = [];
  for (let i = 0; i < readers; i++) loops.push(reader(i));
  if (hostile > 0) loops.push(recycling({ slots: hostile, periodMs: recycleMs, signal, open: openHostile, onOpenError: (err) => hostileTally.count(`connect_failed_${err.code ?? err.message}`) }));
  return Promise.all(loops);
}
