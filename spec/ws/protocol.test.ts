// RFC 6455 server behaviour over real sockets with hand-built client frames: every §5 rule
// (asserting the close code the server sends and that it ends the socket), UTF-8 fail-fast,
// limits at their boundary, the close handshake, heartbeat, backpressure, permessage-deflate,
// the opening handshake's refusals, rooms and the shutdown registry.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer, IncomingMessage, type Server } from "node:http";
import { connect, Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import {
  acceptWebSocket,
  checkUpgradeRequest,
  CloseCode,
  createRooms,
  ReadyState,
  WebSocketRegistry,
  writeRefusal,
  type WebSocket,
  type WebSocketOptions,
} from "../../lib/ws/index.js";

// ------------------------------------------------------------------ server

interface TestServer {
  port: number;
  /** Connections in order of arrival. */
  sockets: WebSocket[];
  /** Resolves with the next accepted connection. */
  next(): Promise<WebSocket>;
  close(): Promise<void>;
}

type OnConnection = (ws: WebSocket, req: IncomingMessage) => void;

function echo(ws: WebSocket): void {
  ws.on("message", (data, isBinary) => {
    assert.equal(typeof data === "string", !isBinary);
    ws.send(data);
  });
}

async function startServer(options: WebSocketOptions = {}, onConnection: OnConnection = echo): Promise<TestServer> {
  const server: Server = createServer((_req, res) => res.end("plain http"));
  const sockets: WebSocket[] = [];
  const waiting: Array<(ws: WebSocket) => void> = [];
  server.on("upgrade", (req: IncomingMessage, socket, head: Buffer) => {
    const refusal = checkUpgradeRequest(req, options);
    if (refusal !== null) {
      writeRefusal(socket, refusal);
      return;
    }
    const ws = acceptWebSocket(req, socket, head, options);
    onConnection(ws, req);
    sockets.push(ws);
    waiting.shift()?.(ws);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  return {
    port: address.port,
    sockets,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        for (const ws of sockets) ws.terminate();
        server.close(() => resolve());
      }),
  };
}

// ------------------------------------------------------------------ raw client

interface Frame {
  fin: boolean;
  rsv1: boolean;
  opcode: number;
  payload: Buffer;
}

interface FrameOptions {
  fin?: boolean;
  rsv1?: boolean;
  rsv2?: boolean;
  mask?: boolean;
  /** Force the 16-bit (126) or 64-bit (127) length form. */
  lengthForm?: 126 | 127;
  /** Raw high 32 bits of a 64-bit length (to set the MSB). */
  high32?: number;
}

function buildFrame(opcode: number, payload: Buffer | string, options: FrameOptions = {}): Buffer {
  const data = typeof payload === "string" ? Buffer.from(payload) : payload;
  const masked = options.mask !== false;
  const length = data.length;
  const form = options.lengthForm ?? (length < 126 ? 0 : length < 0x10000 ? 126 : 127);
  const header: number[] = [
    ((options.fin ?? true) ? 0x80 : 0) | (options.rsv1 === true ? 0x40 : 0) | (options.rsv2 === true ? 0x20 : 0) | opcode,
  ];
  const maskBit = masked ? 0x80 : 0;
  if (form === 0) header.push(maskBit | length);
  else if (form === 126) header.push(maskBit | 126, length >> 8, length & 0xff);
  else {
    const high = options.high32 ?? Math.floor(length / 2 ** 32);
    header.push(maskBit | 127, (high >>> 24) & 0xff, (high >>> 16) & 0xff, (high >>> 8) & 0xff, high & 0xff);
    header.push((length >>> 24) & 0xff, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff);
  }
  if (!masked) return Buffer.concat([Buffer.from(header), data]);
  const key = randomBytes(4);
  const body = Buffer.alloc(length);
  for (let i = 0; i < length; i++) body[i] = data[i]! ^ key[i & 3]!;
  return Buffer.concat([Buffer.from(header), key, body]);
}

function closeBody(code: number, reason: string | Buffer = ""): Buffer {
  const r = typeof reason === "string" ? Buffer.from(reason) : reason;
  const b = Buffer.alloc(2 + r.length);
  b.writeUInt16BE(code, 0);
  r.copy(b, 2);
  return b;
}

class RawClient {
  readonly socket: Socket;
  status = 0;
  headers: Record<string, string> = {};
  body = "";
  private buffer = Buffer.alloc(0);
  private handshakeDone = false;
  private frames: Frame[] = [];
  private frameWaiters: Array<(frame: Frame | null) => void> = [];
  /** Resolves when the server ended or closed the connection. */
  readonly ended: Promise<void>;
  private isEnded = false;
  private handshakeResolve!: () => void;
  readonly handshake: Promise<void>;

  constructor(port: number, requestHeaders: Record<string, string> = {}, requestLine = "GET /chat HTTP/1.1") {
    this.socket = connect(port, "127.0.0.1");
    this.handshake = new Promise((resolve) => (this.handshakeResolve = resolve));
    this.ended = new Promise((resolve) => {
      const done = (): void => {
        this.isEnded = true;
        for (const waiter of this.frameWaiters.splice(0)) waiter(null);
        if (!this.handshakeDone) this.parseResponse(true);
        else if (this.status !== 101) this.body = this.buffer.toString("utf8");
        this.handshakeResolve();
        resolve();
      };
      this.socket.on("end", done);
      this.socket.on("close", done);
    });
    this.socket.on("error", () => {});
    this.socket.on("data", (chunk: Buffer) => this.onData(chunk));
    const headers: Record<string, string> = {
      host: `127.0.0.1:${port}`,
      upgrade: "websocket",
      connection: "Upgrade",
      "sec-websocket-key": randomBytes(16).toString("base64"),
      "sec-websocket-version": "13",
      ...requestHeaders,
    };
    let text = `${requestLine}\r\n`;
    for (const [name, value] of Object.entries(headers)) if (value !== "") text += `${name}: ${value}\r\n`;
    this.socket.write(text + "\r\n");
  }

  static async open(port: number, headers: Record<string, string> = {}): Promise<RawClient> {
    const client = new RawClient(port, headers);
    await client.handshake;
    assert.equal(client.status, 101, client.body);
    return client;
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    if (this.handshakeDone && this.status !== 101) return; // an error body: read at the end
    if (!this.handshakeDone && !this.parseResponse(false)) return;
    this.parseFrames();
  }

  private parseResponse(atEnd: boolean): boolean {
    const end = this.buffer.indexOf("\r\n\r\n");
    if (end === -1) {
      if (atEnd) this.handshakeResolve();
      return false;
    }
    const lines = this.buffer.subarray(0, end).toString("latin1").split("\r\n");
    this.status = Number(lines[0]!.split(" ")[1]);
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      this.headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    this.handshakeDone = true;
    this.buffer = this.buffer.subarray(end + 4);
    if (this.status !== 101) {
      this.body = this.buffer.toString("utf8");
      if (!atEnd) return false;
    }
    this.handshakeResolve();
    return true;
  }

  private parseFrames(): void {
    for (;;) {
      const b = this.buffer;
      if (b.length < 2) return;
      assert.equal(b[1]! & 0x80, 0, "server frames are never masked");
      let length = b[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        length = b.readUInt32BE(2) * 2 ** 32 + b.readUInt32BE(6);
        offset = 10;
      }
      if (b.length < offset + length) return;
      const frame: Frame = { fin: (b[0]! & 0x80) !== 0, rsv1: (b[0]! & 0x40) !== 0, opcode: b[0]! & 0x0f, payload: Buffer.from(b.subarray(offset, offset + length)) };
      this.buffer = b.subarray(offset + length);
      const waiter = this.frameWaiters.shift();
      if (waiter !== undefined) waiter(frame);
      else this.frames.push(frame);
    }
  }

  /** Frames received and not yet taken. */
  pending(): number {
    return this.frames.length;
  }

  /** The next frame from the server, or null if the connection ends first. */
  nextFrame(): Promise<Frame | null> {
    const frame = this.frames.shift();
    if (frame !== undefined) return Promise.resolve(frame);
    if (this.isEnded) return Promise.resolve(null);
    return new Promise((resolve) => this.frameWaiters.push(resolve));
  }

  send(opcode: number, payload: Buffer | string, options?: FrameOptions): void {
    this.socket.write(buildFrame(opcode, payload, options));
  }

  /** Write bytes one at a time (a separate write per byte). */
  async sendBytewise(bytes: Buffer): Promise<void> {
    for (const byte of bytes) {
      await new Promise<void>((resolve) => this.socket.write(Buffer.from([byte]), () => resolve()));
    }
  }

  /** Expect the server's close frame with this code, then the end of the connection. */
  async expectClose(code: number): Promise<void> {
    let frame = await this.nextFrame();
    while (frame !== null && frame.opcode !== 0x8) frame = await this.nextFrame();
    assert.ok(frame !== null, `expected a close frame with ${code}, the connection ended first`);
    assert.equal(frame.payload.readUInt16BE(0), code, `close code (reason: ${frame.payload.subarray(2).toString()})`);
    await this.ended;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

const TEXT = 0x1;
const BINARY = 0x2;
const CONT = 0x0;
const CLOSE = 0x8;
const PING = 0x9;
const PONG = 0xa;

async function expectMessage(client: RawClient, opcode: number, payload: string | Buffer): Promise<Frame> {
  const frame = await client.nextFrame();
  assert.ok(frame !== null, "connection ended");
  assert.equal(frame.opcode, opcode);
  assert.deepEqual(frame.payload, typeof payload === "string" ? Buffer.from(payload) : payload);
  return frame;
}

// ------------------------------------------------------------------ §5 framing rules

describe("ws framing (RFC 6455 §5)", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ maxPayload: 1000 });
  });
  after(() => server.close());

  it("echoes a masked text and binary frame with unmasked server frames", async () => {
    const client = await RawClient.open(server.port);
    client.send(TEXT, "héllo");
    await expectMessage(client, TEXT, "héllo");
    client.send(BINARY, Buffer.from([0, 1, 2, 255]));
    await expectMessage(client, BINARY, Buffer.from([0, 1, 2, 255]));
    client.destroy();
  });

  it("parses frames written one byte at a time", async () => {
    const client = await RawClient.open(server.port);
    const fragmented = Buffer.concat([
      buildFrame(TEXT, "ab", { fin: false }),
      buildFrame(PING, "p"),
      buildFrame(CONT, "c€d", { lengthForm: 126 }),
    ]);
    await client.sendBytewise(fragmented);
    await expectMessage(client, PONG, "p");
    await expectMessage(client, TEXT, "abc€d");
    client.destroy();
  });

  it("closes with 1002 on an unmasked client frame", async () => {
    const client = await RawClient.open(server.port);
    client.send(TEXT, "hi", { mask: false });
    await client.expectClose(1002);
  });

  it("closes with 1002 on RSV1 when no extension was negotiated", async () => {
    const client = await RawClient.open(server.port);
    client.send(TEXT, "hi", { rsv1: true });
    await client.expectClose(1002);
  });

  it("closes with 1002 on RSV2", async () => {
    const client = await RawClient.open(server.port);
    client.send(BINARY, "hi", { rsv2: true });
    await client.expectClose(1002);
  });

  it("closes with 1002 on an unknown data opcode", async () => {
    const client = await RawClient.open(server.port);
    client.send(0x3, "hi");
    await client.expectClose(1002);
  });

  it("closes with 1002 on an unknown control opcode", async () => {
    const client = await RawClient.open(server.port);
    client.send(0xb, "hi");
    await client.expectClose(1002);
  });

  it("accepts a control frame of exactly 125 bytes and closes with 1002 at 126", async () => {
    const client = await RawClient.open(server.port);
    client.send(PING, Buffer.alloc(125, 7));
    await expectMessage(client, PONG, Buffer.alloc(125, 7));
    client.send(PING, Buffer.alloc(126, 7));
    await client.expectClose(1002);
  });

  it("closes with 1002 on a fragmented control frame", async () => {
    const client = await RawClient.open(server.port);
    client.send(PING, "x", { fin: false });
    await client.expectClose(1002);
  });

  it("allows a control frame between the fragments of a message", async () => {
    const client = await RawClient.open(server.port);
    client.send(BINARY, "one-", { fin: false });
    client.send(PING, "mid");
    client.send(CONT, "two-", { fin: false });
    client.send(CONT, "three");
    await expectMessage(client, PONG, "mid");
    await expectMessage(client, BINARY, "one-two-three");
    client.destroy();
  });

  it("closes with 1002 on a new data frame while a fragmented message is open", async () => {
    const client = await RawClient.open(server.port);
    client.send(TEXT, "part", { fin: false });
    client.send(TEXT, "other");
    await client.expectClose(1002);
  });

  it("closes with 1002 on a continuation frame without a message start", async () => {
    const client = await RawClient.open(server.port);
    client.send(CONT, "orphan");
    await client.expectClose(1002);
  });

  it("closes with 1002 on a 64-bit length with the most significant bit set", async () => {
    const client = await RawClient.open(server.port);
    client.send(BINARY, "abc", { lengthForm: 127, high32: 0x80000000 });
    await client.expectClose(1002);
  });

  it("accepts non-minimal length encodings (16-bit and 64-bit forms for 5 bytes)", async () => {
    const client = await RawClient.open(server.port);
    client.send(TEXT, "short", { lengthForm: 126 });
    await expectMessage(client, TEXT, "short");
    client.send(TEXT, "again", { lengthForm: 127 });
    await expectMessage(client, TEXT, "again");
    client.destroy();
  });

  it("passes a message of exactly maxPayload and closes with 1009 at maxPayload + 1", async () => {
    const client = await RawClient.open(server.port);
    client.send(BINARY, Buffer.alloc(1000, 1));
    await expectMessage(client, BINARY, Buffer.alloc(1000, 1));
    client.send(BINARY, Buffer.alloc(1001, 1));
    await client.expectClose(1009);
  });

  it("counts maxPayload over all fragments of a message", async () => {
    const client = await RawClient.open(server.port);
    client.send(BINARY, Buffer.alloc(600), { fin: false });
    client.send(CONT, Buffer.alloc(400));
    await expectMessage(client, BINARY, Buffer.alloc(1000));
    client.send(BINARY, Buffer.alloc(600), { fin: false });
    client.send(CONT, Buffer.alloc(401));
    await client.expectClose(1009);
  });

  it("closes with 1009 on a frame header announcing more than maxPayload, before the payload is sent", async () => {
    const client = await RawClient.open(server.port);
    const frame = buildFrame(BINARY, Buffer.alloc(5000));
    client.socket.write(frame.subarray(0, 20)); // header + mask + a few bytes
    await client.expectClose(1009);
  });
});

