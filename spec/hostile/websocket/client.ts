// A raw WebSocket client for flood tests: the handshake by hand over net, masked frames built
// by hand, server frames counted without keeping them, and a writer that respects its own
// socket's backpressure (so the test process does not grow) and stops when the server has
// stopped reading.
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { deflateRawSync } from "node:zlib";

export const TEXT = 0x1;
export const BINARY = 0x2;

export interface RawConnection {
  socket: Socket;
  /** The 101 response's head. */
  head: string;
  /** Bytes that came after the head (frames already sent by the server). */
  rest: Buffer;
}

/** Upgrade `path` on a fresh connection; rejects unless the answer is 101. */
export function openRaw(port: number, path: string, headers: Record<string, string> = {}): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf("\r\n\r\n");
      if (end === -1) return;
      socket.off("data", onData);
      socket.pause();
      const head = received.subarray(0, end).toString("latin1");
      if (!head.startsWith("HTTP/1.1 101")) {
        socket.destroy();
        reject(new Error(`upgrade refused: ${head.split("\r\n")[0]}`));
      } else {
        resolve({ socket, head, rest: received.subarray(end + 4) });
      }
    };
    socket.on("data", onData);
    socket.on("error", reject);
    const lines: Record<string, string> = {
      host: `127.0.0.1:${port}`,
      upgrade: "websocket",
      connection: "Upgrade",
      "sec-websocket-version": "13",
      "sec-websocket-key": randomBytes(16).toString("base64"),
      ...headers,
    };
    let text = `GET ${path} HTTP/1.1\r\n`;
    for (const [name, value] of Object.entries(lines)) text += `${name}: ${value}\r\n`;
    socket.write(text + "\r\n");
  });
}

/** One masked client frame (FIN set). */
export function maskedFrame(opcode: number, payload: Buffer, rsv1 = false): Buffer {
  const length = payload.length;
  const header = length < 126 ? Buffer.alloc(2) : length < 0x10000 ? Buffer.alloc(4) : Buffer.alloc(10);
  header[0] = 0x80 | (rsv1 ? 0x40 : 0) | opcode;
  if (length < 126) header[1] = 0x80 | length;
  else if (length < 0x10000) {
    header[1] = 0x80 | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = 0x80 | 127;
    header.writeUInt32BE(0, 2);
    header.writeUInt32BE(length, 6);
  }
  const key = randomBytes(4);
  const body = Buffer.alloc(length);
  for (let i = 0; i < length; i++) body[i] = payload[i]! ^ key[i & 3]!;
  return Buffer.concat([header, key, body]);
}

/** A permessage-deflate payload (RFC 7692 §7.2.1: sync flush, trailer removed). */
export function deflated(data: Buffer): Buffer {
  return deflateRawSync(data, { finishFlush: 2 /* Z_SYNC_FLUSH */ }).subarray(0, -4);
}

/** Count the server's frames as they arrive (payloads are skipped, not kept). */
export function countFrames(connection: RawConnection): { readonly frames: number } {
  const state = { frames: 0 };
  let pending = connection.rest;
  let skip = 0;
  const onData = (chunk: Buffer): void => {
    let b = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (skip > 0) {
        const n = Math.min(skip, b.length);
        skip -= n;
        b = b.subarray(n);
        if (skip > 0) break;
      }
      if (b.length < 2) break;
      let length = b[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (b.length < 4) break;
        length = b.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (b.length < 10) break;
        length = b.readUInt32BE(2) * 2 ** 32 + b.readUInt32BE(6);
        offset = 10;
      }
      state.frames++;
      b = b.subarray(offset);
      skip = length;
    }
    pending = Buffer.from(b);
  };
  connection.socket.on("data", onData);
  connection.socket.resume();
  return state;
}

/**
 * Write `chunk` again and again until `total` bytes are written, waiting for 'drain' when the
 * socket asks to; stops early when no drain comes within `stallMs` (the server stopped reading).
 * Resolves with the bytes written.
 */
export async function writeUntilStalled(socket: Socket, chunk: Buffer, total: number, stallMs = 1500): Promise<number> {
  let written = 0;
  while (written < total && !socket.destroyed) {
    written += chunk.length;
    if (socket.write(chunk)) continue;
    const drained = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        socket.off("drain", onDrain);
        resolve(false);
      }, stallMs);
      const onDrain = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      socket.once("drain", onDrain);
    });
    if (!drained) break;
  }
  return written;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** GET /health every `everyMs` until `stop()`; `statuses()` lists what each answered. */
export function pollHealth(get: (path: string) => Promise<number>, everyMs = 250): { stop(): Promise<number[]> } {
  const statuses: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      statuses.push(await get("/health").catch(() => 0));
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return statuses;
    },
  };
}
