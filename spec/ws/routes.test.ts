// route.ws through the app: the upgrade request runs the route's layers and extractors (auth,
// request id, query) before the handshake, a refusal at any step is the uniform HTTP error on
// the socket, an accepted one reaches the handler with the open connection and the extracted
// values, and the drain closes open connections with 1001. Clients: the `ws` npm package
// (installed on demand) and hand-written handshakes over net.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { ApiError, App, query, route, silentLogger, t, type ListeningServer, type Layer } from "../../lib/index.js";
import { requestId } from "../../lib/middleware/index.js";
import { websockets } from "../../lib/ws/index.js";
import { ERROR_ID, send } from "../support/http.js";
import { testPeer } from "../support/test-peers.js";

const WS_VERSION = "8.18.3";
const peerDir = await testPeer("ws", WS_VERSION);
const skip = peerDir === null ? `ws@${WS_VERSION} could not be installed into .tmp/test-peers (offline?)` : false;

interface WsClient {
  on(event: "open", listener: () => void): void;
  on(event: "upgrade", listener: (res: { headers: Record<string, string> }) => void): void;
  on(event: "unexpected-response", listener: (req: unknown, res: NodeJS.ReadableStream & { statusCode: number; headers: Record<string, string> }) => void): void;
  on(event: "message", listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: "close", listener: (code: number, reason: Buffer) => void): void;
  on(event: "error", listener: (error: Error) => void): void;
  send(data: string | Buffer): void;
  close(code?: number, reason?: string): void;
  readonly protocol: string;
}
type WsClientClass = new (url: string, protocols?: string[], options?: Record<string, unknown>) => WsClient;

const bearerOnly: Layer = (ctx, next) => (ctx.header("authorization") === "Bearer good" ? next(ctx) : Promise.reject(ApiError.unauthorized("Missing or invalid token")));

function keyOf(): string {
  return Buffer.from("0123456789abcdef").toString("base64");
}

/** A hand-written upgrade request; resolves with the raw answer up to the end of its head (and body, on a refusal). */
function rawUpgrade(port: number, path: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, "127.0.0.1");
    let text = "";
    sock.on("data", (d: Buffer) => {
      text += d.toString("latin1");
      if (text.startsWith("HTTP/1.1 101") && text.includes("\r\n\r\n")) {
        sock.destroy();
        resolve(text);
      }
    });
    sock.on("end", () => resolve(text));
    sock.on("error", reject);
    const lines = { host: "127.0.0.1", upgrade: "websocket", connection: "Upgrade", "sec-websocket-version": "13", "sec-websocket-key": keyOf(), ...headers };
    sock.write(`GET ${path} HTTP/1.1\r\n${Object.entries(lines).map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\n\r\n`);
  });
}