// ------------------------------------------------------------------ UTF-8

describe("ws text validation (UTF-8)", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it("closes with 1007 on invalid UTF-8 in a single-frame text message", async () => {
    const client = await RawClient.open(server.port);
    client.send(TEXT, Buffer.from([0x68, 0xc0, 0xaf])); // overlong '/'
    await client.expectClose(1007);
  });

  it("fails fast: an invalid byte in the first fragment closes before the last fragment is sent", async () => {
    const client = await RawClient.open(server.port);
    client.send(TEXT, Buffer.from([0x61, 0xff, 0x62]), { fin: false });
    // The final fragment is never sent: the close must come from the first one alone.
    await client.expectClose(1007);
  });

  it("fails fast on a sequence split across fragments (a UTF-16 surrogate)", async () => {
    const client = await RawClient.open(server.port);
    client.send(TEXT, Buffer.from([0x61, 0xed]), { fin: false });
    client.send(CONT, Buffer.from([0xa0, 0x80]), { fin: false });
    await client.expectClose(1007);
  });

  it("accepts a valid character split across fragments", async () => {
    const client = await RawClient.open(server.port);
    const text = Buffer.from("a😀b");
    client.send(TEXT, text.subarray(0, 3), { fin: false });
    client.send(CONT, text.subarray(3, 4), { fin: false });
    client.send(CONT, text.subarray(4));
    await expectMessage(client, TEXT, "a😀b");
    client.destroy();
  });

  it("closes with 1007 when a text message ends inside a character", async () => {
    const client = await RawClient.open(server.port);
    client.send(TEXT, Buffer.from([0x61, 0xe2, 0x82]));
    await client.expectClose(1007);
  });

  it("closes with 1007 on code points above U+10FFFF", async () => {
    const client = await RawClient.open(server.port);
    client.send(TEXT, Buffer.from([0xf4, 0x90, 0x80, 0x80]));
    await client.expectClose(1007);
  });
});

