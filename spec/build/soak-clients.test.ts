// bench/soak's hand-written clients are proved against deliberately wrong servers: each check a
// soak relies on (echo bytes, a close it did not start, an upload's SHA-256, consecutive SSE ticks,
// a gRPC status) turns a wrong answer into an unexpected outcome, and a right answer into none.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import { acceptWebSocket } from "../../lib/ws/index.js";
import { root } from "./build-support.js";

interface Tally {
  counts: Record<string, number>;
  unexpected: number;
  samples: string[];
}
type Driver = (options: Record<string, unknown>) => Promise<unknown>;

const soak = (file: string) => import(pathToFileURL(join(root, "bench/soak", file)).href) as Promise<Record<string, unknown>>;
const address = () => "127.0.0.1";

async function tally(): Promise<Tally> {
  const { Tally: T } = (await soak("tally.mjs")) as { Tally: new (kind: string) => Tally };
  return new T("test");
}

/** Run `driver` against a server for `ms`, then stop it and wait for its clients to finish. */
async function drive(driver: Driver, options: Record<string, unknown>, ms = 1200): Promise<void> {
  const stop = new AbortController();
  const done = driver({ ...options, signal: stop.signal });
  await new Promise((r) => setTimeout(r, ms));
  stop.abort();
  await done;
}

async function listen(server: Server | Http2Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as AddressInfo).port;
}

const close = (server: Server | Http2Server) => new Promise((r) => server.close(r));

describe("soak clients", () => {
  for (const [fault, why] of [["none", null], ["last-byte", /wrong echo/], ["close", /closed by the server: 1001/]] as const) {
    it(`WebSocket echo readers, server fault: ${fault}`, async () => {
      const server = createServer();
      server.on("upgrade", (req: IncomingMessage, socket, head) => {
        const ws = acceptWebSocket(req, socket, head);
        ws.on("message", (data, isBinary) => {
          const bytes = Buffer.from(data as Buffer);
          if (fault === "close") return ws.close(1001, "going");
          if (fault === "last-byte") bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0x01;
          void ws.send(isBinary ? bytes : bytes.toString());
        });
      });
      const port = await listen(server);
      const t = await tally();
      const { startWsEcho } = (await soak("ws-echo.mjs")) as { startWsEcho: Driver };
      await drive(startWsEcho, { port, readers: 1, hostile: 0, recycleMs: 1000, hostileKiBps: 0, tally: t, hostileTally: await tally(), address });
      await close(server);
      if (why === null) {
        assert.equal(t.unexpected, 0, t.samples.join("; "));
        assert.ok((t.counts["binary_echoes"] ?? 0) + (t.counts["text_echoes"] ?? 0) >= 4, JSON.stringify(t.counts));
      } else assert.match(t.samples.join("; "), why);
    });
  }

  for (const fault of ["none", "sha256"] as const) {
    it(`uploads, server fault: ${fault}`, async () => {
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          // The file part: after its headers, up to the closing boundary.
          const body = Buffer.concat(chunks);
          const boundary = /boundary=(.+)$/.exec(req.headers["content-type"] ?? "")![1]!;
          const start = body.indexOf("\r\n\r\n", body.indexOf("filename=")) + 4;
          const file = body.subarray(start, body.lastIndexOf(`\r\n--${boundary}--`));
          const title = /name="title"\r\n\r\n([^\r]*)/.exec(body.toString("latin1"))![1];
          const name = /filename="([^"]*)"/.exec(body.toString("latin1"))![1];
          const sha256 = createHash("sha256").update(fault === "sha256" ? file.subarray(1) : file).digest("hex");
          res.writeHead(201, { "content-type": "application/json" });
          res.end(JSON.stringify({ title, name, size: file.length, content_type: "application/octet-stream", sha256 }));
        });
      });
      const port = await listen(server);
      const t = await tally();
      const { runUploads } = (await soak("uploads.mjs")) as { runUploads: Driver };
      await drive(runUploads, { port, rate: 5, tally: t, address });
      await close(server);
      assert.ok((t.counts["status_201"] ?? 0) >= 3, JSON.stringify(t.counts));
      if (fault === "none") assert.equal(t.unexpected, 0, t.samples.join("; "));
      else assert.match(t.samples.join("; "), /sha256 [0-9a-f]{64} for [0-9a-f]{64}/);
    });
  }

  for (const [fault, why] of [["none", null], ["gap", /tick 4 after 2/], ["early end", /ended after 2 of 20 ticks/]] as const) {
    it(`SSE readers, server fault: ${fault}`, async () => {
      const server = createServer((req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        const from = Number(req.headers["last-event-id"] ?? 0);
        const ns = fault === "gap" ? [1, 2, 4] : fault === "early end" ? [1, 2] : Array.from({ length: 20 }, (_, i) => from + i + 1);
        res.write(": hello\n\n");
        for (const n of ns) res.write(`event: tick\nid: ${n}\ndata: {"n":${n},"at":"x"}\n\n`);
        res.end(`event: job\ndata: {"id":"j1","type":"report","state":"done","attempt":1}\n\n`);
      });
      const port = await listen(server);
      const t = await tally();
      const { startSse } = (await soak("sse.mjs")) as { startSse: Driver };
      await drive(startSse, { port, readers: 1, hostile: 0, recycleMs: 1000, tally: t, hostileTally: await tally(), address }, 300);
      await close(server);
      if (why === null) {
        assert.equal(t.unexpected, 0, t.samples.join("; "));
        assert.ok((t.counts["streams_complete"] ?? 0) >= 2, JSON.stringify(t.counts));
      } else assert.match(t.samples.join("; "), why);
    });
  }

  it("gRPC calls: a status the request did not ask for is unexpected", async () => {
    const server = createHttp2Server();
    server.on("stream", (stream) => {
      stream.on("data", () => undefined);
      stream.on("end", () => stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": "13", "grpc-message": "boom" }, { endStream: true }));
    });
    const port = await listen(server);
    const t = await tally();
    const { startGrpc } = (await soak("grpc.mjs")) as { startGrpc: Driver };
    await drive(startGrpc, { url: `http://127.0.0.1:${port}`, rate: 10, hostile: 0, recycleMs: 1000, tally: t, hostileTally: await tally() }, 500);
    await close(server);
    assert.match(t.samples.join("; "), /GetUser \d+: HTTP 200 grpc-status 13 \(boom\), expected [035]/);
    assert.match(t.samples.join("; "), /ListUsers: HTTP 200 grpc-status 13 \(boom\)/);
  });
});
