// HTTPS and HTTP/2 (with HTTP/1.1 fallback over ALPN) through keel/tls's listeners,
// listen({ listener: https(tls) }) and listen({ listener: http2(tls) }), over real sockets with a
// self-signed certificate made for the run.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { request as httpsRequest } from "node:https";
import { connect as h2connect, constants as h2, type ClientHttp2Session, type IncomingHttpHeaders } from "node:http2";
import { connect as netConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { after, before, describe, it } from "node:test";
import { App, context, json, bytes, reply, route, silentLogger, stream, type ListeningServer } from "../../lib/index.js";
import { securityHeaders } from "../../lib/middleware/index.js";
import { http2, https } from "../../lib/tls/index.js";
import { websockets } from "../../lib/ws/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { ERROR_ID, send } from "../support/http.js";
import { selfSignedCertificate } from "../support/test-certificate.js";

/** Process warnings during the run: Node warns (and drops the header) when an HTTP/1 connection header reaches an HTTP/2 response. */
const warnings: string[] = [];
const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);

let key = "";
let cert = "";

before(() => {
  process.on("warning", onWarning);
  ({ key, cert } = selfSignedCertificate());
});

after(() => {
  process.off("warning", onWarning);
});

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function json200(a: Answer): unknown {
  return JSON.parse(a.body);
}

/** An HTTP/1.1 request over TLS, trusting the test certificate; `alpn` is what the handshake chose. */
function httpsSend(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; alpn?: string[] } = {},
): Promise<Answer & { version: string; alpn: string | false | null }> {
  return new Promise((resolve, reject) => {
    const tlsOptions = options.alpn === undefined ? {} : { ALPNProtocols: options.alpn };
    const req = httpsRequest(url, { method: options.method ?? "GET", headers: options.headers, ca: cert, agent: false, ...tlsOptions }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const socket = res.socket as import("node:tls").TLSSocket;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8"), version: res.httpVersion, alpn: socket.alpnProtocol });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

function h2Session(url: string): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = h2connect(url, { ca: cert });
    session.once("connect", () => resolve(session));
    session.once("error", reject);
  });
}

/** One HTTP/2 request on `session`; the body (if any) is sent as given, with no content-length unless in `headers`. */
function h2Send(session: ClientHttp2Session, headers: Record<string, string | number>, body?: string | Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ":method": "GET", ...headers }, { endStream: body === undefined });
    let head: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on("response", (h) => (head = h));
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      if (head[":status"] === undefined) reject(new Error(`stream closed without a response (code ${stream.rstCode})`));
      else resolve({ status: Number(head[":status"]), headers: head, body: Buffer.concat(chunks).toString("utf8") });
    });
    stream.on("close", () => {
      if (head[":status"] === undefined) reject(new Error(`stream closed without a response (code ${stream.rstCode})`));
    });
    stream.on("error", reject);
    if (body !== undefined) stream.end(body);
  });
}