// ------------------------------------------------------------------ close frames and handshake

describe("ws close frames and the closing handshake", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ closeTimeoutMs: 200 });
  });
  after(() => server.close());

  // 1012-1014 (Service Restart, Try Again Later, Bad Gateway: IANA-registered after RFC 6455)
  // are accepted, as `ws` and browsers do (docs/features/ws.md).
  for (const code of [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4999]) {
    it(`echoes a close frame with the valid code ${code} and ends the socket`, async () => {
      const client = await RawClient.open(server.port);
      const ws = server.sockets.at(-1)!;
      const closed = new Promise<[number, string]>((resolve) => ws.once("close", (c, r) => resolve([c, r])));
      client.send(CLOSE, closeBody(code, "bye"));
      await client.expectClose(code);
      assert.deepEqual(await closed, [code, "bye"]);
    });
  }

  for (const code of [0, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000, 65535]) {
    it(`closes with 1002 on the invalid close code ${code}`, async () => {
      const client = await RawClient.open(server.port);
      client.send(CLOSE, closeBody(code));
      await client.expectClose(1002);
    });
  }

  it("closes with 1002 on a close payload of one byte", async () => {
    const client = await RawClient.open(server.port);
    client.send(CLOSE, Buffer.from([0x03]));
    await client.expectClose(1002);
  });

  it("closes with 1007 on a close reason that is not UTF-8", async () => {
    const client = await RawClient.open(server.port);
    client.send(CLOSE, closeBody(1000, Buffer.from([0xc3, 0x28])));
    await client.expectClose(1007);
  });

  it("answers an empty close frame with an empty close frame; the listener sees 1005", async () => {
    const client = await RawClient.open(server.port);
    const ws = server.sockets.at(-1)!;
    const closed = new Promise<number>((resolve) => ws.once("close", (c) => resolve(c)));
    client.send(CLOSE, "");
    const frame = await client.nextFrame();
    assert.equal(frame?.opcode, CLOSE);
    assert.equal(frame.payload.length, 0);
    await client.ended;
    assert.equal(await closed, 1005);
  });

  it("ignores frames after the peer's close frame", async () => {
    const client = await RawClient.open(server.port);
    client.socket.write(Buffer.concat([buildFrame(CLOSE, closeBody(1000)), buildFrame(TEXT, "late")]));
    const frame = await client.nextFrame();
    assert.equal(frame?.opcode, CLOSE);
    assert.equal(await client.nextFrame(), null); // no echo of "late"
  });

  it("server-initiated close: close frame, no more data frames, socket ends after the peer's answer", async () => {
    const client = await RawClient.open(server.port);
    const ws = server.sockets.at(-1)!;
    const closed = new Promise<[number, string]>((resolve) => ws.once("close", (c, r) => resolve([c, r])));
    ws.close(4000, "done");
    assert.equal(ws.readyState, ReadyState.CLOSING);
    let sendError: Error | null | undefined;
    assert.equal(ws.send("after close", (err) => (sendError = err)), false);
    const frame = await client.nextFrame();
    assert.equal(frame?.opcode, CLOSE);
    assert.equal(frame.payload.readUInt16BE(0), 4000);
    assert.equal(frame.payload.subarray(2).toString(), "done");
    client.send(CLOSE, closeBody(4000));
    await client.ended;
    assert.deepEqual(await closed, [4000, ""]);
    assert.equal(ws.readyState, ReadyState.CLOSED);
    assert.ok(sendError instanceof Error);
  });

  it("destroys the socket when the peer never answers the close (close timeout), reporting 1006", async () => {
    const client = await RawClient.open(server.port);
    const ws = server.sockets.at(-1)!;
    const closed = new Promise<number>((resolve) => ws.once("close", (c) => resolve(c)));
    ws.close();
    const frame = await client.nextFrame();
    assert.equal(frame?.opcode, CLOSE);
    assert.equal(frame.payload.readUInt16BE(0), 1000);
    assert.equal(await closed, 1006);
    await client.ended;
  });

  it("lets the application close with 1012, 1013 and 1014", async () => {
    for (const code of [1012, 1013, 1014]) {
      const client = await RawClient.open(server.port);
      const ws = server.sockets.at(-1)!;
      ws.close(code, "later");
      const frame = await client.nextFrame();
      assert.equal(frame?.opcode, CLOSE);
      assert.equal(frame.payload.readUInt16BE(0), code);
      client.send(CLOSE, closeBody(code));
      await client.ended;
    }
  });

  it("refuses invalid close codes and over-long reasons from the application", async () => {
    const client = await RawClient.open(server.port);
    const ws = server.sockets.at(-1)!;
    assert.throws(() => ws.close(1005), RangeError);
    assert.throws(() => ws.close(1000, "x".repeat(124)), RangeError);
    ws.close(1000, "x".repeat(123));
    await client.expectClose(1000).catch(() => {});
    client.destroy();
  });
});

