#!/usr/bin/env node
// The WebSocket load generator of bench/ws-echo.mjs, in its own process (pinned to its own CPU by
// the harness) so that it shares an event loop with nothing else. A minimal RFC 6455 client over
// node:net, the same for every server: N connections, each keeping `inFlight` messages of `size`
// bytes in flight (1: ping-pong; more: pipelined), every echo checked (FIN, opcode, length, first
// and last byte). Messages are counted over a measured window after a warm-up; the server's CPU
// time comes from /proc/<serverPid>/stat at the window's edges.
//
//   node ws-load.mjs '{"port":1234,"path":"/echo","connections":16,"size":64,"kind":"binary",
//                      "inFlight":1,"warmupMs":1000,"durationMs":5000,"serverPid":4321,"clockTicks":100}'
//
// Prints one JSON line on stdout: { ok: true, messages, seconds, msgsPerSec, ... } or
// { ok: false, error } (exit code 1).
import { createHash, randomBytes } from "node:crypto";
import { connect } from "node:net";
import { performance } from "node:perf_hooks";
import { processTicks, systemTicks } from "./proc-stat.mjs";

const WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const OPCODE = { text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa };
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** After the window: how long closing connections may take before they are destroyed. */
const CLOSE_GRACE_MS = 500;

function parseSpec(text) {
  const spec = JSON.parse(text);
  const whole = (name, min) => {
    const v = spec[name];
    if (!Number.isInteger(v) || v < min) throw new Error(`spec.${name} must be an integer >= ${min}`);
    return v;
  };
  whole("port", 1);
  whole("connections", 1);
  whole("size", 1);
  whole("inFlight", 1);
  whole("warmupMs", 0);
  whole("durationMs", 1);
  if (spec.kind !== "binary" && spec.kind !== "text") throw new Error('spec.kind must be "binary" or "text"');
  return { path: "/echo", host: "127.0.0.1", serverPid: null, clockTicks: 100, ...spec };
}

/**
 * Connection `index`'s message: distinct per connection and with different first and last bytes
 * where the size allows, so an echo from the wrong message or cut short is noticed. Text is
 * ASCII (valid UTF-8 the server must validate); binary covers all byte values.
 */
function payloadFor(index, size, kind) {
  const out = Buffer.allocUnsafe(size);
  for (let j = 0; j < size; j++) out[j] = kind === "text" ? 97 + ((index + j) % 26) : (index * 31 + j * 7 + 1) & 0xff;
  return out;
}

/** One masked client frame (FIN set). The same mask for every send is allowed: servers just XOR. */
function maskedFrame(opcode, payload, mask) {
  const n = payload.length;
  const headLen = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headLen + 4 + n);
  frame[0] = 0x80 | opcode;
  if (n < 126) frame[1] = 0x80 | n;
  else if (n < 65536) {
    frame[1] = 0x80 | 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 0x80 | 127;
    frame.writeUInt32BE(Math.floor(n / 2 ** 32), 2);
    frame.writeUInt32BE(n >>> 0, 6);
  }
  mask.copy(frame, headLen);
  for (let j = 0; j < n; j++) frame[headLen + 4 + j] = payload[j] ^ mask[j & 3];
  return frame;
}

/** A nonzero mask: a zero mask would make unmasking a no-op a server could skip. */
function randomMask() {
  for (;;) {
    const m = randomBytes(4);
    if (m.readUInt32BE(0) !== 0) return m;
  }
}

/** The server's side of the handshake: 101 with the right Sec-WebSocket-Accept. Returns null or why not. */
function checkHandshakeAnswer(head, key) {
  const lines = head.split("\r\n");
  if (!/^HTTP\/1\.1 101 /.test(lines[0])) return `handshake answered "${lines[0]}"`;
  const expected = createHash("sha1").update(key + WEBSOCKET_GUID).digest("base64");
  const accept = lines.find((l) => /^sec-websocket-accept:/i.test(l));
  if (accept === undefined || accept.slice(accept.indexOf(":") + 1).trim() !== expected) return "wrong or missing Sec-WebSocket-Accept";
  if (lines.some((l) => /^sec-websocket-extensions:/i.test(l))) return "the server negotiated an extension (compression must be off)";
  return null;
}

