// The `ws` package's echo server for bench/ws-echo.mjs, written as its users write one: a
// WebSocketServer on a node:http server, every message on /echo sent back with its kind kept,
// permessage-deflate off. JavaScript, because ws lives in the git-ignored bench/.peers; bundled
// into bench/.peers/build/ws-peer.mjs with ws left external (resolved from bench/.peers/node_modules).
import { createServer } from "node:http";
import { WebSocketServer } from "ws";
import { announceReady, exitOnSignal } from "./common.ts";

/** The same limit as the keel server (bench/servers/ws-keel.ts). */
const MAX_PAYLOAD = 16 * 1024 * 1024;

exitOnSignal();
const server = createServer((req, res) => {
  res.writeHead(426, { "content-type": "text/plain", connection: "close" });
  res.end("WebSocket only\n");
});
const wss = new WebSocketServer({ server, path: "/echo", perMessageDeflate: false, maxPayload: MAX_PAYLOAD });
wss.on("connection", (ws) => {
  // ws hands text over as a Buffer too; `binary` keeps the frame's kind on the way back.
  ws.on("message", (data, isBinary) => ws.send(data, { binary: isBinary }));
});
server.listen(0, "127.0.0.1", () => announceReady(server.address().port));