// ------------------------------------------------------------------ heartbeat and backpressure

describe("ws heartbeat", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ heartbeat: { intervalMs: 30, timeoutMs: 60 } });
  });
  after(() => server.close());

  it("terminates a peer that does not answer pings; the listener sees 1006", async () => {
    const client = await RawClient.open(server.port);
    const ws = server.sockets.at(-1)!;
    const closed = new Promise<number>((resolve) => ws.once("close", (c) => resolve(c)));
    const ping = await client.nextFrame();
    assert.equal(ping?.opcode, PING);
    assert.equal(await closed, 1006);
    await client.ended;
  });

  /** Read frames until the connection ends; fails when the server keeps pinging (the peer was not cut). */
  async function expectCutAfterPings(client: RawClient, onPing: (ping: Buffer) => void): Promise<number> {
    let pings = 0;
    for (let frame = await client.nextFrame(); frame !== null; frame = await client.nextFrame()) {
      if (frame.opcode !== PING) continue;
      pings++;
      assert.ok(pings < 10, "the heartbeat kept a peer that never answered its pings");
      onPing(frame.payload);
    }
    return pings;
  }

  it("does not count unsolicited pongs: a peer sending blind pongs and never answering pings is cut", async () => {
    const client = await RawClient.open(server.port);
    const ws = server.sockets.at(-1)!;
    const closed = new Promise<number>((resolve) => ws.once("close", (c) => resolve(c)));
    const blind = setInterval(() => client.send(PONG, ""), 5);
    try {
      client.send(PONG, "");
      await expectCutAfterPings(client, () => client.send(PONG, ""));
    } finally {
      clearInterval(blind);
    }
    assert.equal(await closed, 1006);
  });

  it("does not count a pong whose payload differs from the outstanding ping's", async () => {
    const client = await RawClient.open(server.port);
    const ws = server.sockets.at(-1)!;
    const closed = new Promise<number>((resolve) => ws.once("close", (c) => resolve(c)));
    await expectCutAfterPings(client, (ping) => {
      const wrong = Buffer.from(ping);
      if (wrong.length === 0) client.send(PONG, "x");
      else {
        wrong[0] = wrong[0]! ^ 0xff;
        client.send(PONG, wrong);
      }
    });
    assert.equal(await closed, 1006);
  });

  it("keeps a peer that answers pings", async () => {
    const client = await RawClient.open(server.port);
    const ws = server.sockets.at(-1)!;
    for (let i = 0; i < 4; i++) {
      const ping = await client.nextFrame();
      assert.equal(ping?.opcode, PING);
      client.send(PONG, ping.payload);
    }
    assert.equal(ws.readyState, ReadyState.OPEN);
    client.destroy();
  });
});