/**
 * A streaming parser of the server's (unmasked) frames that keeps no payload: it tracks the
 * header, the length left, and the payload's first and last byte, and calls `onFrame(fin,
 * opcode, length, first, last)` per complete frame.
 */
class EchoFrameReader {
  constructor(onFrame, onError) {
    this.onFrame = onFrame;
    this.onError = onError;
    this.head = Buffer.alloc(10);
    this.headLen = 0;
    this.headNeed = 2;
    this.remaining = -1; // -1: reading a header
    this.length = 0;
    this.first = -1;
  }

  push(chunk) {
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      if (this.remaining === -1) {
        while (this.headLen < this.headNeed && i < n) this.head[this.headLen++] = chunk[i++];
        if (this.headLen < this.headNeed) return;
        if (this.headNeed === 2) {
          if ((this.head[1] & 0x80) !== 0) return this.onError("the server sent a masked frame");
          const len7 = this.head[1] & 0x7f;
          if (len7 === 126 || len7 === 127) {
            this.headNeed = len7 === 126 ? 4 : 10;
            continue;
          }
          this.length = len7;
        } else if (this.headNeed === 4) this.length = this.head.readUInt16BE(2);
        else this.length = this.head.readUInt32BE(2) * 2 ** 32 + this.head.readUInt32BE(6);
        this.remaining = this.length;
        this.first = -1;
        if (this.length === 0) {
          this.finish(-1);
          continue;
        }
      }
      const take = Math.min(n - i, this.remaining);
      if (this.remaining === this.length) this.first = chunk[i];
      i += take;
      this.remaining -= take;
      if (this.remaining === 0) this.finish(chunk[i - 1]);
    }
  }

  finish(last) {
    const fin = (this.head[0] & 0x80) !== 0;
    const opcode = this.head[0] & 0x0f;
    const length = this.length;
    const first = this.first;
    this.headLen = 0;
    this.headNeed = 2;
    this.remaining = -1;
    this.onFrame(fin, opcode, length, first, last);
  }
}

