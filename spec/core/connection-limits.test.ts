// The connection limits of listen() and what a client sees when it crosses them: every refusal
// Node's parser makes is the uniform error body with an error_id; slow clients are cut off
// within the stated time while others are served; pipelining and connections are bounded.
import assert from "node:assert/strict";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { App, bytes, route, silentLogger, type ListeningServer } from "../../lib/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { ERROR_ID, rawExchange, send } from "../support/http.js";

function smallApp(logger = silentLogger): App {
  return new App({ logger }).routes(
    route.get("/s", [], () => ({ ok: true })),
    route.post("/upload", [bytes()], (b) => ({ n: b.length })),
    route.get("/p/{a}", [], () => ({ ok: true })),
  );
}

/** Status line and uniform body of a raw answer. */
function parseAnswer(raw: string): { status: number; headers: string; body: { error?: { type: string; message: string }; error_id?: string } } {
  const m = /^HTTP\/1\.1 (\d{3}) [^\r]*\r\n/.exec(raw);
  assert.ok(m, `no status line in ${JSON.stringify(raw.slice(0, 80))}`);
  const split = raw.indexOf("\r\n\r\n");
  const headers = raw.slice(0, split);
  const body = raw.slice(split + 4);
  return { status: Number(m[1]), headers, body: body === "" ? {} : (JSON.parse(body) as object) };
}

function assertUniform(raw: string, status: number, type?: string): void {
  const a = parseAnswer(raw);
  assert.equal(a.status, status, raw.slice(0, 200));
  assert.match(a.headers, /content-type: application\/json/i);
  assert.match(a.body.error_id ?? "", ERROR_ID);
  assert.equal(typeof a.body.error?.message, "string");
  if (type !== undefined) assert.equal(a.body.error?.type, type);
}