describe("ws backpressure", () => {
  it("returns false from send() above the high-water mark and emits 'drain' once it falls back", async () => {
    let drained = 0;
    const server = await startServer({ highWaterMark: 64 * 1024 }, (ws) => ws.on("drain", () => drained++));
    try {
      const client = await RawClient.open(server.port);
      const ws = server.sockets.at(-1)!;
      client.socket.pause(); // stop reading: the server's socket buffer fills up
      const chunk = Buffer.alloc(64 * 1024, 1);
      let sent = 0;
      while (ws.send(chunk)) {
        sent++;
        assert.ok(sent < 10_000, "send() never reported backpressure");
      }
      assert.ok(ws.bufferedAmount > 64 * 1024);
      assert.equal(drained, 0);
      const drain = new Promise<void>((resolve) => ws.once("drain", resolve));
      client.socket.resume();
      await drain;
      assert.ok(ws.bufferedAmount <= 64 * 1024);
      assert.equal(drained, 1);
      client.destroy();
    } finally {
      await server.close();
    }
  });
});

describe("ws read backpressure (maxBufferedAmount)", () => {
  it("stops reading while bufferedAmount is above maxBufferedAmount and resumes when the peer reads again", async () => {
    const limit = 256 * 1024;
    const size = 64 * 1024;
    const count = 512; // 32 MiB each way: far more than the kernel's socket buffers hold
    let peak = 0;
    let received = 0;
    const server = await startServer({ maxBufferedAmount: limit, maxPayload: size }, (ws) =>
      ws.on("message", (data) => {
        // Measured before the echo: what the connection had buffered when it read this message.
        peak = Math.max(peak, ws.bufferedAmount);
        received++;
        ws.send(data);
      }),
    );
    try {
      const client = await RawClient.open(server.port);
      const ws = server.sockets.at(-1)!;
      client.socket.pause(); // never reads: the echoes pile up on the server
      const frame = buildFrame(BINARY, Buffer.alloc(size, 7));
      for (let i = 0; i < count; i++) client.socket.write(frame);
      // Until the server stopped reading (or, without backpressure, read everything).
      while (!ws.isPaused && received < count) await new Promise((r) => setTimeout(r, 5));
      assert.ok(peak <= limit, `read a message with ${peak} bytes buffered (limit ${limit})`);
      assert.ok(received < count, "the server read everything from a peer that reads nothing");
      assert.ok(ws.isPaused);
      client.socket.resume();
      for (let i = 0; i < count; i++) assert.equal((await client.nextFrame())?.payload.length, size);
      assert.equal(received, count);
      assert.ok(peak <= limit, `read a message with ${peak} bytes buffered (limit ${limit})`);
      assert.equal(ws.isPaused, false);
      client.destroy();
    } finally {
      await server.close();
    }
  });

  it("reads again after a hold below the socket's own high-water mark, with send callbacks", async () => {
    const limit = 1024;
    const size = 3000; // over the limit, under the socket's 16 KiB: the socket never asks for 'drain'
    const count = 2000;
    let received = 0;
    const server = await startServer({ maxBufferedAmount: limit }, (ws) =>
      ws.on("message", (data) => {
        received++;
        ws.send(data, () => {}); // a callback of its own: no internal flush callback for this write
      }),
    );
    try {
      const client = await RawClient.open(server.port);
      const ws = server.sockets.at(-1)!;
      client.socket.pause();
      const frame = buildFrame(BINARY, Buffer.alloc(size, 1));
      for (let i = 0; i < count; i++) client.socket.write(frame);
      while (!ws.isPaused && received < count) await new Promise((r) => setTimeout(r, 5));
      client.socket.resume();
      for (let i = 0; i < count; i++) assert.equal((await client.nextFrame())?.payload.length, size);
      assert.equal(received, count);
      client.destroy();
    } finally {
      await server.close();
    }
  });

  it("stops reading pings whose pongs a non-reading peer leaves buffered", async () => {
    const limit = 16 * 1024;
    const server = await startServer({ maxBufferedAmount: limit });
    try {
      const client = await RawClient.open(server.port);
      const ws = server.sockets.at(-1)!;
      client.socket.pause();
      const ping = buildFrame(PING, Buffer.alloc(125, 1));
      const burst = Buffer.concat(Array.from({ length: 1024 }, () => ping));
      let written = 0;
      // 16 MiB of pings, 8 MiB at most in the client's own buffer.
      while (written < 128 && !ws.isPaused) {
        if (client.socket.writableLength < 8 * 1024 * 1024) {
          client.socket.write(burst);
          written++;
        }
        await new Promise((r) => setTimeout(r, 1));
      }
      assert.ok(ws.isPaused, "the server kept answering pings nobody reads");
      assert.ok(ws.bufferedAmount <= limit + 127 + 64 * 1024, `bufferedAmount ${ws.bufferedAmount}`);
      client.destroy();
    } finally {
      await server.close();
    }
  });
});

describe("ws rooms under backpressure", () => {
  async function floodRoom(rooms: ReturnType<typeof createRooms>, options: WebSocketOptions) {
    const server = await startServer(options, (ws) => rooms.join("r", ws));
    const reader = await RawClient.open(server.port);
    const slow = await RawClient.open(server.port);
    slow.socket.pause();
    const wsSlow = server.sockets[1]!;
    const message = Buffer.alloc(64 * 1024, 3);
    let peak = 0;
    const count = 320; // 20 MiB: more than the kernel's buffers for the slow member
    for (let i = 0; i < count; i++) {
      rooms.broadcast("r", message);
      peak = Math.max(peak, wsSlow.bufferedAmount);
      assert.equal((await reader.nextFrame())?.payload.length, message.length);
    }
    return { server, reader, slow, wsSlow, peak, count };
  }

  it("drops a broadcast for a member past its maxBufferedAmount and counts the drops", async () => {
    const rooms = createRooms();
    const limit = 256 * 1024;
    const { server, reader, slow, wsSlow, peak, count } = await floodRoom(rooms, { maxBufferedAmount: limit });
    try {
      assert.ok(peak <= limit + 64 * 1024 + 10, `a non-reading member buffered ${peak} bytes`);
      assert.ok(rooms.dropped > 0 && rooms.dropped < count, `dropped ${rooms.dropped}`);
      assert.equal(wsSlow.readyState, ReadyState.OPEN);
      assert.equal(rooms.closed, 0);
      // The member still gets what was not dropped once it reads.
      slow.socket.resume();
      for (let i = 0; i < count - rooms.dropped; i++) assert.equal((await slow.nextFrame())?.payload.length, 64 * 1024);
      reader.destroy();
      slow.destroy();
    } finally {
      await server.close();
    }
  });

  it("closes a member past its limit with 1008 when asked to (onBackpressureLimit: close)", async () => {
    const rooms = createRooms({ onBackpressureLimit: "close" });
    const { server, reader, slow, wsSlow, peak } = await floodRoom(rooms, { maxBufferedAmount: 256 * 1024 });
    try {
      assert.ok(peak <= 256 * 1024 + 64 * 1024 + 10, `a non-reading member buffered ${peak} bytes`);
      assert.equal(rooms.closed, 1);
      assert.notEqual(wsSlow.readyState, ReadyState.OPEN);
      assert.equal(rooms.members("r").size, 2); // until its close completes
      slow.socket.resume();
      let frame = await slow.nextFrame();
      while (frame !== null && frame.opcode !== CLOSE) frame = await slow.nextFrame();
      assert.equal(frame?.payload.readUInt16BE(0), 1008);
      reader.destroy();
      slow.destroy();
    } finally {
      await server.close();
    }
  });
});

