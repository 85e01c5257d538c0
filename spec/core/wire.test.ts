// Behaviour that only shows on a real socket: body limits on bytes read, streaming with
// backpressure, invalid headers, HEAD on the wire.
import assert from "node:assert/strict";
import { request } from "node:http";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { App, bytes, json, reply, route, silentLogger, type ListeningServer } from "../../lib/index.js";
import { rawExchange, send } from "../support/http.js";

describe("body limits over a socket", () => {
  let server: ListeningServer;
  let bytesSeen = 0;
  before(async () => {
    const app = new App({ logger: silentLogger, bodyLimit: 1024 }).routes(
      route.post("/b", [bytes()], (b) => {
        bytesSeen = b.length;
        return { n: b.length };
      }),
      route.post("/big", { bodyLimit: 4096 }, [bytes()], (b) => ({ n: b.length })),
      route.post("/j", [json()], (v) => v),
    );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("accepts a body at the limit", async () => {
    const r = await send(server.url + "/b", { method: "POST", body: Buffer.alloc(1024, 1) });
    assert.equal(r.status, 200);
    assert.equal(bytesSeen, 1024);
  });

  it("refuses a declared Content-Length over the limit with 413 before reading it", async () => {
    // Only the headers are sent: the answer must come without the body ever arriving.
    const out = await rawExchange(server.port, "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n", 1500);
    assert.match(out, /^HTTP\/1\.1 413 /);
    assert.match(out, /"type":"payload_too_large"/);
    assert.match(out, /"error_id":"err_[0-9a-f]{32}"/);
    assert.match(out, /connection: close/i);
  });

  it("counts chunked bytes actually read and stops at the limit", async () => {
    const head = "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
    const chunk = (n: number) => n.toString(16) + "\r\n" + "a".repeat(n) + "\r\n";
    // 3 chunks of 600 bytes: over the 1024 limit; no terminating chunk, so a server that waited
    // for the whole body would never answer.
    const out = await rawExchange(server.port, head + chunk(600) + chunk(600) + chunk(600), 1500);
    assert.match(out, /^HTTP\/1\.1 413 /);
  });

  it("a lying Content-Length cannot smuggle more bytes past the limit", async () => {
    const r = await send(server.url + "/b", { method: "POST", body: Buffer.alloc(2000, 1) });
    assert.equal(r.status, 413);
  });

  it("per-route limits override the app limit", async () => {
    assert.equal((await send(server.url + "/big", { method: "POST", body: Buffer.alloc(3000, 1) })).status, 200);
    assert.equal((await send(server.url + "/big", { method: "POST", body: Buffer.alloc(5000, 1) })).status, 413);
  });

  it("the server keeps serving after limit errors", async () => {
    const r = await send(server.url + "/j", { method: "POST", headers: { "content-type": "application/json" }, body: '{"ok":true}' });
    assert.deepEqual(JSON.parse(r.body), { ok: true });
  });
});

describe("streams and headers on the wire", () => {
  let server: ListeningServer;
  let produced = 0;
  before(async () => {
    const app = new App({ logger: silentLogger }).routes(
      route.get("/stream", [], () => {
        produced = 0;
        const src = new Readable({
          read() {
            produced++;
            this.push(produced > 2000 ? null : Buffer.alloc(16 * 1024, 97));
          },
        });
        return reply.stream(src, "text/plain");
      }),
      route.get("/iter", [], () => {
        async function* g() {
          for (let i = 0; i < 3; i++) yield `line ${i}\n`;
        }
        return reply.stream(g(), "text/plain");
      }),
      route.get("/badheader", [], () => reply(200, "x", { "x-bad": "a\r\nset-cookie: evil=1" })),
      route.get("/hello", [], () => ({ hello: "world" })),
    );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("a slow reader applies backpressure to a Readable body", async () => {
    await new Promise<void>((resolve, reject) => {
      const req = request(server.url + "/stream", { agent: false }, (res) => {
        res.pause();
        setTimeout(() => {
          // 2000 chunks x 16 KiB = 32 MiB; with backpressure only what fits in the socket and
          // stream buffers (a few MiB on loopback) is produced.
          assert.ok(produced < 1000, `produced ${produced} chunks while the client read nothing`);
          let total = 0;
          res.on("data", (c: Buffer) => (total += c.length));
          res.on("end", () => {
            assert.equal(total, 2000 * 16 * 1024);
            resolve();
          });
          res.resume();
        }, 300);
      });
      req.on("error", reject);
      req.end();
    });
  });

  it("async iterables are streamed chunked", async () => {
    const r = await send(server.url + "/iter");
    assert.equal(r.body, "line 0\nline 1\nline 2\n");
    assert.equal(r.headers["transfer-encoding"], "chunked");
  });

  it("a header value with CR/LF never reaches the wire; the client gets a 500", async () => {
    const r = await send(server.url + "/badheader");
    assert.equal(r.status, 500);
    assert.equal(r.headers["set-cookie"], undefined);
  });

  it("HEAD sends the GET headers without a body", async () => {
    const out = await rawExchange(server.port, "HEAD /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert.match(out, /^HTTP\/1\.1 200 /);
    assert.match(out, /content-length: 17/i);
    assert.ok(out.endsWith("\r\n\r\n"), "no body after the headers");
  });
});

describe("a client that goes away mid-body", () => {
  it("fails the body read with the uniform 400 (logged), never runs the handler, and the server keeps serving", async () => {
    const { captureLogger } = await import("../support/capture-logger.js");
    const { connect } = await import("node:net");
    const logger = captureLogger(0);
    let handled = 0;
    const app = new App({ logger }).route(
      route.post("/upload", [bytes()], (b) => {
        handled++;
        return { size: b.length };
      }),
    );
    const server = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      await new Promise<void>((resolve, reject) => {
        const socket = connect(server.port, "127.0.0.1", () => {
          socket.write("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000\r\n\r\nonly-part-of-it");
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 100);
        });
        socket.on("error", reject);
      });
      const deadline = Date.now() + 2000;
      while (!JSON.stringify(logger.records).includes("cut off by the client") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.match(JSON.stringify(logger.records), /Request body was cut off by the client/);
      assert.equal(handled, 0);
      const ok = await send(`${server.url}/upload`, { method: "POST", headers: { "content-type": "application/octet-stream" }, body: "whole" });
      assert.equal(ok.status, 200);
      assert.equal(handled, 1);
    } finally {
      await server.close();
    }
  });
});
