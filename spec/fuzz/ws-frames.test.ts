// The WebSocket frame parser (lib/ws/frame-parser.ts) fuzzed: (1) any sequence of valid frames
// (fragmented text and binary messages, control frames between fragments), optionally with one
// broken frame, cut into chunks of any sizes and paused at message ends (as inflation does),
// gives exactly the messages and control frames a reference model expects, then the error with
// the right close code (1002, or 1009 past maxPayload) and nothing after it; (2) arbitrary bytes
// (garbage and mutated valid streams) under two different chunkings never throw, give the same
// events either way, stop only with 1002 or 1009, and never hold more than maxPayload bytes of a
// message nor more than one frame header of unparsed input.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { FrameParser, type FrameSink } from "../../lib/ws/frame-parser.js";
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

/** Records what the parser reports; checks that a message never holds more than maxPayload bytes. */
class RecordingSink implements FrameSink {
  readonly events: Event[] = [];
  private pieces: Buffer[] = [];
  private held = 0;
  parser!: FrameParser;
  /** Pause at each message end with this probability (the driver resumes before the next chunk). */
  constructor(private readonly maxPayload: number, private readonly pauseAtEnd: () => boolean) {}
  onMessageStart(binary: boolean, compressed: boolean): void {
    this.events.push(["start", binary, compressed]);
    this.pieces = [];
    this.held = 0;
  }
  onMessageData(piece: Buffer): void {
    this.pieces.push(Buffer.from(piece));
    this.held += piece.length;
    assert.ok(this.held <= this.maxPayload, `a message holds ${this.held} bytes, maxPayload ${this.maxPayload}`);
  }
  onMessageEnd(): void {
    this.events.push(["end", Buffer.concat(this.pieces).toString("hex")]);
    this.pieces = [];
    this.held = 0;
    if (this.pauseAtEnd()) this.parser.pause();
  }
  onControlFrame(opcode: number, payload: Buffer): void {
    assert.ok(payload.length <= 125);
    this.events.push(["control", opcode, payload.toString("hex")]);
  }
  onProtocolError(code: number, reason: string): void {
    assert.ok(reason.length > 0);
    this.events.push(["error", code]);
  }
}

const internals = (parser: FrameParser): { paused: boolean; buffered: number } => parser as unknown as { paused: boolean; buffered: number };