// ------------------------------------------------------------------ permessage-deflate

function compress(data: Buffer): Buffer {
  const out = deflateRawSync(data, { finishFlush: 2 /* Z_SYNC_FLUSH */ });
  assert.deepEqual(out.subarray(-4), Buffer.from([0, 0, 0xff, 0xff]));
  return out.subarray(0, -4);
}

function inflate(data: Buffer): Buffer {
  return inflateRawSync(Buffer.concat([data, Buffer.from([0, 0, 0xff, 0xff])]), { finishFlush: 2 });
}

describe("ws permessage-deflate", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ perMessageDeflate: { threshold: 64, serverNoContextTakeover: true }, maxPayload: 4096 });
  });
  after(() => server.close());

  const offer = { "sec-websocket-extensions": "permessage-deflate; client_max_window_bits" };

  it("negotiates the extension and echoes a compressed message compressed (RSV1)", async () => {
    const client = await RawClient.open(server.port, offer);
    assert.equal(client.headers["sec-websocket-extensions"], "permessage-deflate; server_no_context_takeover");
    const text = "compress me ".repeat(50);
    client.send(TEXT, compress(Buffer.from(text)), { rsv1: true });
    const frame = await client.nextFrame();
    assert.equal(frame?.opcode, TEXT);
    assert.equal(frame.rsv1, true);
    assert.equal(inflate(frame.payload).toString(), text);
    // Below the threshold the answer goes out uncompressed.
    client.send(TEXT, compress(Buffer.from("tiny")), { rsv1: true });
    const small = await client.nextFrame();
    assert.equal(small?.rsv1, false);
    assert.equal(small.payload.toString(), "tiny");
    client.destroy();
  });

  it("inflates a compressed message split into fragments", async () => {
    const client = await RawClient.open(server.port, offer);
    const data = compress(Buffer.from("fragmented ".repeat(20)));
    client.send(BINARY, data.subarray(0, 10), { fin: false, rsv1: true });
    client.send(CONT, data.subarray(10));
    const frame = await client.nextFrame();
    assert.equal(frame?.opcode, BINARY);
    assert.equal(inflate(frame.payload).toString(), "fragmented ".repeat(20));
    client.destroy();
  });

  it("accepts an inflated message of exactly maxPayload and closes with 1009 at maxPayload + 1 (zip bomb)", async () => {
    const client = await RawClient.open(server.port, offer);
    client.send(BINARY, compress(Buffer.alloc(4096)), { rsv1: true });
    const frame = await client.nextFrame();
    assert.equal(frame && inflate(frame.payload).length, 4096);
    client.send(BINARY, compress(Buffer.alloc(4097)), { rsv1: true });
    await client.expectClose(1009);
  });

  it("refuses a zip bomb (3 MB of zeros in 3 KB, under the wire limit) with 1009", async () => {
    const client = await RawClient.open(server.port, offer);
    const bomb = compress(Buffer.alloc(3 * 1024 * 1024));
    assert.ok(bomb.length < 4096);
    client.send(BINARY, bomb, { rsv1: true });
    await client.expectClose(1009);
  });

  it("closes with 1007 on corrupt compressed data", async () => {
    const client = await RawClient.open(server.port, offer);
    client.send(BINARY, Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]), { rsv1: true });
    await client.expectClose(1007);
  });

  it("closes with 1002 on RSV1 on a continuation frame", async () => {
    const client = await RawClient.open(server.port, offer);
    client.send(BINARY, compress(Buffer.from("abc")), { fin: false, rsv1: true });
    client.send(CONT, Buffer.alloc(0), { rsv1: true });
    await client.expectClose(1002);
  });

  it("keeps the order of messages across async inflation", async () => {
    const client = await RawClient.open(server.port, offer);
    const frames = [
      buildFrame(TEXT, compress(Buffer.from("first ".repeat(20))), { rsv1: true }),
      buildFrame(TEXT, "second"),
      buildFrame(TEXT, compress(Buffer.from("third ".repeat(20))), { rsv1: true }),
      buildFrame(TEXT, "fourth"),
    ];
    client.socket.write(Buffer.concat(frames));
    const got: string[] = [];
    for (let i = 0; i < 4; i++) {
      const frame = await client.nextFrame();
      assert.ok(frame !== null);
      got.push((frame.rsv1 ? inflate(frame.payload) : frame.payload).toString().split(" ")[0]!);
    }
    assert.deepEqual(got, ["first", "second", "third", "fourth"]);
    client.destroy();
  });

  it("bounds inflation per connection: reading pauses once maxInflateRate is spent", async () => {
    const rate = 1024 * 1024;
    const size = 64 * 1024;
    const bounded = await startServer({ perMessageDeflate: { threshold: 1 << 30 }, maxPayload: size, maxInflateRate: rate });
    try {
      const client = await RawClient.open(bounded.port, offer);
      const bomb = buildFrame(BINARY, compress(Buffer.alloc(size)), { rsv1: true }); // ~90 bytes → 64 KiB
      const count = 400;
      const started = performance.now();
      client.socket.write(Buffer.concat(Array.from({ length: count }, () => bomb)));
      // The first second's budget (16 messages) and one more are inflated at once.
      for (let i = 0; i < 17; i++) assert.equal((await client.nextFrame())?.payload.length, size);
      await new Promise((r) => setTimeout(r, 300));
      let echoed = 17;
      while (client.pending() > 0) {
        await client.nextFrame();
        echoed++;
      }
      const elapsed = (performance.now() - started) / 1000;
      // Inflated bytes ≤ the burst (one second's worth) + rate × elapsed + one message.
      const bound = Math.floor((rate + rate * elapsed) / size) + 1;
      assert.ok(echoed <= bound, `${echoed} messages of 64 KiB inflated in ${elapsed.toFixed(2)} s (bound ${bound})`);
      assert.ok(bounded.sockets.at(-1)!.isPaused);
      client.destroy();
    } finally {
      await bounded.close();
    }
  });

  it("a spent inflation budget does not hold the closing handshake: after close() the peer's close frame is read at once", { timeout: 10_000 }, async () => {
    // 1 KiB/s against 64 KiB messages: the first message leaves the budget 63 s in debt, so
    // without the fix the client's close frame (behind two more messages) is read a minute later.
    const size = 64 * 1024;
    const bounded = await startServer({ perMessageDeflate: { threshold: 1 << 30 }, maxPayload: size, maxInflateRate: 1024, closeTimeoutMs: 3_600_000 });
    try {
      const client = await RawClient.open(bounded.port, offer);
      const server = bounded.sockets.at(-1)!;
      const closed = new Promise<number>((resolve) => server.once("close", (code: number) => resolve(code)));
      const bomb = buildFrame(BINARY, compress(Buffer.alloc(size)), { rsv1: true });
      client.socket.write(Buffer.concat([bomb, bomb, bomb]));
      assert.equal((await client.nextFrame())?.payload.length, size);
      assert.ok(server.isPaused, "reading is held by the spent budget");
      server.close(1001, "going away");
      const frame = await client.nextFrame();
      assert.equal(frame?.opcode, CLOSE);
      client.send(CLOSE, closeBody(1000, "bye"));
      assert.equal(await closed, 1000, "the server read the client's close frame");
      client.destroy();
    } finally {
      await bounded.close();
    }
  });

  for (const [header, expected] of [
    ["permessage-deflate", "permessage-deflate; server_no_context_takeover"],
    ["permessage-deflate; server_max_window_bits=10", "permessage-deflate; server_no_context_takeover; server_max_window_bits=10"],
    ["permessage-deflate; client_max_window_bits=9; client_no_context_takeover", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits=9"],
    ["permessage-deflate; unknown_param, permessage-deflate", "permessage-deflate; server_no_context_takeover"],
    ["permessage-deflate; server_max_window_bits=16", undefined],
    ["permessage-deflate; server_max_window_bits", undefined],
    ["permessage-deflate; client_max_window_bits=7", undefined],
    ["permessage-deflate; server_no_context_takeover=1", undefined],
    ["permessage-deflate; server_no_context_takeover; server_no_context_takeover", undefined],
    ["permessage-deflate; server_max_window_bits=8", undefined],
    ['permessage-deflate; server_max_window_bits="12"', "permessage-deflate; server_no_context_takeover; server_max_window_bits=12"],
    ["x-unknown-extension", undefined],
    ['permessage-deflate; a="unterminated', undefined],
  ] as const) {
    it(`negotiates ${JSON.stringify(header)} → ${JSON.stringify(expected ?? "declined")}`, async () => {
      const client = await RawClient.open(server.port, { "sec-websocket-extensions": header });
      assert.equal(client.headers["sec-websocket-extensions"], expected);
      client.destroy();
    });
  }

  it("uses no compression when the client offers none", async () => {
    const client = await RawClient.open(server.port);
    assert.equal(client.headers["sec-websocket-extensions"], undefined);
    client.send(TEXT, "x".repeat(200));
    const frame = await client.nextFrame();
    assert.equal(frame?.rsv1, false);
    client.destroy();
  });
});

