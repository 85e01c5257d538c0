// Interop with the `ws` npm client (installed on demand by spec/support/test-peers.ts; the
// tests skip with the reason when it cannot be installed): echo of text, binary, fragmented
// and permessage-deflate compressed messages, and the closing handshake.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { acceptWebSocket, checkUpgradeRequest, writeRefusal, type WebSocket, type WebSocketOptions } from "../../lib/ws/index.js";
import { testPeer } from "../support/test-peers.js";

const WS_VERSION = "8.18.3";
const peerDir = await testPeer("ws", WS_VERSION);
const skip = peerDir === null ? `ws@${WS_VERSION} could not be installed into .tmp/test-peers (offline?)` : false;

interface WsClient {
  on(event: "open", listener: () => void): void;
  on(event: "message", listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: "close", listener: (code: number, reason: Buffer) => void): void;
  on(event: "error", listener: (error: Error) => void): void;
  send(data: string | Buffer, options?: { fin?: boolean; binary?: boolean; compress?: boolean }): void;
  close(code?: number, reason?: string): void;
  readonly extensions: string;
  readonly protocol: string;
}
type WsClientClass = new (url: string, protocols?: string[], options?: Record<string, unknown>) => WsClient;

async function loadClient(): Promise<WsClientClass> {
  const mod = (await import(pathToFileURL(join(peerDir!, "index.js")).href)) as { default: WsClientClass };
  return mod.default;
}

async function startServer(options: WebSocketOptions, onConnection: (ws: WebSocket) => void): Promise<{ url: string; server: Server }> {
  const server = createServer();
  server.on("upgrade", (req: IncomingMessage, socket, head: Buffer) => {
    const refusal = checkUpgradeRequest(req, options);
    if (refusal !== null) return writeRefusal(socket, refusal);
    onConnection(acceptWebSocket(req, socket, head, options));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  return { url: `ws://127.0.0.1:${address.port}/`, server };
}

function open(Client: WsClientClass, url: string, options: Record<string, unknown> = {}, protocols?: string[]): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    const client = new Client(url, protocols, options);
    client.on("open", () => resolve(client));
    client.on("error", reject);
  });
}

function nextMessage(client: WsClient): Promise<[Buffer, boolean]> {
  return new Promise((resolve) => client.on("message", (data, isBinary) => resolve([data, isBinary])));
}

describe("interop with the ws client", { skip }, () => {
  let Client: WsClientClass;
  let url: string;
  let server: Server;
  let onServerClose: ((close: [number, string]) => void) | undefined;
  before(async () => {
    Client = await loadClient();
    ({ url, server } = await startServer({ perMessageDeflate: { threshold: 16 }, protocols: ["echo"] }, (ws) => {
      ws.on("message", (data) => ws.send(data));
      ws.on("close", (code, reason) => onServerClose?.([code, reason]));
    }));
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("echoes text and binary without compression", async () => {
    const client = await open(Client, url, { perMessageDeflate: false }, ["echo"]);
    assert.equal(client.protocol, "echo");
    assert.equal(client.extensions, "");
    let reply = nextMessage(client);
    client.send("hello ✓");
    assert.deepEqual(await reply, [Buffer.from("hello ✓"), false]);
    reply = nextMessage(client);
    client.send(Buffer.from([0, 255, 1]));
    assert.deepEqual(await reply, [Buffer.from([0, 255, 1]), true]);
    client.close();
  });

  it("echoes a fragmented message", async () => {
    const client = await open(Client, url, { perMessageDeflate: false });
    const reply = nextMessage(client);
    client.send("frag-", { fin: false });
    client.send("ment-", { fin: false });
    client.send("ed", { fin: true });
    assert.deepEqual(await reply, [Buffer.from("frag-ment-ed"), false]);
    client.close();
  });

  it("echoes compressed messages with permessage-deflate (context takeover, several messages)", async () => {
    const client = await open(Client, url, { perMessageDeflate: { threshold: 0 } });
    assert.match(client.extensions, /permessage-deflate/);
    for (let i = 0; i < 5; i++) {
      const text = `message ${i} `.repeat(100);
      const reply = nextMessage(client);
      client.send(text);
      assert.deepEqual(await reply, [Buffer.from(text), false]);
    }
    const big = Buffer.alloc(200_000, 7);
    const reply = nextMessage(client);
    client.send(big);
    assert.deepEqual(await reply, [big, true]);
    client.close();
  });

  it("completes the closing handshake with the client's code and reason", async () => {
    const client = await open(Client, url);
    const closed = new Promise<[number, string]>((resolve) => client.on("close", (code, reason) => resolve([code, reason.toString()])));
    // Earlier tests' connections may still be finishing their own closes: wait for this one.
    const serverClosed = new Promise<[number, string]>((resolve) => (onServerClose = (close) => close[0] === 4001 && resolve(close)));
    client.close(4001, "bye");
    assert.deepEqual(await closed, [4001, ""]); // the server echoes the code
    assert.deepEqual(await serverClosed, [4001, "bye"]);
  });

  it("a server-initiated close reaches the client", async () => {
    let serverSide: WebSocket | undefined;
    const s = await startServer({}, (ws) => (serverSide = ws));
    try {
      const client = await open(Client, s.url);
      const closed = new Promise<[number, string]>((resolve) => client.on("close", (code, reason) => resolve([code, reason.toString()])));
      serverSide!.close(1001, "going away");
      assert.deepEqual(await closed, [1001, "going away"]);
    } finally {
      await new Promise<void>((resolve) => s.server.close(() => resolve()));
    }
  });
});
