// The WebSocket frame parser fuzzed through a real connection (acceptWebSocket on an in-memory
// socket, so the parser and the connection that assembles messages are both under test):
// (1) any sequence of valid frames (fragmented text and binary messages, control frames between
// fragments, a closing close frame), optionally with one broken frame, cut into chunks of any
// sizes, gives exactly the messages, pings and pongs a reference model expects, then the close
// frame with the right code (1002, 1007 for bad UTF-8, 1009 past maxPayload, before the oversized
// payload is sent) and nothing after it; (2) arbitrary bytes (garbage and mutated valid streams)
// under two different chunkings never throw, give the same events either way, and fail only with
// 1002, 1007 or 1009. In both, after every chunk the connection holds at most maxPayload bytes
// of a message and less than one frame header of unparsed input.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { Duplex } from "node:stream";
import { test } from "node:test";
import { acceptWebSocket, type WebSocket } from "../../lib/ws/index.js";
import { runProperty, shrinkCandidates, type Rng } from "./property.js";

const TEXT = 0x1;
const BINARY = 0x2;
const CONT = 0x0;
const CLOSE = 0x8;
const PING = 0x9;
const PONG = 0xa;
/** The longest frame header: 2 + 8 (64-bit length) + 4 (mask). */
const MAX_HEADER = 14;

type Event = readonly (string | number | boolean)[];

/** An in-memory socket: what the server writes is kept; what the peer sends is emitted as 'data'. */
class MemorySocket extends Duplex {
  readonly written: Buffer[] = [];
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.written.push(chunk);
    callback();
  }
}

