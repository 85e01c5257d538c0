// keel/tls under hostile peers (issue 32 item 6): a TLS handshake must finish within
// headersTimeout (a connection that never sends a ClientHello is closed, rather than held for
// Node's 120 s handshakeTimeout), on https() and http2() alike; and HTTP/2 requests are held to
// the header limit HTTP/1.1 has (maxHeaderSize), advertised as SETTINGS_MAX_HEADER_LIST_SIZE:
// over it, a 431 with the uniform error body when the request reaches the server before the
// client acknowledged the SETTINGS (what a fresh connection's first request does), the stream
// reset by node:http2 (ENHANCE_YOUR_CALM) once it has.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { connect as h2connect, type ClientHttp2Session, type IncomingHttpHeaders } from "node:http2";
import { connect as netConnect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { App, route, silentLogger, type ListeningServer } from "../../lib/index.js";
import { http2, https } from "../../lib/tls/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { ERROR_ID } from "../support/http.js";
import { selfSignedCertificate } from "../support/test-certificate.js";

/** How long a test waits for what should happen after a 300 ms timeout (a bound, not a timing assertion). */
const BOUND_MS = 8000;

let key = "";
let cert = "";
before(() => {
  ({ key, cert } = selfSignedCertificate());
});

function testApp(logger = silentLogger): App {
  return new App({ logger }).routes(
    route.get("/hello", [], () => ({ hello: "world" })),
    route.post("/hello", [], () => ({ hello: "world" })),
  );
}

/** Every raw connection a test opened, destroyed at the end whatever happened. */
const opened: Socket[] = [];

/** Open `n` TCP connections that send nothing; resolves with them once all are connected. */
async function silentConnections(port: number, n: number): Promise<Socket[]> {
  return Promise.all(
    Array.from({ length: n }, () =>
      new Promise<Socket>((resolve, reject) => {
        const s = netConnect(port, "127.0.0.1");
        opened.push(s);
        s.once("connect", () => resolve(s));
        s.once("error", reject);
      }),
    ),
  );
}

/** Resolves when the server closed `socket` (fails after BOUND_MS). */
function closedByServer(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still open after ${BOUND_MS} ms`)), BOUND_MS);
    socket.on("error", () => {});
    socket.resume();
    socket.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const LISTENERS = [
  ["https()", () => https({ key, cert })],
  ["http2()", () => http2({ key, cert })],
] as const;

for (const [name, listener] of LISTENERS) {
  describe(`${name}: the TLS handshake times out with headersTimeout`, () => {
    let server: ListeningServer;
    before(async () => {
      server = await testApp().listen({ port: 0, host: "127.0.0.1", listener: listener(), headersTimeout: 300 });
    });
    after(() => {
      for (const s of opened.splice(0)) s.destroy();
      return server.close();
    });

    it("closes connections that never send a ClientHello", async () => {
      const sockets = await silentConnections(server.port, 20);
      await Promise.all(sockets.map(closedByServer));
    });

    it("closes a connection that stops in the middle of its ClientHello", async () => {
      const [socket] = await silentConnections(server.port, 1);
      // A TLS record header announcing a 512-byte handshake message, and then nothing.
      socket!.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]));
      await closedByServer(socket!);
    });
  });
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A fresh session and one request on it, sent at once (before the server's SETTINGS are acknowledged). */
function firstRequest(url: string, headers: Record<string, string>): Promise<Answer & { rstCode: number | undefined }> {
  return new Promise((resolve, reject) => {
    const session = h2connect(url, { ca: cert });
    session.on("error", () => {});
    const stream = session.request({ ":method": "GET", ":path": "/hello", ...headers });
    let head: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on("response", (h) => (head = h));
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("error", () => {});
    stream.on("close", () => {
      session.close();
      resolve({ status: Number(head[":status"] ?? 0), headers: head, body: Buffer.concat(chunks).toString("utf8"), rstCode: stream.rstCode });
    });
    stream.end();
    setTimeout(() => reject(new Error("no answer")), BOUND_MS).unref();
  });
}

/** One request on an established session (its SETTINGS exchanged). */
function laterRequest(session: ClientHttp2Session, headers: Record<string, string>): Promise<Answer & { rstCode: number | undefined }> {
  return new Promise((resolve) => {
    const stream = session.request({ ":method": "GET", ":path": "/hello", ...headers });
    let head: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on("response", (h) => (head = h));
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("error", () => {});
    stream.on("close", () => resolve({ status: Number(head[":status"] ?? 0), headers: head, body: Buffer.concat(chunks).toString("utf8"), rstCode: stream.rstCode }));
    stream.end();
  });
}

function curl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("curl", ["-sS", "-k", ...args], (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}

function assertUniform431(a: Answer): void {
  assert.equal(a.status, 431, a.body);
  assert.equal(a.headers["content-type"], "application/json");
  const body = JSON.parse(a.body) as { error: { type: string }; error_id: string };
  assert.equal(body.error.type, "request_header_fields_too_large");
  assert.match(body.error_id, ERROR_ID);
}

describe("http2(): HTTP/2 requests are held to HTTP/1.1's header limit", () => {
  const logger = captureLogger();
  let server: ListeningServer;
  let handled = 0;
  before(async () => {
    const app = testApp(logger).layer(async (ctx, next) => {
      handled++;
      return next(ctx);
    });
    server = await app.listen({ port: 0, host: "127.0.0.1", listener: http2({ key, cert }) });
  });
  after(() => server.close());

  it("answers a 20 KB or 65 KB header block with the uniform 431, as HTTP/1.1 does, without running the app", async () => {
    const before = handled;
    for (const size of [20_000, 65_000]) assertUniform431(await firstRequest(server.url, { "x-pad": "x".repeat(size) }));
    // Past node:http2's own 64 KiB the stream is refused before any JavaScript runs.
    const huge = await firstRequest(server.url, { "x-pad": "x".repeat(70_000) });
    assert.equal(huge.status, 0);
    assert.equal(huge.rstCode, 7); // REFUSED_STREAM
    assert.equal(handled, before);
    assert.ok(logger.records.some((l) => l.msg === "client error" && l.fields["status"] === 431), "the 431 is logged as a client error");
  });

  it("serves a header list up to the limit (RFC 9113 size: name + value + 32 per field, pseudo-headers included)", async () => {
    // :method GET (7+3+32) :path /hello (5+6+32) :scheme https (7+5+32) :authority 127.0.0.1:port + x-pad
    const authority = `127.0.0.1:${server.port}`;
    const fixed = 42 + 43 + 44 + (10 + authority.length + 32) + (5 + 32);
    const fits = await firstRequest(server.url, { "x-pad": "x".repeat(16_384 - fixed) });
    assert.equal(fits.status, 200, fits.body);
    const over = await firstRequest(server.url, { "x-pad": "x".repeat(16_384 - fixed + 1) });
    assert.equal(over.status, 431);
  });

  it("advertises the same limit in SETTINGS; a client that ignores it on an established session gets its stream reset (ENHANCE_YOUR_CALM)", async () => {
    const session = await new Promise<ClientHttp2Session>((resolve, reject) => {
      const s = h2connect(server.url, { ca: cert });
      s.once("remoteSettings", () => resolve(s));
      s.once("error", reject);
    });
    try {
      assert.equal(session.remoteSettings.maxHeaderListSize, 16_384);
      // A round trip, so the server has our acknowledgement of its SETTINGS.
      assert.equal((await laterRequest(session, {})).status, 200);
      // node:http2 enforces the SETTINGS itself from here on, before any handler: no 431 can be sent.
      const over = await laterRequest(session, { "x-pad": "x".repeat(20_000) });
      assert.equal(over.status, 0);
      assert.equal(over.rstCode, 11); // ENHANCE_YOUR_CALM
    } finally {
      session.close();
    }
  });

  it("follows a custom maxHeaderSize, advertised and enforced", async () => {
    const small = await testApp().listen({ port: 0, host: "127.0.0.1", listener: http2({ key, cert }), maxHeaderSize: 4096 });
    try {
      assert.equal((await firstRequest(small.url, { "x-pad": "x".repeat(3000) })).status, 200);
      assertUniform431(await firstRequest(small.url, { "x-pad": "x".repeat(5000) }));
    } finally {
      await small.close();
    }
  });

  it("answers 431 to curl over HTTP/2 and over the HTTP/1.1 fallback alike", async () => {
    const pad = `x-pad: ${"x".repeat(20_000)}`;
    assert.equal(await curl(["--http2", "-o", "/dev/null", "-w", "%{http_code} %{http_version}", "-H", pad, server.url + "/hello"]), "431 2");
    assert.equal(await curl(["--http1.1", "-o", "/dev/null", "-w", "%{http_code} %{http_version}", "-H", pad, server.url + "/hello"]), "431 1.1");
  });
});
