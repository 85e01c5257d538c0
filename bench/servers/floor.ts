// The floor of node:http: the least a server can do and still answer scenario 1 (GET /hello)
// correctly. No routing, no method or path check, the body and its length computed once at
// startup, one writeHead + end. Not a usable server: it answers every request with /hello's
// body. It exists to show what node:http itself costs per request (bench/instructions.mjs), so a
// framework's figure can be read against what no framework on node:http can go below.
//   node floor.mjs
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { announceReady, exitOnSignal } from "./common.js";
import { HELLO_BODY } from "./route-table.js";

const body = JSON.stringify(HELLO_BODY);
const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(body) };

exitOnSignal();
const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(0, "127.0.0.1", () => announceReady((server.address() as AddressInfo).port));
