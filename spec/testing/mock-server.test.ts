// keel/testing's mockServer() (issue 37 item 3): expectations matched in declaration order on
// method, path (exact, pattern, RegExp), query, headers and body (exact JSON, partial object,
// text, bytes, predicate); answers that reply, reply after a delay, or fault (reset, close);
// once / times(n) / always; unmatched requests answered 501 in the uniform error body and
// recorded; verify() throwing an AssertionError that lists what is missing; a bounded log.
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, afterEach, before, describe, it } from "node:test";
import { mockServer, MockVerificationError, partialMatch, type MockServer } from "../../lib/testing/index.js";
import { ERROR_ID } from "../support/http.js";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request on a connection of its own (no keep-alive pool between tests). */
function send(base: string, method: string, target: string, options: { headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + target, { method, headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

let mock: MockServer;
const get = (target: string, headers?: Record<string, string>) => send(mock.url, "GET", target, headers === undefined ? {} : { headers });
const postJson = (target: string, value: unknown) => send(mock.url, "POST", target, { headers: { "content-type": "application/json" }, body: JSON.stringify(value) });

before(async () => {
  mock = await mockServer();
});
after(() => mock.close());
afterEach(() => mock.reset());

describe("mockServer(): matching", () => {
  it("listens on loopback and answers a declared reply: status, JSON body, headers", async () => {
    assert.match(mock.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    mock.expect({ method: "get", path: "/users/7" }).reply(200, { id: 7 }, { "x-mock": "yes" });
    const r = await get("/users/7");
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "application/json");
    assert.equal(r.headers["x-mock"], "yes");
    assert.deepEqual(JSON.parse(r.text), { id: 7 });
    mock.verify();
  });

  it("matches paths exactly, by {name} pattern, by trailing *, and by RegExp", async () => {
    mock.expect({ path: "/exact" }).reply(200, "exact");
    mock.expect({ path: "/users/{id}/posts/{post}" }).reply(200, "pattern");
    mock.expect({ path: "/static/*" }).reply(200, "rest");
    mock.expect({ path: /^\/re\/\d+$/ }).reply(200, "regexp");
    assert.equal((await get("/exact?x=1")).text, "exact");
    assert.equal((await get("/users/1/posts/2")).text, "pattern");
    assert.equal((await get("/static/css/site.css")).text, "rest");
    assert.equal((await get("/re/42")).text, "regexp");
    mock.verify();
    assert.equal((await get("/exact/more")).status, 501, "exact means exact, and each was used once");
  });

  it("matches the method, the query and the headers (names in any case; RegExp and predicates)", async () => {
    mock.expect({ method: "DELETE", path: "/q", query: { page: "2", sort: /^(asc|desc)$/ }, headers: { Authorization: (v) => v.startsWith("Bearer "), "X-Tenant": "acme" } }).reply(204);
    assert.equal((await send(mock.url, "GET", "/q?page=2&sort=asc", { headers: { authorization: "Bearer t", "x-tenant": "acme" } })).status, 501, "wrong method");
    assert.equal((await send(mock.url, "DELETE", "/q?page=3&sort=asc", { headers: { authorization: "Bearer t", "x-tenant": "acme" } })).status, 501, "wrong query value");
    assert.equal((await send(mock.url, "DELETE", "/q?page=2&sort=asc", { headers: { authorization: "Basic t", "x-tenant": "acme" } })).status, 501, "header predicate fails");
    assert.equal((await send(mock.url, "DELETE", "/q?page=2", { headers: { authorization: "Bearer t", "x-tenant": "acme" } })).status, 501, "missing query parameter");
    const ok = await send(mock.url, "DELETE", "/q?sort=desc&page=2&extra=1", { headers: { authorization: "Bearer t", "x-tenant": "acme", "x-other": "1" } });
    assert.equal(ok.status, 204);
    assert.equal(mock.unmatched.length, 4);
    mock.reset();
  });

  it("matches bodies: exact JSON, a partial object, text, bytes, a predicate", async () => {
    mock.expect({ path: "/json", body: { json: { a: 1, b: [1, 2] } } }).reply(200, "json").always();
    mock.expect({ path: "/partial", body: { partial: { user: { name: "ada" }, tags: [{ k: "x" }] } } }).reply(200, "partial").always();
    mock.expect({ path: "/text", body: "plain words" }).reply(200, "text");
    mock.expect({ path: "/bytes", body: Buffer.from([0, 1, 2]) }).reply(200, "bytes");
    mock.expect({ path: "/pred", body: (r) => (r.json as { n: number }).n > 10 }).reply(200, "pred");
    assert.equal((await postJson("/json", { b: [1, 2], a: 1 })).text, "json", "key order does not matter");
    assert.equal((await postJson("/json", { a: 1, b: [1, 2], c: 3 })).status, 501, "exact means no extra keys");
    assert.equal((await postJson("/partial", { id: 1, user: { name: "ada", age: 36 }, tags: [{ k: "x", v: 1 }] })).text, "partial");
    assert.equal((await postJson("/partial", { user: { name: "bob" }, tags: [{ k: "x" }] })).status, 501);
    assert.equal((await postJson("/partial", { user: { name: "ada" }, tags: [{ k: "x" }, { k: "y" }] })).status, 501, "arrays keep their length");
    assert.equal((await send(mock.url, "POST", "/text", { body: "plain words" })).text, "text");
    assert.equal((await send(mock.url, "POST", "/bytes", { body: Buffer.from([0, 1, 2]) })).text, "bytes");
    assert.equal((await postJson("/pred", { n: 5 })).status, 501);
    assert.equal((await postJson("/pred", { n: 50 })).text, "pred");
    assert.equal(mock.unmatched.length, 4);
    mock.reset();
  });

  it("tries expectations in declaration order, each until its count is used up", async () => {
    mock.expect({ path: "/n" }).times(2).reply(200, "first");
    mock.expect({ path: "/n" }).reply(200, "second");
    mock.expect({ path: "/n" }).always().reply(503, "later");
    const texts = [];
    for (let i = 0; i < 5; i++) texts.push((await get("/n")).text);
    assert.deepEqual(texts, ["first", "first", "second", "later", "later"]);
    mock.verify();
  });

  it("replies from a function of the request, and sends strings and bytes as they are", async () => {
    mock.expect({ path: "/echo" }).reply((r) => ({ status: 201, headers: { "content-type": "text/plain" }, body: `${r.method} ${r.query["q"]}` }));
    mock.expect({ path: "/bin" }).reply(200, Buffer.from("raw"), { "content-type": "application/octet-stream" });
    const echo = await get("/echo?q=hi");
    assert.equal(echo.status, 201);
    assert.equal(echo.text, "GET hi");
    const bin = await get("/bin");
    assert.equal(bin.headers["content-type"], "application/octet-stream");
    assert.equal(bin.text, "raw");
  });

  it("partialMatch is the partial rule: objects by key, arrays by index and length, the rest by Object.is", () => {
    assert.equal(partialMatch({ a: { b: 1 } }, { a: { b: 1, c: 2 }, d: 3 }), true);
    assert.equal(partialMatch({ a: [1] }, { a: [1, 2] }), false);
    assert.equal(partialMatch({ a: null }, { a: null }), true);
    assert.equal(partialMatch({ a: undefined }, {}), false);
    assert.equal(partialMatch({ a: 1 }, [1]), false);
  });
});

describe("mockServer(): unmatched requests, requests and verify()", () => {
  it("answers an unmatched request 501 in the uniform error body naming what it received, and records it", async () => {
    const r = await postJson("/nobody?x=1", { hello: "world" });
    assert.equal(r.status, 501);
    const body = JSON.parse(r.text) as { error: { type: string; message: string }; error_id: string };
    assert.equal(body.error.type, "not_implemented");
    assert.match(body.error.message, /no expectation matches POST \/nobody\?x=1 body "\{\\"hello\\":\\"world\\"\}"/);
    assert.match(body.error_id, ERROR_ID);
    assert.equal(mock.requests.length, 1);
    const [rec] = mock.requests;
    assert.equal(rec!.method, "POST");
    assert.equal(rec!.path, "/nobody");
    assert.deepEqual(rec!.query, { x: "1" });
    assert.deepEqual(rec!.json, { hello: "world" });
    assert.equal(rec!.matchedBy, null);
    assert.equal(mock.unmatched.length, 1);
  });

  it("records matched requests with the expectation that answered", async () => {
    mock.expect({ method: "GET", path: "/a" }).reply(200);
    await get("/a", { "x-trace": "1" });
    assert.equal(mock.requests[0]!.matchedBy, "GET /a");
    assert.equal(mock.requests[0]!.headers["x-trace"], "1");
  });

  it("verify() passes when every expectation was met and nothing went unmatched", async () => {
    mock.expect({ path: "/ok" }).times(2).reply(200);
    await get("/ok");
    await get("/ok");
    mock.verify();
  });

  it("verify() throws an AssertionError listing unmet expectations (with counts) and unmatched requests", async () => {
    mock.expect({ method: "GET", path: "/twice" }).times(2).reply(200);
    mock.expect({ method: "POST", path: "/never", headers: { "x-key": "k" } }).reply(200);
    mock.expect({ path: "/sometimes" }).always().reply(200);
    await get("/twice");
    await get("/stray?z=9");
    let thrown: unknown;
    try {
      mock.verify();
    } catch (err) {
      thrown = err;
    }
    assert.ok(thrown instanceof assert.AssertionError, "an AssertionError");
    assert.ok(thrown instanceof MockVerificationError);
    assert.equal(thrown.code, "ERR_ASSERTION");
    assert.equal(thrown.message, [
      "mockServer: verification failed",
      "unmet expectations (3):",
      "  - GET /twice: expected 2 calls, got 1",
      '  - POST /never headers x-key: "k": expected 1 call, got 0',
      "  - * /sometimes: expected at least 1 call, got 0",
      "unmatched requests (1):",
      "  - GET /stray?z=9",
    ].join("\n"));
    assert.deepEqual(thrown.unmatched, ["GET /stray?z=9"]);
  });

  it("counts a matching expectation declared without an answer as unmatched (501 naming it)", async () => {
    mock.expect({ path: "/half" });
    const r = await get("/half");
    assert.equal(r.status, 501);
    assert.match(r.text, /has no reply or fault/);
    assert.throws(() => mock.verify(), /unmatched requests \(1\)/);
  });

  it("keeps the last maxRequests requests and counts the others; refuses a body over maxBodyBytes with 413", async () => {
    const small = await mockServer({ maxRequests: 3, maxBodyBytes: 64 });
    try {
      small.expect({ path: "/x" }).always().reply(200);
      for (let i = 0; i < 5; i++) await send(small.url, "GET", `/x?i=${i}`);
      assert.deepEqual(small.requests.map((r) => r.query["i"]), ["2", "3", "4"]);
      assert.equal(small.requestsDropped, 2);
      const big = await send(small.url, "POST", "/x", { body: "y".repeat(1000) });
      assert.equal(big.status, 413);
      const last = small.requests.at(-1)!;
      assert.equal(last.tooLarge, true);
      assert.equal(last.body.length, 0, "the oversized body is not kept");
      for (let i = 0; i < 4; i++) await send(small.url, "GET", `/nobody/${i}`);
      assert.equal(small.unmatched.length, 3, "the unmatched list is bounded too");
      assert.throws(() => small.verify(), /unmatched requests \(5, the first 2 no longer kept\)/);
    } finally {
      await small.close();
    }
  });
});

describe("mockServer(): delays and faults", () => {
  it("replies after a delay", async () => {
    mock.expect({ path: "/slow" }).delay(30).reply(200, { late: true });
    const r = await get("/slow");
    assert.deepEqual(JSON.parse(r.text), { late: true });
    mock.verify();
  });

  it("holds a delayed answer back until its time: close() drops it and the client gets no answer", async () => {
    const m = await mockServer();
    m.expect({ path: "/never-in-time" }).delay(600_000).reply(200, "too late");
    const pending = send(m.url, "GET", "/never-in-time");
    while (m.requests.length === 0) await new Promise((r) => setImmediate(r));
    await m.close();
    await assert.rejects(pending, (err: NodeJS.ErrnoException) => err.code === "ECONNRESET");
  });

  it("resets the connection (RST): the client's read fails with ECONNRESET", async () => {
    mock.expect({ path: "/reset" }).fault("reset");
    await assert.rejects(get("/reset"), (err: NodeJS.ErrnoException) => err.code === "ECONNRESET" && err.message === "read ECONNRESET");
    mock.verify();
  });

  it("closes the connection without an answer: the client sees a hang-up", async () => {
    mock.expect({ path: "/close" }).fault("close");
    await assert.rejects(get("/close"), (err: NodeJS.ErrnoException) => err.code === "ECONNRESET" && err.message === "socket hang up");
    mock.verify();
  });

  it("faults after a delay too, and fetch() reports the failure", async () => {
    mock.expect({ path: "/late-reset" }).delay(10).fault("reset");
    await assert.rejects(fetch(mock.url + "/late-reset"), TypeError);
    mock.verify();
  });
});

describe("mockServer(): refusals at declaration", () => {
  it("refuses bad counts, delays, statuses, faults, paths and options", async () => {
    assert.throws(() => mock.expect().times(0), /times\(n\)/);
    assert.throws(() => mock.expect().delay(-1), /delay/);
    assert.throws(() => mock.expect().reply(99), /200-599/);
    assert.throws(() => mock.expect().fault("explode" as never), /fault must be/);
    assert.throws(() => mock.expect({ path: "users" }), /must start with/);
    await assert.rejects(mockServer({ maxRequests: 0 }), /maxRequests/);
    mock.reset();
  });
});