const UPGRADE = {
  method: "GET",
  httpVersionMajor: 1,
  httpVersionMinor: 1,
  url: "/",
  headers: { host: "fuzz", upgrade: "websocket", connection: "Upgrade", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" },
} as unknown as IncomingMessage;

/** The server's frames after the 101 (unmasked, one per message). */
function serverFrames(written: Buffer[]): { opcode: number; payload: Buffer }[] {
  let b = Buffer.concat(written);
  b = b.subarray(b.indexOf("\r\n\r\n") + 4);
  const frames: { opcode: number; payload: Buffer }[] = [];
  while (b.length >= 2) {
    let length = b[1]! & 0x7f;
    let offset = 2;
    if (length === 126) [length, offset] = [b.readUInt16BE(2), 4];
    else if (length === 127) [length, offset] = [b.readUInt32BE(6), 10];
    frames.push({ opcode: b[0]! & 0x0f, payload: b.subarray(offset, offset + length) });
    b = b.subarray(offset + length);
  }
  return frames;
}

interface Internals {
  parser: { buffered: number };
  messageLength: number;
}

/**
 * Feed `bytes` cut at `cuts` (cycled) to a fresh connection; returns what it reported. Checks
 * after each chunk that it holds no more than maxPayload of a message and less than a header of
 * unparsed input, and at the end that a failure wrote a close frame with the failure's code.
 */
function parse(bytes: Buffer, cuts: readonly number[], maxPayload: number): Event[] {
  const socket = new MemorySocket();
  const ws: WebSocket = acceptWebSocket(UPGRADE, socket, Buffer.alloc(0), { maxPayload });
  const events: Event[] = [];
  let failure: number | undefined;
  ws.on("message", (data, binary) => events.push(["message", binary, (typeof data === "string" ? Buffer.from(data) : data).toString("hex")]));
  ws.on("ping", (payload) => events.push(["ping", payload.toString("hex")]));
  ws.on("pong", (payload) => events.push(["pong", payload.toString("hex")]));
  ws.on("error", (error: Error & { closeCode?: number }) => {
    assert.equal(failure, undefined, "a second failure");
    failure = error.closeCode;
    events.push(["error", error.closeCode ?? 0]);
  });
  const internals = ws as unknown as Internals;
  try {
    let offset = 0;
    for (let i = 0; offset < bytes.length; i++) {
      const size = cuts.length === 0 ? bytes.length : cuts[i % cuts.length]!;
      // A fresh copy: the parser unmasks in place, and a socket hands out fresh buffers too.
      socket.emit("data", Buffer.from(bytes.subarray(offset, offset + size)));
      offset += size;
      assert.ok(internals.parser.buffered < MAX_HEADER, `the parser holds ${internals.parser.buffered} unparsed bytes`);
      assert.ok(internals.messageLength <= maxPayload, `a message holds ${internals.messageLength} bytes, maxPayload ${maxPayload}`);
    }
    const closes = serverFrames(socket.written).filter((f) => f.opcode === CLOSE);
    assert.ok(closes.length <= 1, "more than one close frame");
    if (failure !== undefined) {
      assert.deepEqual(events.at(-1), ["error", failure], "events after the failure");
      assert.equal(closes[0]?.payload.readUInt16BE(0), failure, "the close frame's code");
    }
    if (closes.length === 1) events.push(["closed", closes[0]!.payload.length >= 2 ? closes[0]!.payload.readUInt16BE(0) : 1005]);
    return events;
  } finally {
    socket.destroy(); // clears the connection's timers
  }
}

// ------------------------------------------------------------------ frames and the reference model

interface FrameSpec {
  opcode: number;
  fin: boolean;
  rsv1: boolean;
  rsv2: boolean;
  rsv3: boolean;
  masked: boolean;
  payload: Buffer;
  /** Length form: 0 (7-bit when it fits), 126 or 127; `msb` sets the 64-bit length's top bit. */
  form: 0 | 126 | 127;
  msb?: boolean;
  /** A 64-bit length claiming this many bytes (without sending them). */
  claimed?: number;
}

function encode(f: FrameSpec): Buffer {
  const length = f.claimed ?? f.payload.length;
  const head: number[] = [(f.fin ? 0x80 : 0) | (f.rsv1 ? 0x40 : 0) | (f.rsv2 ? 0x20 : 0) | (f.rsv3 ? 0x10 : 0) | f.opcode];
  const m = f.masked ? 0x80 : 0;
  const form = f.form === 0 && length > 125 ? (length < 0x10000 ? 126 : 127) : f.form;
  if (form === 0) head.push(m | length);
  else if (form === 126) head.push(m | 126, length >> 8, length & 0xff);
  else {
    const high = Math.floor(length / 2 ** 32) | (f.msb === true ? 0x80000000 : 0);
    head.push(m | 127, high >>> 24, (high >>> 16) & 0xff, (high >>> 8) & 0xff, high & 0xff, length >>> 24, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff);
  }
  if (!f.masked) return Buffer.concat([Buffer.from(head), f.payload]);
  const key = randomBytes(4);
  const body = Buffer.from(f.payload.map((b, i) => b ^ key[i & 3]!));
  return Buffer.concat([Buffer.from(head), key, body]);
}

const frame = (opcode: number, payload: Buffer, fin = true, rsv1 = false): FrameSpec => ({ opcode, fin, rsv1, rsv2: false, rsv3: false, masked: true, payload, form: 0 });

function bytes(rng: Rng, max: number): Buffer {
  return Buffer.from(Array.from({ length: rng.int(max + 1) }, () => rng.int(256)));
}

const CHARS = ["a", "z", " ", "\n", "é", "€", "日", "😀", "\u0000", "\u07ff", "\uffff"];

/** Valid UTF-8 of at most `max` bytes (whole characters). */
function utf8(rng: Rng, max: number): Buffer {
  const target = rng.int(max + 1);
  let text = "";
  for (;;) {
    const next = text + rng.pick(CHARS);
    if (Buffer.byteLength(next) > target) return Buffer.from(text);
    text = next;
  }
}

const DEFECTS = ["unmasked", "rsv1", "rsv2", "rsv3", "data-opcode", "control-opcode", "long-control", "fragmented-control", "orphan-continuation", "interleaved-message", "msb", "huge", "over-max", "bad-utf8", "bad-close-code"] as const;
type Defect = (typeof DEFECTS)[number];
/** Codes a close frame may not carry (reserved, local-only, unassigned). */
const BAD_CLOSE_CODES = [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535];

interface Scenario {
  maxPayload: number;
  frames: FrameSpec[];
  expected: Event[];
  cuts: number[];
}

/** Valid messages with control frames between fragments; maybe one defect; the events they must give. */
function genScenario(rng: Rng): Scenario {
  const maxPayload = rng.pick([1, 16, 125, 126, 300, 1000]);
  const frames: FrameSpec[] = [];
  const expected: Event[] = [];
  const messages = rng.int(5);
  const defectAt = rng.chance(0.7) ? rng.int(messages + 1) : -1;
  const defect = rng.pick(DEFECTS);
  const fail = (spec: FrameSpec, code = codeOf(defect)): void => {
    frames.push(spec);
    expected.push(["error", code], ["closed", code]);
  };
  for (let m = 0; m <= messages; m++) {
    const binary = rng.chance(0.5);
    const whole = binary ? bytes(rng, maxPayload) : utf8(rng, maxPayload);
    const fragments = 1 + rng.int(3);
    // Fragment boundaries anywhere, also inside a character (checked across fragments).
    const bounds = [0, ...Array.from({ length: fragments - 1 }, () => rng.int(whole.length + 1)).sort((a, b) => a - b), whole.length];
    // The defect comes inside this message (bad UTF-8 only inside a text one).
    const open = m === defectAt && fragments > 1 && !(defect === "bad-utf8" && binary) && rng.chance(0.5);
    const cut = open ? 1 + rng.int(fragments - 1) : fragments;
    if (m === defectAt && !open) {
      fail(broken(defect, rng, maxPayload, false));
      break;
    }
    if (m === messages) break; // the last round is only for a trailing defect
    for (let i = 0; i < cut; i++) {
      const payload = whole.subarray(bounds[i], bounds[i + 1]);
      frames.push(frame(i === 0 ? (binary ? BINARY : TEXT) : CONT, payload, i === fragments - 1));
      if (i === fragments - 1) expected.push(["message", binary, whole.toString("hex")]);
      if (rng.chance(0.3)) {
        const op = rng.pick([PING, PONG]);
        const control = bytes(rng, 125);
        frames.push(frame(op, control));
        expected.push([op === PING ? "ping" : "pong", control.toString("hex")]);
      }
    }
    if (open) {
      const room = maxPayload - bounds[cut]!;
      // A bad byte that does not fit is first a message too big.
      fail(broken(defect, rng, maxPayload, true, room), defect === "bad-utf8" && room < 1 ? 1009 : codeOf(defect));
      break;
    }
  }
  if (defectAt === -1 && rng.chance(0.5)) {
    const payload = rng.chance(0.5) ? Buffer.from([0x03, 0xe8, 0x6f, 0x6b]) : Buffer.alloc(0);
    frames.push(frame(CLOSE, payload));
    expected.push(["closed", payload.length === 0 ? 1005 : 1000]);
    frames.push(frame(BINARY, bytes(rng, 5))); // ignored: nothing is read after a close frame
  }
  const cuts = rng.chance(0.2) ? [] : Array.from({ length: 1 + rng.int(5) }, () => 1 + rng.int(rng.chance(0.5) ? 3 : 64));
  return { maxPayload, frames, expected, cuts };
}

function codeOf(defect: Defect): number {
  return defect === "huge" || defect === "over-max" ? 1009 : defect === "bad-utf8" ? 1007 : 1002;
}

/** One broken frame; `inMessage`: a fragmented message is open (with `room` bytes left under maxPayload). */
function broken(defect: Defect, rng: Rng, maxPayload: number, inMessage: boolean, room = maxPayload): FrameSpec {
  const dataOp = inMessage ? CONT : BINARY;
  const small = bytes(rng, Math.min(room, 10));
  switch (defect) {
    case "unmasked":
      return { ...frame(dataOp, small), masked: false };
    case "rsv1": // no extension was negotiated
      return frame(rng.pick([dataOp, PING]), small, true, true);
    case "rsv2":
      return { ...frame(rng.pick([dataOp, PING]), small), rsv2: true };
    case "rsv3":
      return { ...frame(rng.pick([dataOp, PONG]), small), rsv3: true };
    case "data-opcode":
      return frame(rng.pick([3, 4, 5, 6, 7]), small);
    case "control-opcode":
      return frame(rng.pick([0xb, 0xc, 0xd, 0xe, 0xf]), small);
    case "long-control":
      return frame(rng.pick([PING, PONG, CLOSE]), Buffer.alloc(126 + rng.int(200)));
    case "fragmented-control":
      return frame(rng.pick([PING, PONG, CLOSE]), small, false);
    case "orphan-continuation":
    case "interleaved-message":
      return inMessage ? frame(rng.pick([TEXT, BINARY]), small) : frame(CONT, small, rng.chance(0.5));
    case "msb":
      return { ...frame(dataOp, Buffer.alloc(0)), form: 127, msb: true };
    case "huge":
      return { ...frame(dataOp, Buffer.alloc(0)), form: 127, claimed: 2 ** 53 + rng.int(1000) };
    case "over-max": // only the header is sent: the answer must not wait for the payload
      return { ...frame(dataOp, Buffer.alloc(0)), form: rng.pick([0, 126, 127] as const), claimed: room + 1 + rng.int(100) };
    case "bad-utf8":
      // A byte that never occurs in UTF-8, in the open text message or a text message of its own.
      return inMessage ? frame(CONT, Buffer.from([0xff])) : frame(TEXT, Buffer.concat([utf8(rng, Math.max(0, room - 1)), Buffer.from([rng.pick([0xc0, 0xf8, 0xff])])]).subarray(-Math.max(1, room)));
    case "bad-close-code": {
      const payload = Buffer.alloc(2);
      payload.writeUInt16BE(rng.pick(BAD_CLOSE_CODES));
      return frame(CLOSE, payload);
    }
  }
}

test("ws frames: valid sequences in any chunking give the reference events; one broken frame gives its close code", async () => {
  await runProperty<Scenario>({
    name: "ws-frames/sequences",
    generate: genScenario,
    shrink: () => [],
    check: (s) => assert.deepEqual(parse(Buffer.concat(s.frames.map(encode)), s.cuts, s.maxPayload), s.expected),
  });
});

// ------------------------------------------------------------------ arbitrary bytes

interface Noise {
  bytes: number[];
  cutsA: number[];
  cutsB: number[];
  maxPayload: number;
}

function genNoise(rng: Rng): Noise {
  let data: Buffer;
  if (rng.chance(0.5)) {
    data = bytes(rng, 400);
  } else {
    // A valid stream with bytes flipped, cut short or spliced.
    data = Buffer.concat(genScenario(rng).frames.map(encode));
    const flips = 1 + rng.int(4);
    for (let i = 0; i < flips && data.length > 0; i++) data[rng.int(data.length)] = rng.int(256);
    if (rng.chance(0.3)) data = data.subarray(0, rng.int(data.length + 1));
  }
  const cuts = (): number[] => Array.from({ length: 1 + rng.int(4) }, () => 1 + rng.int(rng.chance(0.5) ? 4 : 100));
  return { bytes: [...data], cutsA: cuts(), cutsB: rng.chance(0.3) ? [] : cuts(), maxPayload: rng.pick([1, 64, 125, 500, 1 << 20]) };
}

test("ws frames: arbitrary bytes never throw, fail only with 1002, 1007 or 1009 and do not depend on chunking", async () => {
  await runProperty<Noise>({
    name: "ws-frames/noise",
    generate: genNoise,
    // Shrink the bytes only (dropping a field would make an input that is not a Noise).
    shrink: (n) => (shrinkCandidates(n.bytes) as number[][]).map((bytes) => ({ ...n, bytes })),
    check: (n) => {
      const data = Buffer.from(n.bytes);
      const a = parse(data, n.cutsA, n.maxPayload);
      const b = parse(data, n.cutsB, n.maxPayload);
      assert.deepEqual(a, b);
      const error = a.find((e) => e[0] === "error");
      if (error !== undefined) assert.ok(error[1] === 1002 || error[1] === 1007 || error[1] === 1009, `close code ${error[1]}`);
    },
  });
});
