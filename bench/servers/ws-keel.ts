// keel/ws echo server for bench/ws-echo.mjs: every text and binary message on /echo goes back as
// it came (text as text, binary as binary), permessage-deflate off. Bundled into
// bench/.peers/build/ws-keel.mjs; announces its port like the HTTP bench servers.
import { App, route, silentLogger } from "../../lib/index.js";
import { websockets } from "../../lib/ws/index.js";
import { announceReady, exitOnSignal } from "./common.js";

/** Above the largest message the benchmark sends (64 KiB by default, --sizes can ask for more). */
const MAX_PAYLOAD = 16 * 1024 * 1024;

async function main(): Promise<void> {
  exitOnSignal();
  const app = new App({ logger: silentLogger })
    .register(websockets({ maxPayload: MAX_PAYLOAD, perMessageDeflate: false }))
    .routes(
      route.ws("/echo", [], (ws) => {
        // Text arrives as a string and binary as a Buffer; send() keeps the kind.
        ws.on("message", (data) => void ws.send(data));
      }),
    );
  const server = await app.listen({ port: 0, host: "127.0.0.1" });
  announceReady(server.port);
}

void main();