// ------------------------------------------------------------------ opening handshake

describe("ws opening handshake", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ origins: ["https://app.example.com"], protocols: ["v2.chat", "v1.chat"] });
  });
  after(() => server.close());

  async function refused(headers: Record<string, string>, requestLine?: string): Promise<RawClient> {
    const client = new RawClient(server.port, headers, requestLine);
    await client.handshake;
    await client.ended;
    const body = JSON.parse(client.body) as { error: { type: string; message: string }; error_id: string };
    assert.match(body.error_id, /^err_[0-9a-f]{32}$/);
    assert.equal(typeof body.error.message, "string");
    (client as RawClient & { errorType: string }).errorType = body.error.type;
    return client;
  }
  const typeOf = (c: RawClient): string => (c as RawClient & { errorType: string }).errorType;

  it("answers 101 with the RFC 6455 Sec-WebSocket-Accept", async () => {
    const key = "dGhlIHNhbXBsZSBub25jZQ==";
    const client = await RawClient.open(server.port, { "sec-websocket-key": key });
    assert.equal(client.headers["sec-websocket-accept"], "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    assert.equal(client.headers["upgrade"], "websocket");
    client.destroy();
  });

  it("answers 426 with Sec-WebSocket-Version: 13 for another version", async () => {
    const client = await refused({ "sec-websocket-version": "8" });
    assert.equal(client.status, 426);
    assert.equal(client.headers["sec-websocket-version"], "13");
    assert.equal(typeOf(client), "upgrade_required");
  });

  for (const [what, headers] of [
    ["a key that is not 16 bytes", { "sec-websocket-key": Buffer.alloc(15).toString("base64") }],
    ["a key that is not base64", { "sec-websocket-key": "!!!!!!!!!!!!!!!!!!!!!!==" }],
    ["no key", { "sec-websocket-key": "" }],
    ["no Upgrade: websocket", { upgrade: "h2c" }],
    ["an invalid subprotocol list", { "sec-websocket-protocol": "a b, c" }],
  ] as const) {
    it(`answers 400 bad_request for ${what}`, async () => {
      const client = await refused(headers);
      assert.equal(client.status, 400);
      assert.equal(typeOf(client), "bad_request");
    });
  }

  it("checkUpgradeRequest() refuses a Connection header without the upgrade token, without a socket write", () => {
    // node:http itself routes such a request to 'request', so the check is exercised directly.
    const req = new IncomingMessage(new Socket());
    req.method = "GET";
    req.httpVersionMajor = 1;
    req.httpVersionMinor = 1;
    req.headers = {
      host: "a",
      upgrade: "websocket",
      connection: "keep-alive, Upgrade-Insecure",
      "sec-websocket-version": "13",
      "sec-websocket-key": randomBytes(16).toString("base64"),
    };
    const refusal = checkUpgradeRequest(req);
    assert.equal(refusal?.status, 400);
    assert.equal(refusal.type, "bad_request");
    req.headers.connection = "keep-alive, Upgrade";
    const ok = new IncomingMessage(new Socket());
    Object.assign(ok, { method: "GET", httpVersionMajor: 1, httpVersionMinor: 1, headers: req.headers });
    assert.equal(checkUpgradeRequest(ok), null);
  });

  it("answers 400 for HTTP/1.0", async () => {
    const client = await refused({}, "GET /chat HTTP/1.0");
    assert.equal(client.status, 400);
  });

  it("answers 405 with Allow: GET for another method", async () => {
    const client = await refused({}, "POST /chat HTTP/1.1");
    assert.equal(client.status, 405);
    assert.equal(client.headers["allow"], "GET");
    assert.equal(typeOf(client), "method_not_allowed");
  });

  it("accepts a listed origin (serialized form) and refuses another with 403", async () => {
    const ok = await RawClient.open(server.port, { origin: "HTTPS://App.Example.com:443" });
    ok.destroy();
    for (const origin of ["https://evil.example", "null", "http://app.example.com", "https://app.example.com.evil.example"]) {
      const client = await refused({ origin });
      assert.equal(client.status, 403, origin);
      assert.equal(typeOf(client), "forbidden");
    }
  });

  it("selects the server's preferred subprotocol among the offered ones", async () => {
    const client = await RawClient.open(server.port, { "sec-websocket-protocol": "v1.chat, v2.chat" });
    assert.equal(client.headers["sec-websocket-protocol"], "v2.chat");
    assert.equal(server.sockets.at(-1)!.protocol, "v2.chat");
    client.destroy();
    const none = await RawClient.open(server.port, { "sec-websocket-protocol": "other" });
    assert.equal(none.headers["sec-websocket-protocol"], undefined);
    none.destroy();
  });

  it("defaults to same-origin and accepts a chooser function", async () => {
    const s = await startServer({ protocols: (offered) => offered.find((p) => p.startsWith("x-")) });
    try {
      const same = await RawClient.open(s.port, { origin: `http://127.0.0.1:${s.port}`, "sec-websocket-protocol": "a, x-b" });
      assert.equal(same.headers["sec-websocket-protocol"], "x-b");
      same.destroy();
      const other = new RawClient(s.port, { origin: "http://127.0.0.1:1" });
      await other.handshake;
      assert.equal(other.status, 403);
      other.destroy();
    } finally {
      await s.close();
    }
  });
});