describe("route.ws", { skip }, () => {
  let Client: WsClientClass;
  let server: ListeningServer;
  let port = 0;
  const closes: number[] = [];
  before(async () => {
    Client = ((await import(pathToFileURL(join(peerDir!, "index.js")).href)) as { default: WsClientClass }).default;
    const app = new App({ logger: silentLogger })
      .layer(requestId())
      .register(websockets({ maxPayload: 1024 }))
      .routes(
        route.ws("/echo", [query(t.object({ prefix: t.optional(t.string({ length: { max: 10 } })) }))], (ws, q) => {
          ws.on("message", (data, isBinary) => ws.send(isBinary ? (data as Buffer) : `${q.prefix ?? ""}${String(data)}`));
          ws.on("close", (code) => closes.push(code));
        }),
        route.ws("/private", { layers: [bearerOnly], websocket: { protocols: ["chat.v2", "chat.v1"] } }, [], (ws) => void ws.send(`protocol=${ws.protocol}`)),
        route.ws("/boom", [], () => {
          throw new Error("handler bug");
        }),
      );
    server = await app.listen({ port: 0 });
    port = server.port;
  });
  after(() => server.close());

  const url = (path: string) => `ws://127.0.0.1:${port}${path}`;
  const open = (path: string, options: Record<string, unknown> = {}, protocols?: string[]) =>
    new Promise<WsClient>((resolve, reject) => {
      const c = new Client(url(path), protocols, options);
      c.on("open", () => resolve(c));
      c.on("error", reject);
    });
  const next = (c: WsClient) => new Promise<string>((resolve) => c.on("message", (d) => resolve(String(d))));

  it("runs extractors before the upgrade and hands their values to the handler", async () => {
    const c = await open("/echo?prefix=%3E%20");
    const got = next(c);
    c.send("hello");
    assert.equal(await got, "> hello");
    c.close(1000);
  });

  it("sends the layers' headers with the 101 (the request id)", async () => {
    const head = await rawUpgrade(port, "/echo", { "x-request-id": "req-abc-123" });
    assert.match(head, /^HTTP\/1\.1 101 /);
    assert.match(head, /\r\nx-request-id: req-abc-123\r\n/i);
    assert.match(head, /\r\nsec-websocket-accept: /i);
  });

  it("a refused extractor is the uniform 422 on the socket, not an upgrade", async () => {
    const raw = await rawUpgrade(port, "/echo?prefix=waytoolongprefix");
    assert.match(raw, /^HTTP\/1\.1 422 /);
    const body = JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)) as { error: { type: string }; error_id: string };
    assert.equal(body.error.type, "validation_error");
    assert.match(body.error_id, ERROR_ID);
  });

  it("an auth layer refuses the upgrade with 401; with the token and a subprotocol it is accepted", async () => {
    const raw = await rawUpgrade(port, "/private");
    assert.match(raw, /^HTTP\/1\.1 401 /);
    assert.equal((JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)) as { error: { type: string } }).error.type, "unauthorized");
    // The handler sends at once: listen for the message before the open event.
    const c = new Client(url("/private"), ["chat.v1", "chat.v2"], { headers: { authorization: "Bearer good" } });
    const first = next(c);
    await new Promise<void>((resolve, reject) => (c.on("open", resolve), c.on("error", reject)));
    assert.equal(c.protocol, "chat.v2");
    assert.equal(await first, "protocol=chat.v2");
    c.close();
  });

  it("a bad handshake is the uniform 400/426; an unknown path is the uniform 404", async () => {
    const badKey = await rawUpgrade(port, "/echo", { "sec-websocket-key": "short" });
    assert.match(badKey, /^HTTP\/1\.1 400 /);
    const badVersion = await rawUpgrade(port, "/echo", { "sec-websocket-version": "8" });
    assert.match(badVersion, /^HTTP\/1\.1 426 /);
    assert.match(badVersion, /sec-websocket-version: 13/i);
    const missing = await rawUpgrade(port, "/nowhere");
    assert.match(missing, /^HTTP\/1\.1 404 /);
    assert.equal((JSON.parse(missing.slice(missing.indexOf("\r\n\r\n") + 4)) as { error: { type: string } }).error.type, "not_found");
  });

  it("a plain GET on a WebSocket route is told to upgrade (426); other routes still serve", async () => {
    const r = await send(`http://127.0.0.1:${port}/echo`);
    assert.equal(r.status, 426);
    assert.equal(r.headers["upgrade"], "websocket");
    assert.equal((JSON.parse(r.body) as { error: { type: string } }).error.type, "upgrade_required");
  });

  it("the route's message limit applies (1009 past maxPayload)", async () => {
    const c = await open("/echo");
    const closed = new Promise<number>((resolve) => c.on("close", (code) => resolve(code)));
    c.send("x".repeat(1025));
    assert.equal(await closed, 1009);
  });

  it("a handler that throws closes the connection with 1011", async () => {
    const c = await open("/boom");
    const code = await new Promise<number>((resolve) => c.on("close", (x) => resolve(x)));
    assert.equal(code, 1011);
  });

  it("the drain closes open connections with 1001 (going away), and close() does not wait for the deadline", async () => {
    const app = new App({ logger: silentLogger }).register(websockets()).routes(route.ws("/hold", [], () => undefined));
    const s = await app.listen({ port: 0, shutdownTimeout: 60_000 });
    const c = await new Promise<WsClient>((resolve, reject) => {
      const x = new Client(`ws://127.0.0.1:${s.port}/hold`);
      x.on("open", () => resolve(x));
      x.on("error", reject);
    });
    const code = new Promise<number>((resolve) => c.on("close", (x) => resolve(x)));
    const closing = s.close();
    assert.equal(await code, 1001);
    await closing;
  });
});

describe("route.ws without the protocol", () => {
  it("listen() fails, naming the route and the plugin to register", async () => {
    const app = new App({ logger: silentLogger }).routes(route.ws("/chat", [], () => undefined));
    await assert.rejects(app.listen({ port: 0 }), /\/chat is a WebSocket route: register the protocol with app.register\(websockets\(\)\)/);
  });

  it("is left out of the OpenAPI document by default, and may not read a body", () => {
    const def = route.ws("/chat", [], () => undefined);
    assert.equal(def.meta.hidden, true);
    assert.equal(def.method, "GET");
  });
});
