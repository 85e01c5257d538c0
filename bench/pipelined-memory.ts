// Memory held by clients that pipeline requests and never read the answers: 20 connections each
// write 32 000 tiny GET requests and pause. Prints heap and RSS growth per connection for raw
// node:http and for keel (which cuts a socket past maxPipelinedRequests waiting requests).
// Run: node --expose-gc --import tsx bench/pipelined-memory.ts
import { createServer, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { App, route, silentLogger } from "../lib/index.js";

const CONNECTIONS = 20;
const REQUESTS_PER_CONNECTION = 32_000;

async function start(which: "raw" | "keel"): Promise<{ server: Server; port: number }> {
  if (which === "raw") {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"hello":"world"}');
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return { server, port: (server.address() as { port: number }).port };
  }
  const listening = await new App({ logger: silentLogger }).route(route.get("/hello", [], () => ({ hello: "world" }))).listen({ port: 0 });
  return { server: listening.server, port: listening.port };
}

async function measure(which: "raw" | "keel"): Promise<void> {
  const { server, port } = await start(which);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  const sockets: Socket[] = [];
  const payload = Buffer.from("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n".repeat(REQUESTS_PER_CONNECTION / 16));
  for (let i = 0; i < CONNECTIONS; i++) {
    const s = connect(port, "127.0.0.1");
    s.on("error", () => {});
    s.pause(); // never read an answer
    for (let k = 0; k < 16; k++) s.write(payload);
    sockets.push(s);
  }
  await new Promise((r) => setTimeout(r, 3_000));
  gc?.();
  const after = process.memoryUsage();
  const mib = (n: number): string => (n / CONNECTIONS / 1048576).toFixed(2);
  console.log(`${which.padEnd(4)} per connection: heapUsed +${mib(after.heapUsed - before.heapUsed)} MiB, rss +${mib(after.rss - before.rss)} MiB`);
  for (const s of sockets) s.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

// Each server in its own process, so one's garbage does not count against the other.
const which = process.argv[2];
if (which === "raw" || which === "keel") await measure(which);
else {
  const { spawnSync } = await import("node:child_process");
  for (const w of ["raw", "keel"]) spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, w], { stdio: "inherit" });
}