// ------------------------------------------------------------------ rooms and registry

describe("ws rooms", () => {
  it("broadcasts to members except the sender, and forgets members that close", async () => {
    const rooms = createRooms();
    const server = await startServer({}, (ws) => {
      rooms.join("lobby", ws);
      ws.on("message", (data) => rooms.broadcast("lobby", data, { except: ws }));
    });
    try {
      const a = await RawClient.open(server.port);
      const b = await RawClient.open(server.port);
      const c = await RawClient.open(server.port);
      assert.equal(rooms.members("lobby").size, 3);
      a.send(TEXT, "from a");
      await expectMessage(b, TEXT, "from a");
      await expectMessage(c, TEXT, "from a");
      const wsC = server.sockets[2]!;
      const gone = new Promise<void>((resolve) => wsC.once("close", () => resolve()));
      c.send(CLOSE, closeBody(1000));
      await gone;
      assert.equal(rooms.members("lobby").size, 2);
      assert.equal(rooms.broadcast("lobby", Buffer.from([1, 2])), 2);
      await expectMessage(a, BINARY, Buffer.from([1, 2]));
      await expectMessage(b, BINARY, Buffer.from([1, 2]));
      rooms.leave("lobby", server.sockets[0]!);
      assert.equal(rooms.broadcast("lobby", "only b"), 1);
      await expectMessage(b, TEXT, "only b");
      a.destroy();
      b.destroy();
    } finally {
      await server.close();
    }
  });
});

describe("ws registry (drain on shutdown)", () => {
  it("closeAll() sends 1001 to every open connection and resolves when all have closed", async () => {
    const registry = new WebSocketRegistry();
    const server = await startServer({ registry });
    try {
      const a = await RawClient.open(server.port);
      const b = await RawClient.open(server.port);
      assert.equal(registry.size, 2);
      const done = registry.closeAll(CloseCode.GoingAway, "shutting down");
      for (const client of [a, b]) {
        const frame = await client.nextFrame();
        assert.equal(frame?.payload.readUInt16BE(0), 1001);
        client.send(CLOSE, closeBody(1001));
      }
      await done;
      assert.equal(registry.size, 0);
    } finally {
      await server.close();
    }
  });

  it("closeAll() terminates connections that do not answer by the deadline", async () => {
    const registry = new WebSocketRegistry();
    const server = await startServer({ registry, closeTimeoutMs: 60_000 });
    try {
      const silent = await RawClient.open(server.port);
      const ws = server.sockets.at(-1)!;
      const code = new Promise<number>((resolve) => ws.once("close", (c) => resolve(c)));
      await registry.closeAll(1001, "", { timeoutMs: 50 });
      assert.equal(await code, 1006);
      assert.equal(registry.size, 0);
      await silent.ended;
    } finally {
      await server.close();
    }
  });
});
