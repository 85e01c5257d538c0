// The sample's WebSocket routes with real clients: the `ws` npm package (installed on demand)
// and headless Chromium's own WebSocket. Echo of text and binary; chat rooms that need a JWT in
// the Authorization header or, from a browser, as the `bearer.<token>` subprotocol.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { html, reply, route, type ListeningServer } from "../../lib/index.js";
import { signJwt } from "../../lib/jose/index.js";
import { MetricsRegistry } from "../../lib/metrics/index.js";
import { createSampleApp, DEV_JWT_SECRET, MAX_WS_MESSAGE, roomsMetrics } from "../../lib/sample/index.js";
import { withBrowser } from "../support/cdp.js";
import { findChromium } from "../support/chromium.js";
import { captureLogger } from "../support/capture-logger.js";
import { testPeer } from "../support/test-peers.js";

const WS_VERSION = "8.18.3";
const peerDir = await testPeer("ws", WS_VERSION);
const chromium = findChromium();

interface WsClient {
  on(event: "open", listener: () => void): void;
  on(event: "unexpected-response", listener: (req: unknown, res: { statusCode: number }) => void): void;
  on(event: "message", listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: "close", listener: (code: number) => void): void;
  on(event: "error", listener: (error: Error) => void): void;
  send(data: string | Buffer): void;
  close(code?: number): void;
  readonly protocol: string;
}
type WsClientClass = new (url: string, protocols?: string[], options?: Record<string, unknown>) => WsClient;

const token = (sub: string) => signJwt({ role: "user" }, { algorithm: "HS256", key: DEV_JWT_SECRET, subject: sub, expiresIn: 300 });