/** Feed `bytes` cut at `cuts` (cycled); returns the events. Checks the parser's own buffering. */
function parse(bytes: Buffer, cuts: readonly number[], maxPayload: number, rsv1Allowed: boolean, rng?: Rng): Event[] {
  const sink = new RecordingSink(maxPayload, () => rng !== undefined && rng.chance(0.3));
  const parser = new FrameParser(sink, { maxPayload, rsv1Allowed });
  sink.parser = parser;
  let offset = 0;
  for (let i = 0; offset < bytes.length; i++) {
    const size = cuts.length === 0 ? bytes.length : cuts[i % cuts.length]!;
    // A fresh copy: the parser unmasks in place, and a socket hands out fresh buffers too.
    parser.push(Buffer.from(bytes.subarray(offset, offset + size)));
    offset += size;
    // Sometimes the next chunk arrives while the parser is still paused (an inflation is slow).
    if (rng !== undefined && rng.chance(0.3) && offset < bytes.length) continue;
    // As the connection does once an inflation is done; each message end may pause again.
    while (internals(parser).paused) parser.resume();
    const buffered = internals(parser).buffered;
    assert.ok(buffered < MAX_HEADER, `the parser holds ${buffered} unparsed bytes`);
  }
  const errors = sink.events.filter((e) => e[0] === "error");
  assert.ok(errors.length <= 1, "more than one error");
  if (errors.length === 1) assert.deepEqual(sink.events.at(-1), errors[0], "events after the error");
  return sink.events;
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

const DEFECTS = ["unmasked", "rsv2", "rsv3", "rsv1-not-allowed", "rsv1-continuation", "data-opcode", "control-opcode", "long-control", "fragmented-control", "orphan-continuation", "interleaved-message", "msb", "huge", "over-max"] as const;

interface Scenario {
  maxPayload: number;
  rsv1Allowed: boolean;
  frames: FrameSpec[];
  expected: Event[];
  cuts: number[];
  seed: number;
}

/** Valid messages with control frames between fragments; maybe one defect, with the events it must give. */
function genScenario(rng: Rng): Scenario {
  const maxPayload = rng.pick([1, 16, 125, 126, 300, 1000]);
  const rsv1Allowed = rng.chance(0.5);
  const frames: FrameSpec[] = [];
  const expected: Event[] = [];
  const messages = rng.int(5);
  const defectAt = rng.chance(0.7) ? rng.int(messages + 1) : -1;
  const defect = rng.pick(DEFECTS);
  for (let m = 0; m <= messages; m++) {
    const binary = rng.chance(0.5);
    const compressed = rsv1Allowed && rng.chance(0.3);
    const fragments = 1 + rng.int(3);
    const sizes = Array.from({ length: fragments }, () => rng.int(Math.floor(maxPayload / fragments) + 1));
    const open = m === defectAt && rng.chance(0.5) && fragments > 1; // defect inside the message
    const cut = open ? 1 + rng.int(fragments - 1) : fragments;
    if (m === defectAt && !open) {
      frames.push(broken(defect, rng, maxPayload, false));
      expected.push(["error", codeOf(defect)]);
      break;
    }
    if (m === messages && m !== defectAt) break; // the last round is only for a trailing defect
    let data = Buffer.alloc(0);
    expected.push(["start", binary, compressed]);
    for (let i = 0; i < cut; i++) {
      const payload = bytes(rng, sizes[i]!);
      data = Buffer.concat([data, payload]);
      frames.push(frame(i === 0 ? (binary ? BINARY : TEXT) : CONT, payload, i === fragments - 1, i === 0 && compressed));
      if (i === fragments - 1) expected.push(["end", data.toString("hex")]);
      if (rng.chance(0.3)) {
        const op = rng.pick([PING, PONG]);
        const payload = bytes(rng, 125);
        frames.push(frame(op, payload));
        expected.push(["control", op, payload.toString("hex")]);
      }
    }
    if (open) {
      frames.push(broken(defect, rng, maxPayload, true, maxPayload - data.length));
      expected.push(["error", codeOf(defect)]);
      break;
    }
  }
  if (defectAt === -1 && rng.chance(0.3)) {
    const payload = rng.chance(0.5) ? Buffer.from([0x03, 0xe8]) : Buffer.alloc(0);
    frames.push(frame(CLOSE, payload));
    expected.push(["control", CLOSE, payload.toString("hex")]);
  }
  const cuts = rng.chance(0.2) ? [] : Array.from({ length: 1 + rng.int(5) }, () => 1 + rng.int(rng.chance(0.5) ? 3 : 64));
  return { maxPayload, rsv1Allowed: rsv1Allowed || defect === "rsv1-continuation", frames, expected, cuts, seed: rng.next() };
}

function codeOf(defect: (typeof DEFECTS)[number]): number {
  return defect === "huge" || defect === "over-max" ? 1009 : 1002;
}

/** One broken frame; `inMessage`: a fragmented message is open (with `room` bytes left under maxPayload). */
function broken(defect: (typeof DEFECTS)[number], rng: Rng, maxPayload: number, inMessage: boolean, room = maxPayload): FrameSpec {
  const dataOp = inMessage ? CONT : rng.pick([TEXT, BINARY]);
  const small = bytes(rng, Math.min(room, 10));
  switch (defect) {
    case "unmasked":
      return { ...frame(dataOp, small), masked: false };
    case "rsv2":
      return { ...frame(rng.pick([dataOp, PING]), small), rsv2: true };
    case "rsv3":
      return { ...frame(rng.pick([dataOp, PONG]), small), rsv3: true };
    case "rsv1-not-allowed":
      // On a control frame RSV1 is always wrong; on data it is wrong without the extension,
      // which the scenario does not always have, so use a control frame.
      return frame(PING, small, true, true);
    case "rsv1-continuation":
      return inMessage ? frame(CONT, small, true, true) : frame(CONT, small); // orphan otherwise: 1002 too
    case "data-opcode":
      return frame(rng.pick([3, 4, 5, 6, 7]), small);
    case "control-opcode":
      return frame(rng.pick([0xb, 0xc, 0xd, 0xe, 0xf]), small);
    case "long-control":
      return frame(rng.pick([PING, PONG, CLOSE]), Buffer.alloc(126 + rng.int(200)));
    case "fragmented-control":
      return frame(rng.pick([PING, PONG, CLOSE]), small, false);
    case "orphan-continuation":
      return inMessage ? frame(rng.pick([TEXT, BINARY]), small) : frame(CONT, small);
    case "interleaved-message":
      return inMessage ? frame(rng.pick([TEXT, BINARY]), small) : frame(CONT, small, rng.chance(0.5));
    case "msb":
      return { ...frame(dataOp, Buffer.alloc(0)), form: 127, msb: true };
    case "huge":
      return { ...frame(dataOp, Buffer.alloc(0)), form: 127, claimed: 2 ** 53 + rng.int(1000) };
    case "over-max":
      return { ...frame(dataOp, Buffer.alloc(0)), form: rng.pick([0, 126, 127] as const), claimed: room + 1 + rng.int(100) };
  }
}

test("ws frames: valid sequences in any chunking give the reference events; one broken frame gives its close code", async () => {
  await runProperty<Scenario>({
    name: "ws-frames/sequences",
    generate: genScenario,
    shrink: () => [],
    check: (s) => {
      const wire = Buffer.concat(s.frames.map(encode));
      const rng = new (class {
        private n = s.seed;
        chance(p: number): boolean {
          this.n = (Math.imul(this.n, 1103515245) + 12345) >>> 0;
          return this.n / 2 ** 32 < p;
        }
      })();
      assert.deepEqual(parse(wire, s.cuts, s.maxPayload, s.rsv1Allowed, rng as unknown as Rng), s.expected);
    },
  });
});

// ------------------------------------------------------------------ arbitrary bytes

interface Noise {
  bytes: number[];
  cutsA: number[];
  cutsB: number[];
  maxPayload: number;
  rsv1Allowed: boolean;
}

function genNoise(rng: Rng): Noise {
  let data: Buffer;
  if (rng.chance(0.5)) {
    data = bytes(rng, 400);
  } else {
    // A valid stream with bytes flipped, cut short or spliced.
    const s = genScenario(rng);
    data = Buffer.concat(s.frames.map(encode));
    const flips = 1 + rng.int(4);
    for (let i = 0; i < flips && data.length > 0; i++) data[rng.int(data.length)] = rng.int(256);
    if (rng.chance(0.3)) data = data.subarray(0, rng.int(data.length + 1));
  }
  const cuts = (): number[] => Array.from({ length: 1 + rng.int(4) }, () => 1 + rng.int(rng.chance(0.5) ? 4 : 100));
  return { bytes: [...data], cutsA: cuts(), cutsB: rng.chance(0.3) ? [] : cuts(), maxPayload: rng.pick([1, 64, 125, 500, 1 << 20]), rsv1Allowed: rng.chance(0.5) };
}

test("ws frames: arbitrary bytes never throw, stop only with 1002 or 1009 and do not depend on chunking", async () => {
  await runProperty<Noise>({
    name: "ws-frames/noise",
    generate: genNoise,
    // Shrink the bytes only (dropping a field would make an input that is not a Noise).
    shrink: (n) => (shrinkCandidates(n.bytes) as number[][]).map((bytes) => ({ ...n, bytes })),
    check: (n) => {
      const data = Buffer.from(n.bytes);
      const a = parse(data, n.cutsA, n.maxPayload, n.rsv1Allowed);
      const b = parse(data, n.cutsB, n.maxPayload, n.rsv1Allowed);
      assert.deepEqual(a, b);
      const error = a.find((e) => e[0] === "error");
      if (error !== undefined) assert.ok(error[1] === 1002 || error[1] === 1009, `close code ${error[1]}`);
    },
  });
});