function curl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("curl", ["-sS", "-k", ...args], (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = netConnect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

/** Routes shared by every server in this file. */
function testApp(logger = silentLogger): App {
  return new App({ logger }).routes(
    route.get("/hello", [], () => ({ hello: "world" })),
    route.post("/echo", [json()], (body) => reply.created({ got: body })),
    route.post("/small", { bodyLimit: 8 }, [bytes()], (b) => ({ n: b.length })),
    route.get("/whoami", [context()], (ctx) => ({ secure: ctx.secure, version: ctx.req.httpVersion })),
    route.get("/cookies", [], () => reply.noContent().setCookie("a", "1").setCookie("b", "2")),
    route.get("/bad-header", [], () => reply.text("x").header("x-bad", "a\r\nb")),
    route.get("/stream", [], () => stream((async function* () {
      for (const part of ["one,", "two,", "three"]) {
        await new Promise((r) => setImmediate(r));
        yield part;
      }
    })(), "text/plain")),
  );
}

describe("keel/tls listeners", () => {
  it("check their TLS options when made: key and cert, or pfx (so h2c, HTTP/2 without TLS, cannot be asked for)", () => {
    assert.throws(() => https({ cert }), (err: Error) => err instanceof TypeError && /key and cert/.test(err.message));
    assert.throws(() => https({ key }), TypeError);
    assert.throws(() => http2({ cert }), (err: Error) => err instanceof TypeError && /key and cert/.test(err.message));
    assert.throws(() => http2(undefined as never), TypeError);
  });

  it("refuse listen({ tls }) and listen({ http2 }) without a listener, naming the replacement, instead of serving cleartext", async () => {
    const app = testApp();
    const refused = (option: string, replacement: string) => (err: Error) =>
      err instanceof TypeError && err.message.includes(`listen option ${option} moved out of the kernel`) && err.message.includes(replacement) && err.message.includes('"keel/tls"');
    const listenWith = (options: object) => app.listen({ port: 0, ...options });
    await assert.rejects(listenWith({ tls: { key, cert } }), refused("tls", "listener: https({ key, cert })"));
    await assert.rejects(listenWith({ tls: { key, cert }, http2: true }), refused("http2", "listener: http2({ key, cert })"));
    await assert.rejects(listenWith({ http2: true }), refused("http2", "listener: http2({ key, cert })"));
    // Even beside a listener: the old option would otherwise be silently ignored.
    await assert.rejects(listenWith({ tls: { key, cert }, listener: https({ key, cert }) }), refused("tls", "https"));
  });

  describe("HTTPS", () => {
    let server: ListeningServer;
    before(async () => {
      server = await testApp().listen({ port: 0, listener: https({ key, cert }) });
    });
    after(() => server.close());

    it("serves GET and POST JSON over TLS at an https:// url", async () => {
      assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const get = await httpsSend(server.url + "/hello");
      assert.equal(get.status, 200);
      assert.equal(get.headers["content-type"], "application/json");
      assert.deepEqual(json200(get), { hello: "world" });
      const post = await httpsSend(server.url + "/echo", { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":[1,2]}' });
      assert.equal(post.status, 201);
      assert.deepEqual(json200(post), { got: { a: [1, 2] } });
    });

    it("tells the handler the request arrived over TLS", async () => {
      const r = await httpsSend(server.url + "/whoami");
      assert.deepEqual(json200(r), { secure: true, version: "1.1" });
    });

    it("answers a 404 with the uniform error body", async () => {
      const r = await httpsSend(server.url + "/nope");
      assert.equal(r.status, 404);
      const body = json200(r) as { error: { type: string }; error_id: string };
      assert.equal(body.error.type, "not_found");
      assert.match(body.error_id, ERROR_ID);
    });

    it("speaks HTTP/1.1 to curl", async () => {
      const out = await curl(["--http1.1", "-w", "\n%{http_version}", server.url + "/hello"]);
      assert.equal(out, '{"hello":"world"}\n1.1');
    });
  });

  describe("HTTP/2 with HTTP/1.1 fallback", () => {
    let server: ListeningServer;
    let session: ClientHttp2Session;
    before(async () => {
      server = await testApp().listen({ port: 0, listener: http2({ key, cert }) });
      session = await h2Session(server.url);
    });
    after(async () => {
      session.close();
      await server.close();
    });

    it("serves GET with :status, headers and body", async () => {
      assert.match(server.url, /^https:\/\//);
      const r = await h2Send(session, { ":path": "/hello" });
      assert.equal(r.status, 200);
      assert.equal(r.headers["content-type"], "application/json");
      assert.equal(r.headers["content-length"], String(Buffer.byteLength(r.body)));
      assert.deepEqual(json200(r), { hello: "world" });
    });

    it("reads a POST body, with or without content-length (HTTP/2 frames the body itself)", async () => {
      const body = '{"n":42}';
      const withLength = await h2Send(session, { ":method": "POST", ":path": "/echo", "content-type": "application/json", "content-length": Buffer.byteLength(body) }, body);
      assert.equal(withLength.status, 201);
      assert.deepEqual(json200(withLength), { got: { n: 42 } });
      const without = await h2Send(session, { ":method": "POST", ":path": "/echo", "content-type": "application/json" }, body);
      assert.equal(without.status, 201);
      assert.deepEqual(json200(without), { got: { n: 42 } });
    });

    it("holds the body limit at the boundary; the 413 carries no connection header", async () => {
      const ok = await h2Send(session, { ":method": "POST", ":path": "/small" }, "12345678");
      assert.equal(ok.status, 200);
      assert.deepEqual(json200(ok), { n: 8 });
      const over = await h2Send(session, { ":method": "POST", ":path": "/small", "content-length": 9 }, "123456789");
      assert.equal(over.status, 413);
      assert.equal((json200(over) as { error: { type: string } }).error.type, "payload_too_large");
      assert.equal(over.headers["connection"], undefined);
      const streamed = await h2Send(session, { ":method": "POST", ":path": "/small" }, "123456789");
      assert.equal(streamed.status, 413);
      // The session survives both refusals.
      assert.equal((await h2Send(session, { ":path": "/hello" })).status, 200);
    });

    it("answers a 404 with the uniform error body", async () => {
      const r = await h2Send(session, { ":path": "/missing" });
      assert.equal(r.status, 404);
      const body = json200(r) as { error: { type: string; message: string }; error_id: string };
      assert.equal(body.error.type, "not_found");
      assert.match(body.error_id, ERROR_ID);
    });

    it("streams a reply", async () => {
      const r = await h2Send(session, { ":path": "/stream" });
      assert.equal(r.status, 200);
      assert.equal(r.headers["content-type"], "text/plain");
      assert.equal(r.headers["content-length"], undefined);
      assert.equal(r.body, "one,two,three");
    });

    it("sends repeated headers (set-cookie) as separate fields", async () => {
      const r = await h2Send(session, { ":path": "/cookies" });
      assert.equal(r.status, 204);
      assert.deepEqual(r.headers["set-cookie"], ["a=1; Path=/; SameSite=Lax", "b=2; Path=/; SameSite=Lax"]);
    });

    it("refuses a header value with CR/LF with the uniform 500, as over HTTP/1", async () => {
      const r = await h2Send(session, { ":path": "/bad-header" });
      assert.equal(r.status, 500);
      assert.equal(r.headers["x-bad"], undefined);
      assert.equal((json200(r) as { error: { type: string } }).error.type, "internal_error");
      const h1 = await httpsSend(server.url + "/bad-header");
      assert.equal(h1.status, 500);
    });

    it("tells the handler the request arrived over TLS, as HTTP/2", async () => {
      const r = await h2Send(session, { ":path": "/whoami" });
      assert.deepEqual(json200(r), { secure: true, version: "2.0" });
    });

    it("falls back to HTTP/1.1 for a client that offers only that over ALPN, or no ALPN at all", async () => {
      const r = await httpsSend(server.url + "/hello", { alpn: ["http/1.1"] });
      assert.equal(r.alpn, "http/1.1");
      assert.equal(r.version, "1.1");
      assert.equal(r.status, 200);
      assert.deepEqual(json200(r), { hello: "world" });
      const who = await httpsSend(server.url + "/whoami");
      assert.equal(who.alpn, false);
      assert.deepEqual(json200(who), { secure: true, version: "1.1" });
    });

    it("still refuses an HTTP/1 request line that claims HTTP/2.0 on the fallback", async () => {
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = tlsConnect({ host: "127.0.0.1", port: server.port, ca: cert, servername: "localhost", ALPNProtocols: ["http/1.1"] }, () => {
          socket.end("GET /hello HTTP/2.0\r\nHost: localhost\r\n\r\n");
        });
        const chunks: Buffer[] = [];
        socket.on("data", (c: Buffer) => chunks.push(c));
        socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
        socket.on("error", reject);
      });
      assert.match(raw, /^HTTP\/1\.1 400 /);
      assert.match(raw, /"type":"bad_request"/);
    });

    it("applies the connection limits: node:http's to HTTP/1.1 clients, SETTINGS to HTTP/2 sessions", async () => {
      const fits = await httpsSend(server.url + "/hello", { headers: { "x-pad": "x".repeat(1024) } });
      assert.equal(fits.status, 200);
      const tooBig = await httpsSend(server.url + "/hello", { headers: { "x-pad": "x".repeat(17 * 1024) } });
      assert.equal(tooBig.status, 431);
      const body = json200(tooBig) as { error: { type: string }; error_id: string };
      assert.equal(body.error.type, "request_header_fields_too_large");
      assert.match(body.error_id, ERROR_ID);
      assert.equal(session.remoteSettings.maxHeaderListSize, 16_384);
      assert.equal(session.remoteSettings.maxConcurrentStreams, 100);
    });

    it("speaks HTTP/2 and HTTP/1.1 to curl", async () => {
      assert.equal(await curl(["--http2", "-w", "\n%{http_version}", server.url + "/hello"]), '{"hello":"world"}\n2');
      assert.equal(await curl(["--http1.1", "-w", "\n%{http_version}", server.url + "/hello"]), '{"hello":"world"}\n1.1');
      const posted = await curl(["--http2", "-H", "content-type: application/json", "--data", '{"x":1}', server.url + "/echo"]);
      assert.deepEqual(JSON.parse(posted), { got: { x: 1 } });
    });
  });

  describe("WebSocket upgrades over https()", () => {
    it("hands an Upgrade request to the app's WebSocket route and switches protocols on the TLS socket", async () => {
      const app = new App({ logger: silentLogger }).register(websockets()).routes(route.ws("/ws", [], (ws) => void ws.send("hi")));
      const server = await app.listen({ port: 0, listener: https({ key, cert }) });
      try {
        const head = await new Promise<string>((resolve, reject) => {
          const socket = tlsConnect({ port: server.port, host: "127.0.0.1", ca: cert, servername: "localhost" }, () => {
            socket.write("GET /ws HTTP/1.1\r\nhost: localhost\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n");
          });
          let text = "";
          socket.on("data", (d: Buffer) => {
            text += d.toString("latin1");
            if (text.includes("\r\n\r\n")) {
              socket.destroy();
              resolve(text);
            }
          });
          socket.on("error", reject);
        });
        assert.match(head, /^HTTP\/1\.1 101 /);
        assert.match(head, /sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=/i);
      } finally {
        await server.close();
      }
    });
  });

  describe("HSTS from securityHeaders()", () => {
    const build = () => testApp().layer(securityHeaders());

    it("is sent over HTTPS and over HTTP/2", async () => {
      const secure = await build().listen({ port: 0, listener: https({ key, cert }) });
      const h2server = await build().listen({ port: 0, listener: http2({ key, cert }) });
      try {
        const r = await httpsSend(secure.url + "/hello");
        assert.equal(r.headers["strict-transport-security"], "max-age=15552000; includeSubDomains");
        const s = await h2Session(h2server.url);
        const r2 = await h2Send(s, { ":path": "/hello" });
        s.close();
        assert.equal(r2.headers["strict-transport-security"], "max-age=15552000; includeSubDomains");
      } finally {
        await secure.close();
        await h2server.close();
      }
    });

    it("is not sent over plain HTTP (RFC 6797 §7.2), while the other headers are", async () => {
      const plain = await build().listen({ port: 0 });
      try {
        const r = await send(plain.url + "/hello");
        assert.equal(r.status, 200);
        assert.equal(r.headers["strict-transport-security"], undefined);
        assert.equal(r.headers["x-content-type-options"], "nosniff");
        const who = await send(plain.url + "/whoami");
        assert.deepEqual(JSON.parse(who.body), { secure: false, version: "1.1" });
      } finally {
        await plain.close();
      }
    });
  });

  describe("graceful shutdown over HTTP/2", () => {
    it("lets an in-flight request finish, sends GOAWAY, refuses new connections, then resolves", async () => {
      const release = deferred();
      const started = deferred();
      const app = testApp().route(route.get("/slow", [], async () => {
        started.resolve();
        await release.promise;
        return { done: true };
      }));
      const server = await app.listen({ port: 0, listener: http2({ key, cert }) });
      const session = await h2Session(server.url);
      let goaway = false;
      session.on("goaway", () => (goaway = true));
      const inflight = h2Send(session, { ":path": "/slow" });
      await started.promise;

      const closing = server.close();
      let closed = false;
      void server.closed.then(() => (closed = true));
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(app.runtime.draining, true);
      assert.equal(goaway, true, "the session was told to go away");
      assert.equal(await canConnect(server.port), false, "new connections are refused while draining");
      assert.equal(closed, false, "not closed while a request is in flight");

      release.resolve();
      const r = await inflight;
      assert.equal(r.status, 200);
      assert.deepEqual(json200(r), { done: true });
      assert.equal(r.headers["connection"], undefined, "no HTTP/1 connection header on an HTTP/2 response");
      await closing;
      await server.closed;
      assert.equal(closed, true);
    });

    it("answers HTTP/1.1 fallback clients with connection: close while draining", async () => {
      const app = testApp();
      const server = await app.listen({ port: 0, listener: http2({ key, cert }), preStopDelay: 200 });
      const closing = server.close();
      const r = await httpsSend(server.url + "/hello");
      assert.equal(r.status, 200);
      assert.equal(r.headers["connection"], "close");
      // A session opened during the pre-stop delay gets its answer, then a GOAWAY.
      const session = await h2Session(server.url);
      let goaway = false;
      session.on("goaway", () => (goaway = true));
      const r2 = await h2Send(session, { ":path": "/hello" });
      assert.equal(r2.status, 200);
      assert.equal(r2.headers["connection"], undefined);
      await new Promise((r) => setImmediate(r));
      assert.equal(goaway, true);
      await closing;
    });

    it("cuts off a stream still open at the deadline", async () => {
      const app = testApp().route(route.get("/never", [], () => new Promise<never>(() => {})));
      const server = await app.listen({ port: 0, listener: http2({ key, cert }), shutdownTimeout: 100 });
      const session = await h2Session(server.url);
      session.on("error", () => {});
      const outcome = h2Send(session, { ":path": "/never" }).then(() => "answered", () => "cut off");
      await new Promise((r) => setTimeout(r, 20));
      await server.close();
      assert.equal(await outcome, "cut off");
    });
  });

  it("survives a client that resets an HTTP/2 stream mid-response", async () => {
    const logger = captureLogger();
    let stopped = false;
    const firstChunk = deferred();
    const app = testApp(logger).route(route.get("/forever", [], () => stream((async function* () {
      try {
        for (let i = 0; ; i++) {
          yield `chunk ${i}\n`;
          firstChunk.resolve();
          await new Promise((r) => setTimeout(r, 5));
        }
      } finally {
        stopped = true;
      }
    })(), "text/plain")));
    const server = await app.listen({ port: 0, listener: http2({ key, cert }) });
    try {
      const session = await h2Session(server.url);
      const req = session.request({ ":path": "/forever" });
      req.on("error", () => {});
      await new Promise<void>((resolve) => req.once("data", () => resolve()));
      await firstChunk.promise;
      req.close(h2.NGHTTP2_CANCEL);
      for (let i = 0; i < 100 && !stopped; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(stopped, true, "the stream's source was stopped");
      // The session and the server still serve.
      const r = await h2Send(session, { ":path": "/hello" });
      assert.equal(r.status, 200);
      session.close();
      assert.deepEqual(logger.records.filter((rec) => rec.level >= 50).map((rec) => rec.msg), []);
    } finally {
      await server.close();
    }
  });

  it("a client that resets an HTTP/2 stream mid-body: the body read fails, the handler never sees a truncated body", async () => {
    const seen: number[] = [];
    const outcome: string[] = [];
    const app = new App({ logger: silentLogger })
      .layer((ctx, next) => next(ctx).then((r) => (outcome.push(`${r.status}`), r)))
      .routes(route.post("/upload", [bytes()], (b) => (seen.push(b.length), { n: b.length })));
    const server = await app.listen({ port: 0, listener: http2({ key, cert }) });
    try {
      const session = await h2Session(server.url);
      const req = session.request({ ":method": "POST", ":path": "/upload" }, { endStream: false });
      req.on("error", () => {});
      req.write(Buffer.alloc(1000, 1));
      await new Promise((r) => setTimeout(r, 50));
      // destroy() resets the stream without ending the body first (close() would send END_STREAM:
      // a complete, if short, body).
      req.destroy();
      for (let i = 0; i < 200 && outcome.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(outcome, ["400"], "the request ended as the uniform 400 (body cut off), not a hang");
      assert.deepEqual(seen, [], "the handler never ran with a truncated body");
      session.close();
    } finally {
      await server.close();
    }
  });

  describe("request timeout on HTTP/2 streams", () => {
    const REQUEST_TIMEOUT = 300;
    const logger = captureLogger();
    /** What a handler saw: whether it ran, and the status its chain ended with. */
    let handled: string[] = [];
    let chainStatus: number[] = [];
    let server: ListeningServer;
    let session: ClientHttp2Session;
    let sourceStopped = deferred();

    before(async () => {
      const app = testApp(logger)
        .layer(async (ctx, next) => {
          const r = await next(ctx);
          chainStatus.push(r.status);
          return r;
        })
        .routes(
          route.post("/upload", [bytes()], (b) => {
            handled.push(`upload ${b.length}`);
            return { n: b.length };
          }),
          // Answers at once, without reading the body, and keeps streaming.
          route.post("/early", [], () => stream((async function* () {
            try {
              for (;;) {
                yield "tick\n";
                await new Promise((r) => setTimeout(r, 20));
              }
            } finally {
              sourceStopped.resolve();
            }
          })(), "text/plain")),
          // Slower than the request timeout, after the request was received in full.
          route.post("/slow-handler", [bytes()], async (b) => {
            await new Promise((r) => setTimeout(r, REQUEST_TIMEOUT * 2));
            return { n: b.length };
          }),
          route.post("/slow-unread", [], async () => {
            await new Promise((r) => setTimeout(r, REQUEST_TIMEOUT * 2));
            return { unread: true };
          }),
          route.get("/slow-get", [], async () => {
            await new Promise((r) => setTimeout(r, REQUEST_TIMEOUT * 2));
            return { slow: true };
          }),
        );
      server = await app.listen({ port: 0, listener: http2({ key, cert }), requestTimeout: REQUEST_TIMEOUT, headersTimeout: REQUEST_TIMEOUT });
      session = await h2Session(server.url);
    });
    after(async () => {
      session.close();
      await server.close();
    });

    /** Open a POST stream, send `part` of a longer body, then stall; resolves when the stream closes. */
    function stalledPost(path: string, part: string): Promise<{ status: number | undefined; body: string; rstCode: number | undefined }> {
      return new Promise((resolve) => {
        const req = session.request({ ":method": "POST", ":path": path, "content-length": part.length * 10 }, { endStream: false });
        let status: number | undefined;
        const chunks: Buffer[] = [];
        req.on("response", (h) => (status = Number(h[":status"])));
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("error", () => {});
        req.on("close", () => resolve({ status, body: Buffer.concat(chunks).toString("utf8"), rstCode: req.rstCode }));
        req.write(part);
      });
    }

    /** `p`, or a rejection if it takes more than 5 s: a bound on a hang, not a timing measurement. */
    function within5s<T>(p: Promise<T>): Promise<T> {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("the stalled stream was still open after 5 s")), 5_000);
      });
      return Promise.race([p, bound]).finally(() => clearTimeout(timer));
    }

    it("answers a stalled request body with the uniform 408 and cancels the stream; the body read fails", async () => {
      handled = [];
      chainStatus = [];
      const r = await within5s(stalledPost("/upload", "x".repeat(10)));
      assert.equal(r.status, 408);
      const body = JSON.parse(r.body) as { error: { type: string; message: string }; error_id: string };
      assert.equal(body.error.type, "timeout");
      assert.match(body.error_id, ERROR_ID);
      assert.equal(r.rstCode, h2.NGHTTP2_CANCEL);
      // The extractor's read failed: the handler never saw a truncated body.
      for (let i = 0; i < 100 && chainStatus.length === 0; i++) await new Promise((res) => setTimeout(res, 10));
      assert.deepEqual(handled, []);
      assert.equal(chainStatus.length, 1);
      assert.ok(chainStatus[0]! >= 400, `the chain ended with an error, not ${chainStatus[0]}`);
      // The session survives and serves the next request.
      assert.equal((await h2Send(session, { ":path": "/hello" })).status, 200);
      // The cut-off request is not logged as a server failure.
      assert.deepEqual(logger.records.filter((rec) => rec.level >= 40).map((rec) => rec.msg), []);
    });

    it("cancels a stalled request whose response already started, stopping the response's source", async () => {
      sourceStopped = deferred();
      const r = await within5s(stalledPost("/early", "x".repeat(10)));
      assert.equal(r.status, 200, "the response's head stays as sent");
      assert.match(r.body, /^(tick\n)+$/);
      assert.equal(r.rstCode, h2.NGHTTP2_CANCEL);
      await within5s(sourceStopped.promise);
    });

    it("still answers a slow but complete request, and a handler slower than the timeout once the request is in", async () => {
      handled = [];
      // The body in three parts, well under the timeout in total.
      const slowBody = await new Promise<Answer>((resolve, reject) => {
        const req = session.request({ ":method": "POST", ":path": "/upload" }, { endStream: false });
        let head: IncomingHttpHeaders = {};
        const chunks: Buffer[] = [];
        req.on("response", (h) => (head = h));
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => resolve({ status: Number(head[":status"]), headers: head, body: Buffer.concat(chunks).toString("utf8") }));
        req.on("error", reject);
        req.write("abc");
        setTimeout(() => req.write("def"), 30);
        setTimeout(() => req.end("ghi"), 60);
      });
      assert.equal(slowBody.status, 200);
      assert.deepEqual(json200(slowBody), { n: 9 });
      assert.deepEqual(handled, ["upload 9"]);

      const slowHandler = await h2Send(session, { ":method": "POST", ":path": "/slow-handler" }, "12345");
      assert.equal(slowHandler.status, 200);
      assert.deepEqual(json200(slowHandler), { n: 5 });
      // Sent in full but never read by its handler: the client was not late.
      const unread = await h2Send(session, { ":method": "POST", ":path": "/slow-unread" }, "12345");
      assert.equal(unread.status, 200);
      assert.deepEqual(json200(unread), { unread: true });
      const get = await h2Send(session, { ":path": "/slow-get" });
      assert.equal(get.status, 200);
      assert.deepEqual(json200(get), { slow: true });
    });
  });

  it("sent no HTTP/1 connection header to the HTTP/2 layer (no Node warnings)", () => {
    assert.deepEqual(warnings, []);
  });
});