describe("sample WebSocket routes", () => {
  let server: ListeningServer;
  let base = "";
  let Client: WsClientClass;
  before(async () => {
    const app = createSampleApp({ logger: captureLogger(100), env: "development" });
    // A page for the browser test: same origin, script as a file (the sample's CSP forbids inline scripts).
    app.routes(
      route.get("/test/ws.html", [], () => html(`<!doctype html><html><head><meta charset="utf-8"><title>ws</title></head><body><script src="/test/ws.js"></script></body></html>`)),
      route.get("/test/ws.js", [], () => reply.text(browserScript(token("carol"))).header("content-type", "text/javascript; charset=utf-8")),
    );
    server = await app.listen({ port: 0 });
    base = server.url.replace("http://", "ws://");
    if (peerDir !== null) Client = ((await import(pathToFileURL(join(peerDir, "index.js")).href)) as { default: WsClientClass }).default;
  });
  after(() => server.close());

  const open = (path: string, protocols?: string[], options: Record<string, unknown> = {}) =>
    new Promise<WsClient>((resolve, reject) => {
      const c = new Client(base + path, protocols, options);
      c.on("open", () => resolve(c));
      c.on("error", reject);
      c.on("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  const next = (c: WsClient) => new Promise<[string, boolean]>((resolve) => c.on("message", (d, bin) => resolve([bin ? d.toString("hex") : d.toString("utf8"), bin])));
  const skip = peerDir === null ? `ws@${WS_VERSION} could not be installed` : false;

  it("/api/v1/ws/echo echoes text and binary", { skip }, async () => {
    const c = await open("/api/v1/ws/echo");
    let got = next(c);
    c.send("héllo");
    assert.deepEqual(await got, ["héllo", false]);
    got = next(c);
    c.send(Buffer.from([1, 2, 255]));
    assert.deepEqual(await got, ["0102ff", true]);
    const closed = new Promise<number>((resolve) => c.on("close", resolve));
    c.send("x".repeat(MAX_WS_MESSAGE + 1));
    assert.equal(await closed, 1009);
  });

  it("/api/v1/ws/chat needs a JWT: 401 without, 422 for a bad room", { skip }, async () => {
    await assert.rejects(open("/api/v1/ws/chat?room=lobby"), /HTTP 401/);
    await assert.rejects(open("/api/v1/ws/chat?room=bad%20room", ["chat"], { headers: { authorization: `Bearer ${token("a")}` } }), /HTTP 422/);
    await assert.rejects(open("/api/v1/ws/chat?room=lobby", ["chat", "bearer.not-a-jwt"]), /HTTP 401/);
  });

  it("/api/v1/ws/chat broadcasts to the room only (token in the header or the subprotocol)", { skip }, async () => {
    const alice = await open("/api/v1/ws/chat?room=lobby", ["chat"], { headers: { authorization: `Bearer ${token("alice")}` } });
    const bob = await open("/api/v1/ws/chat?room=lobby", ["chat", `bearer.${token("bob")}`]);
    const other = await open("/api/v1/ws/chat?room=elsewhere", ["chat", `bearer.${token("eve")}`]);
    assert.equal(bob.protocol, "chat", "the server selects chat, never the token");
    const toOtherRoom: string[] = [];
    other.on("message", (d) => void toOtherRoom.push(d.toString("utf8")));
    const toAlice = next(alice);
    const toBob = next(bob);
    alice.send("hi all");
    const want = JSON.stringify({ from: "alice", text: "hi all" });
    assert.deepEqual(await toAlice, [want, false]);
    assert.deepEqual(await toBob, [want, false]);
    // A later message to the other room arrives there, so the first one would have too.
    const toOther = next(other);
    other.send("ping");
    assert.deepEqual(await toOther, [JSON.stringify({ from: "eve", text: "ping" }), false]);
    // Messages on one connection arrive in order: had alice's been broadcast to the other room,
    // it would be here before eve's own.
    assert.deepEqual(toOtherRoom, [JSON.stringify({ from: "eve", text: "ping" })]);
    for (const c of [alice, bob, other]) c.close(1000);
  });

  it("counts broadcasts dropped for (or members closed past) their buffer limit in /metrics", async () => {
    const body = await fetch(server.url + "/metrics").then((r) => r.text());
    assert.match(body, /^keel_ws_broadcast_dropped_total 0$/m);
    assert.match(body, /^keel_ws_broadcast_closed_total 0$/m);
    const registry = new MetricsRegistry();
    const rooms = { dropped: 3, closed: 0 };
    registry.addCollector(roomsMetrics(rooms));
    rooms.closed = 1;
    const text = await registry.expose();
    assert.match(text, /^keel_ws_broadcast_dropped_total 3$/m);
    assert.match(text, /^keel_ws_broadcast_closed_total 1$/m);
  });

  it("Chromium's WebSocket: echo, and chat with the token as a subprotocol", { skip: chromium === undefined ? "chromium not installed" : false, timeout: 90_000 }, async () => {
    await withBrowser(chromium!, async (browser) => {
      const page = await browser.newPage();
      await page.navigate(server.url + "/test/ws.html");
      const result = await page.waitFor<string>(`document.body && document.body.getAttribute("data-result")`, 20_000, "the page's WebSocket calls");
      assert.deepEqual(JSON.parse(result), {
        echoText: "héllo",
        echoBinary: [1, 2, 255],
        chatProtocol: "chat",
        chat: { from: "carol", text: "from the browser" },
        refused: 1006,
      });
    });
  });
});

/** The page's script: echo over Chromium's WebSocket, then chat with the token as a subprotocol. */
function browserScript(jwt: string): string {
  const js = `
const base = location.origin.replace("http", "ws");
function opened(url, protocols) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols);
    ws.binaryType = "arraybuffer";
    ws.onopen = () => resolve(ws);
    ws.onerror = () => reject(new Error("error"));
  });
}
function nextMessage(ws) { return new Promise((resolve) => (ws.onmessage = (e) => resolve(e.data))); }
(async () => {
  const out = {};
  const echo = await opened(base + "/api/v1/ws/echo");
  let m = nextMessage(echo); echo.send("héllo"); out.echoText = await m;
  m = nextMessage(echo); echo.send(new Uint8Array([1, 2, 255])); out.echoBinary = Array.from(new Uint8Array(await m));
  echo.close();
  const chat = await opened(base + "/api/v1/ws/chat?room=browser", ["chat", "bearer." + ${JSON.stringify(jwt)}]);
  out.chatProtocol = chat.protocol;
  m = nextMessage(chat); chat.send("from the browser"); out.chat = JSON.parse(await m);
  chat.close();
  out.refused = await new Promise((resolve) => { const ws = new WebSocket(base + "/api/v1/ws/chat?room=browser", ["chat"]); ws.onclose = (e) => resolve(e.code); });
  document.body.setAttribute("data-result", JSON.stringify(out));
})().catch((e) => document.body.setAttribute("data-result", JSON.stringify({ failed: String(e) })));
`;
  return js;
}

describe("sample shutdown with open realtime connections", () => {
  it("the drain closes WebSockets with 1001 and ends event streams, without waiting for the deadline", { skip: peerDir === null ? `ws@${WS_VERSION} could not be installed` : false }, async () => {
    const Client = ((await import(pathToFileURL(join(peerDir!, "index.js")).href)) as { default: WsClientClass }).default;
    const server = await createSampleApp({ logger: captureLogger(100), env: "development" }).listen({ port: 0, shutdownTimeout: 60_000 });
    const ws = await new Promise<WsClient>((resolve, reject) => {
      const c = new Client(server.url.replace("http://", "ws://") + "/api/v1/ws/echo");
      c.on("open", () => resolve(c));
      c.on("error", reject);
    });
    const wsClosed = new Promise<number>((resolve) => ws.on("close", resolve));
    const { request } = await import("node:http");
    const sseEnded = new Promise<string>((resolve, reject) => {
      const req = request(server.url + "/api/v1/events", (res) => {
        res.resume();
        res.on("end", () => resolve("end"));
        res.on("aborted", () => reject(new Error("the event stream was cut off")));
      });
      req.on("error", reject);
      req.end();
    });
    await new Promise((r) => setTimeout(r, 100));
    const closing = server.close();
    assert.equal(await wsClosed, 1001);
    assert.equal(await sseEnded, "end");
    await closing;
  });
});