describe("request targets", () => {
  const app = smallApp();
  const refused = [
    "/s#x",
    "/p/a#b",
    "/s?q=1#frag",
    "http://localhost:invalid/admin",
    "http:///admin",
    "http://user@localhost/s",
    "http://localhost:99999/s",
    "ftp://localhost/s",
    "http://localhost\\s",
    "*",
    "s",
  ];
  for (const url of refused) {
    it(`refuses ${JSON.stringify(url)} with the uniform 400`, async () => {
      const r = await app.inject({ url });
      assert.equal(r.status, 400);
      const body = r.json<{ error: { type: string; message: string }; error_id: string }>();
      assert.equal(body.error.type, "bad_request");
      assert.equal(body.error.message, "Invalid request target");
      assert.match(body.error_id, ERROR_ID);
    });
  }

  it("routes a valid absolute-form target by its own path and query", async () => {
    assert.equal((await app.inject({ url: "http://localhost:8080/s?x=1" })).status, 200);
    assert.equal((await app.inject({ url: "HTTPS://Example.COM/s" })).status, 200);
    assert.equal((await app.inject({ url: "http://localhost?x=1" })).status, 404); // the path is "/"
  });

  it("answers OPTIONS * with 204", async () => {
    const r = await app.inject({ method: "OPTIONS", url: "*" });
    assert.equal(r.status, 204);
  });

  it("refuses a fragment on the wire too (Node passes it through)", async () => {
    const app2 = smallApp();
    const server = await app2.listen({ port: 0 });
    try {
      assertUniform(await rawExchange(server.port, "GET /s#x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 400, "bad_request");
      assertUniform(await rawExchange(server.port, "GET http:///s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 400, "bad_request");
    } finally {
      await server.close();
    }
  });
});

describe("parser errors get the uniform body", () => {
  let server: ListeningServer;
  const logger = captureLogger(30);
  before(async () => {
    server = await smallApp(logger).listen({ port: 0, maxHeaderSize: 4096 });
  });
  after(() => server.close());

  const cases: Array<[string, string, number, string]> = [
    ["a header line without a colon", "GET /s HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", 400, "bad_request"],
    ["an invalid method", "G@T /s HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad_request"],
    ["an unknown HTTP version", "GET /s HTTP/7.1\r\nHost: x\r\n\r\n", 400, "bad_request"],
    ["Content-Length and Transfer-Encoding together", "POST /s HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "bad_request"],
    ["two different Content-Lengths", "POST /s HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400, "bad_request"],
    ["an invalid chunk size", "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", 400, "bad_request"],
    ["a missing Host", "GET /s HTTP/1.1\r\n\r\n", 400, "bad_request"],
    ["a missing Host on a route that does not exist", "GET /nowhere HTTP/1.1\r\n\r\n", 400, "bad_request"],
    ["headers over maxHeaderSize", `GET /s HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(8000)}\r\n\r\n`, 431, "request_header_fields_too_large"],
    ["CONNECT (a proxy's method)", "CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n", 405, "method_not_allowed"],
    ["an HTTP/2.0 request line", "GET /s HTTP/2.0\r\nHost: x\r\n\r\n", 400, "bad_request"],
    ["an HTTP/0.9 request line", "GET /s\r\n\r\n", 400, "bad_request"],
    ["two Host headers", "GET /s HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n", 400, "bad_request"],
    ["a Host with userinfo", "GET /s HTTP/1.1\r\nHost: user@a.example\r\n\r\n", 400, "bad_request"],
    ["a Host with a path", "GET /s HTTP/1.1\r\nHost: a.example/admin\r\n\r\n", 400, "bad_request"],
    ["a Host with a bad port", "GET /s HTTP/1.1\r\nHost: a.example:abc\r\n\r\n", 400, "bad_request"],
    ["an Expect other than 100-continue", "POST /s HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 0\r\n\r\n", 417, "expectation_failed"],
  ];
  for (const [name, raw, status, type] of cases) {
    it(`${name}: ${status} ${type}`, async () => {
      assertUniform(await rawExchange(server.port, raw), status, type);
    });
  }

  it("logs each one with the error_id the client got", async () => {
    const raw = await rawExchange(server.port, "GET /s HTTP/1.1\r\nHost: x\r\nNo Colon\r\n\r\n");
    const id = parseAnswer(raw).body.error_id;
    const record = logger.records.find((r) => r.fields["error_id"] === id);
    assert.ok(record, "no log record with the error_id");
    assert.equal(record.msg, "client error");
    assert.equal(record.fields["status"], 400);
  });

  it("accepts every valid Host form", async () => {
    for (const host of ["a.example", "a.example:8080", "127.0.0.1:1", "[::1]", "[::1]:443", "xn--bcher-kva.example", "localhost"]) {
      const raw = await rawExchange(server.port, `GET /s HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      assert.match(raw, /^HTTP\/1\.1 200 /, host);
    }
  });

  it("garbage after a complete request: that request is answered first, then the connection closes", async () => {
    const raw = await rawExchange(server.port, "GET /s HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP AT ALL\r\n\r\n");
    // The valid request's answer always comes first; the garbage then gets the uniform 400
    // (when the answer was already out) or nothing (when it was still pending: it closes instead).
    assert.match(raw, /^HTTP\/1\.1 200 /);
    const statuses = [...raw.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
    assert.ok(statuses.length <= 2 && (statuses[1] === undefined || statuses[1] === "400"), raw);
  });

  it("the server keeps serving", async () => {
    assert.equal((await send(server.url + "/s")).status, 200);
  });
});

/** Open a socket and send `parts` one at a time, `everyMs` apart; resolves with what came back and when the socket closed. */
function dribble(port: number, head: string, byte: string, everyMs: number, giveUpMs: number): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const sock: Socket = connect(port, "127.0.0.1");
    let text = "";
    sock.on("data", (d: Buffer) => (text += d.toString("latin1")));
    sock.on("error", () => {});
    sock.write(head);
    const tick = setInterval(() => {
      if (!sock.destroyed && sock.writable) sock.write(byte);
    }, everyMs);
    const giveUp = setTimeout(() => sock.destroy(), giveUpMs);
    sock.on("close", () => {
      clearInterval(tick);
      clearTimeout(giveUp);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
  });
}

describe("slow clients are cut off within the stated time", () => {
  let server: ListeningServer;
  before(async () => {
    const app = smallApp();
    server = await app.listen({ port: 0, headersTimeout: 1000, requestTimeout: 2000, timeoutCheckInterval: 200 });
  });
  after(() => server.close());

  it("headers at one byte every 300 ms: 408 uniform after headersTimeout, others served meanwhile", async () => {
    const slow = dribble(server.port, "GET /s HTTP/1.1\r\nHost: x\r\nX-Slow: ", "a", 300, 8000);
    // While the slow client trickles, a normal one is answered at once.
    await new Promise((r) => setTimeout(r, 400));
    assert.equal((await send(server.url + "/s")).status, 200);
    const { text, closedAfterMs } = await slow;
    assertUniform(text, 408, "timeout");
    assert.ok(closedAfterMs >= 900 && closedAfterMs < 4000, `cut after ${closedAfterMs} ms`);
  });

  it("a body at one byte every 300 ms: 408 uniform after requestTimeout", async () => {
    const head = "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000\r\n\r\n";
    const { text, closedAfterMs } = await dribble(server.port, head, "b", 300, 8000);
    assertUniform(text, 408, "timeout");
    assert.ok(closedAfterMs >= 1900 && closedAfterMs < 5000, `cut after ${closedAfterMs} ms`);
    assert.equal((await send(server.url + "/s")).status, 200);
  });
});

describe("limits of sockets and connections", () => {
  it("applies safe defaults to the server", async () => {
    const server = await smallApp().listen({ port: 0 });
    try {
      assert.equal(server.server.headersTimeout, 10_000);
      assert.equal(server.server.requestTimeout, 30_000);
      assert.equal(server.server.keepAliveTimeout, 5_000);
      assert.equal(server.server.maxRequestsPerSocket, 0);
    } finally {
      await server.close();
    }
  });

  it("refuses inconsistent or invalid limits at listen()", async () => {
    await assert.rejects(smallApp().listen({ port: 0, headersTimeout: 5000, requestTimeout: 1000 }), /headersTimeout \(5000\) must not exceed requestTimeout/);
    await assert.rejects(smallApp().listen({ port: 0, maxConnections: -1 }), /maxConnections must be an integer >= 0/);
    await assert.rejects(smallApp().listen({ port: 0, keepAliveTimeout: 1.5 }), /keepAliveTimeout must be an integer/);
    await assert.rejects(smallApp().listen({ port: 0, preStopDelay: -5 }), /preStopDelay must be an integer/);
  });

  it("maxRequestsPerSocket: the last allowed answer closes the connection", async () => {
    const server = await smallApp().listen({ port: 0, maxRequestsPerSocket: 2 });
    try {
      const one = "GET /s HTTP/1.1\r\nHost: x\r\n\r\n";
      const out = await rawExchange(server.port, one + one, 2000);
      const answers = out.match(/HTTP\/1\.1 200/g) ?? [];
      assert.equal(answers.length, 2);
      assert.match(out.slice(out.lastIndexOf("HTTP/1.1")), /connection: close/i);
    } finally {
      await server.close();
    }
  });

  it("maxConnections: sockets past the cap are refused, and served again once one closes", async () => {
    const server = await smallApp().listen({ port: 0, maxConnections: 2 });
    const open: Socket[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const s = connect(server.port, "127.0.0.1");
        await new Promise((r) => s.once("connect", r));
        open.push(s);
      }
      await new Promise((r) => setTimeout(r, 50));
      const third = await rawExchange(server.port, "GET /s HTTP/1.1\r\nHost: x\r\n\r\n", 1500).catch(() => "");
      assert.equal(third, "", "the third connection was served");
      open.pop()!.destroy();
      await new Promise((r) => setTimeout(r, 100));
      assert.equal((await send(server.url + "/s")).status, 200);
    } finally {
      for (const s of open) s.destroy();
      await server.close();
    }
  });

  it("pipelined requests are answered in order", async () => {
    const server = await smallApp().listen({ port: 0 });
    try {
      let raw = "";
      for (let i = 0; i < 20; i++) raw += `GET /p/${i} HTTP/1.1\r\nHost: x\r\n\r\n`;
      raw += "GET /s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      const out = await rawExchange(server.port, raw, 3000);
      assert.equal((out.match(/HTTP\/1\.1 200/g) ?? []).length, 21);
    } finally {
      await server.close();
    }
  });

  it("too many unanswered pipelined requests cut the socket; others are still served", async () => {
    const logger = captureLogger(40);
    const app = new App({ logger }).route(
      // Slow answers, so requests pile up behind the first.
      route.get("/slow", [], () => new Promise((r) => setTimeout(() => r({ ok: true }), 50))),
    );
    const server = await app.listen({ port: 0, maxPipelinedRequests: 8 });
    try {
      const raw = "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".repeat(500);
      const out = await rawExchange(server.port, raw, 5000);
      const answered = (out.match(/HTTP\/1\.1 200/g) ?? []).length;
      assert.ok(answered <= 9, `answered ${answered} of 500`);
      assert.ok(logger.records.some((r) => r.msg === "too many pipelined requests; connection closed"));
      assert.equal((await send(server.url + "/slow")).status, 200);
    } finally {
      await server.close();
    }
  });
});

describe("pre-stop delay", () => {
  it("keeps accepting and answering with connection: close, then stops accepting", async () => {
    const app = smallApp();
    const server = await app.listen({ port: 0, preStopDelay: 500 });
    const closed = server.close();
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(app.runtime.draining, true);
    // A new connection during the delay is served, and told to close.
    const during = await send(server.url + "/s");
    assert.equal(during.status, 200);
    assert.equal(during.headers["connection"], "close");
    await closed;
    await assert.rejects(
      new Promise((resolve, reject) => {
        const req = request(server.url + "/s", { agent: false }, resolve);
        req.on("error", reject);
        req.end();
      }),
      /ECONNREFUSED/,
    );
  });
});