async function main() {
  const spec = parseSpec(process.argv[2] ?? "");
  const opcode = spec.kind === "text" ? OPCODE.text : OPCODE.binary;
  const conns = [];
  let phase = "connecting"; // → "running" → "stopped"
  let echoed = 0;
  let failure = null;
  let resolveDone;
  const done = new Promise((resolve) => (resolveDone = resolve));
  const fail = (why) => {
    if (failure !== null || phase === "stopped") return;
    failure = why;
    phase = "stopped";
    for (const c of conns) c.socket.destroy();
    resolveDone();
  };

  const open = (index) =>
    new Promise((resolve, reject) => {
      const payload = payloadFor(index, spec.size, spec.kind);
      const conn = {
        index,
        frame: maskedFrame(opcode, payload, randomMask()),
        first: payload[0],
        last: payload[spec.size - 1],
        socket: connect({ host: spec.host, port: spec.port }),
        reader: null,
      };
      const key = randomBytes(16).toString("base64");
      const socket = conn.socket;
      socket.setNoDelay(true);
      let head = Buffer.alloc(0);
      const timer = setTimeout(() => reject(new Error(`connection ${index}: no handshake answer within ${HANDSHAKE_TIMEOUT_MS} ms`)), HANDSHAKE_TIMEOUT_MS);
      conn.reader = new EchoFrameReader(
        (fin, op, length, first, last) => onEcho(conn, fin, op, length, first, last),
        (why) => fail(`connection ${index}: ${why}`),
      );
      const onHead = (chunk) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf("\r\n\r\n");
        if (end === -1) return;
        clearTimeout(timer);
        socket.off("data", onHead);
        const why = checkHandshakeAnswer(head.subarray(0, end).toString("latin1"), key);
        if (why !== null) return reject(new Error(`connection ${index}: ${why}`));
        socket.on("data", (d) => conn.reader.push(d));
        const rest = head.subarray(end + 4);
        if (rest.length > 0) conn.reader.push(rest);
        resolve(conn);
      };
      socket.on("data", onHead);
      socket.on("error", (err) => {
        clearTimeout(timer);
        if (phase === "connecting") reject(err);
        else fail(`connection ${index}: ${err.message}`);
      });
      socket.on("close", () => {
        if (phase === "running") fail(`connection ${index}: the server closed the connection`);
      });
      socket.write(
        `GET ${spec.path} HTTP/1.1\r\nHost: ${spec.host}:${spec.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });

  function onEcho(conn, fin, op, length, first, last) {
    if (phase !== "running") return;
    if (op === OPCODE.pong) return;
    if (op === OPCODE.close) return fail(`connection ${conn.index}: the server sent a close frame`);
    if (!fin || op !== opcode) return fail(`connection ${conn.index}: expected one unfragmented ${spec.kind} frame, got fin=${fin} opcode=${op}`);
    if (length !== spec.size) return fail(`connection ${conn.index}: echo of ${length} bytes, sent ${spec.size}`);
    if (first !== conn.first || last !== conn.last) return fail(`connection ${conn.index}: echo bytes differ (first ${first} vs ${conn.first}, last ${last} vs ${conn.last})`);
    echoed++;
    conn.socket.write(conn.frame);
  }

  try {
    for (let i = 0; i < spec.connections; i++) conns.push(await open(i));
  } catch (err) {
    for (const c of conns) c.socket.destroy();
    throw err;
  }

  phase = "running";
  for (const c of conns) for (let k = 0; k < spec.inFlight; k++) c.socket.write(c.frame);

  const snapshot = () => ({ t: performance.now(), echoed, server: spec.serverPid === null ? null : processTicks(spec.serverPid), client: process.cpuUsage(), system: systemTicks() });
  let start = null;
  let end = null;
  setTimeout(() => {
    if (phase !== "running") return;
    start = snapshot();
    setTimeout(() => {
      if (phase !== "running") return;
      end = snapshot();
      phase = "stopped";
      resolveDone();
    }, spec.durationMs);
  }, spec.warmupMs);
  await done;

  await closeAll(conns);
  if (failure !== null) throw new Error(failure);

  const seconds = (end.t - start.t) / 1000;
  const messages = end.echoed - start.echoed;
  const serverTicks = start.server !== null && end.server !== null ? end.server - start.server : null;
  const clientMicros = end.client.user - start.client.user + (end.client.system - start.client.system);
  const windowTicks = seconds * spec.clockTicks;
  const serverCpuPct = serverTicks === null ? null : (100 * serverTicks) / windowTicks;
  const clientCpuPct = (100 * clientMicros) / 1e6 / seconds;
  // CPU used by everything else during the window, in % of one core: the neighbour-load line.
  let otherCpuPct = null;
  if (start.system !== null && end.system !== null && serverCpuPct !== null) {
    const busyPct = (100 * (end.system.busy - start.system.busy)) / windowTicks;
    otherCpuPct = Math.max(0, busyPct - serverCpuPct - clientCpuPct);
  }
  return {
    ok: true,
    messages,
    seconds,
    msgsPerSec: messages / seconds,
    serverCpuUsPerMsg: serverTicks === null || messages === 0 ? null : ((serverTicks / spec.clockTicks) * 1e6) / messages,
    serverCpuPct,
    clientCpuPct,
    otherCpuPct,
    // Little's law: every connection always has inFlight messages out.
    meanRoundTripUs: messages === 0 ? null : (spec.connections * spec.inFlight * 1e6) / (messages / seconds),
  };
}

/** Close frames (1000) on every connection, then destroy whatever is still open after a grace. */
function closeAll(conns) {
  const closeFrame = maskedFrame(OPCODE.close, Buffer.from([0x03, 0xe8]), randomMask());
  return Promise.all(
    conns.map(
      (c) =>
        new Promise((resolve) => {
          const socket = c.socket;
          if (socket.destroyed) return resolve();
          const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
          socket.once("close", () => {
            clearTimeout(timer);
            resolve();
          });
          socket.on("error", () => {});
          socket.end(closeFrame);
        }),
    ),
  );
}

main().then(
  (result) => {
    process.stdout.write(JSON.stringify(result) + "\n");
    process.exit(0);
  },
  (err) => {
    process.stdout.write(JSON.stringify({ ok: false, error: String(err?.message ?? err) }) + "\n");
    process.exit(1);
  },
);
