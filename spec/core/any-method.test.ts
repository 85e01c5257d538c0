// Routes of any RFC 9110 method token, QUERY first (safe, idempotent, with a body): registration,
// routing, 405 + Allow, automatic OPTIONS, body extractors, CORS preflights; through inject and
// over real sockets, where node:http's HTTP/1.1 parser delivers only the methods of http.METHODS
// (any other token is a 400 before the app) and HTTP/2 delivers any token.
import assert from "node:assert/strict";
import { METHODS } from "node:http";
import { connect as h2connect } from "node:http2";
import { after, before, describe, it } from "node:test";
import { App, json, path, route, silentLogger, t, type ListeningServer } from "../../lib/index.js";
import { cors } from "../../lib/middleware/index.js";
import { production } from "../../lib/service/index.js";
import { http2 } from "../../lib/tls/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { ERROR_ID, rawExchange } from "../support/http.js";
import { selfSignedCertificate } from "../support/test-certificate.js";

const Filter = t.object({ term: t.string({ minLength: 1 }), limit: t.optional(t.integer({ minimum: 1, maximum: 50 })) });

function methodsApp(logger = silentLogger) {
  return new App({ logger }).routes(
    route.query("/search", [json(Filter)], (f) => ({ term: f.term, limit: f.limit ?? 10 })),
    route.get("/cache/{key}", [path("key", t.string())], (key) => ({ key })),
    route.method("PURGE")("/cache/{key}", [path("key", t.string())], (key) => ({ purged: key })),
    // A token node:http's HTTP/1.1 parser does not know: reachable over HTTP/2 and inject only.
    route.method("FROB")("/frob", [], () => ({ frobbed: true })),
  );
}

function queryRequest(body: string, method = "QUERY", target = "/search"): string {
  return `${method} ${target} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

function statusOf(raw: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
}

function bodyOf(raw: string): unknown {
  return JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4));
}

describe("route.query and route.method through inject", () => {
  const app = methodsApp();

  it("declares QUERY routes with route.query, and any token with route.method", () => {
    const methods = app.routeTable().map((r) => `${r.method} ${r.pattern}`);
    assert.deepEqual(methods, ["QUERY /search", "GET /cache/{key}", "PURGE /cache/{key}", "FROB /frob"]);
    // Lower case is upper-cased at declaration (methods are case-sensitive; node:http upper-cases nothing).
    assert.equal(route.method("purge")("/p", [], () => "ok").method, "PURGE");
  });

  it("reads and validates a QUERY body with json()", async () => {
    const ok = await app.inject({ method: "QUERY", url: "/search", headers: { "content-type": "application/json" }, body: JSON.stringify({ term: "keel", limit: 5 }) });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.json(), { term: "keel", limit: 5 });
    const bad = await app.inject({ method: "QUERY", url: "/search", headers: { "content-type": "application/json" }, body: JSON.stringify({ term: "", limit: 500 }) });
    assert.equal(bad.status, 422);
    const fields = (bad.json() as { error: { fields: Array<{ field: string }> } }).error.fields.map((f) => f.field).sort();
    assert.deepEqual(fields, ["limit", "term"]);
    const missing = await app.inject({ method: "QUERY", url: "/search" });
    assert.equal(missing.status, 415, "a QUERY without a body is refused by json() like a POST without one");
  });

  it("answers 405 with an Allow that lists QUERY and other tokens, and OPTIONS with the same list", async () => {
    const get = await app.inject({ method: "GET", url: "/search" });
    assert.equal(get.status, 405);
    assert.equal(get.headers["allow"], "OPTIONS, QUERY");
    // HEAD is derived from GET only: QUERY is safe but has a body, so no HEAD for it.
    assert.equal((await app.inject({ method: "HEAD", url: "/search" })).status, 405);
    const options = await app.inject({ method: "OPTIONS", url: "/search" });
    assert.equal(options.status, 204);
    assert.equal(options.headers["allow"], "OPTIONS, QUERY");
    const post = await app.inject({ method: "POST", url: "/cache/a" });
    assert.equal(post.status, 405);
    assert.equal(post.headers["allow"], "GET, HEAD, OPTIONS, PURGE");
    assert.deepEqual((await app.inject({ method: "PURGE", url: "/cache/a%20b" })).json(), { purged: "a b" });
    assert.deepEqual((await app.inject({ method: "FROB", url: "/frob" })).json(), { frobbed: true });
  });

  it("refuses a method that is not an RFC 9110 token at registration", () => {
    assert.throws(() => new App({ logger: silentLogger }).route(route.method("QUE RY")("/q", [], () => "x")), /RFC 9110 token/);
    assert.throws(() => new App({ logger: silentLogger }).route(route.method("")("/q", [], () => "x")), /RFC 9110 token/);
  });
});

describe("CORS preflights for QUERY and other tokens", () => {
  const A = "https://app.example";
  const preflight = (app: App, method: string) =>
    app.inject({ method: "OPTIONS", url: "/search", headers: { origin: A, "access-control-request-method": method, "access-control-request-headers": "content-type" } });

  it("allows a listed QUERY (and PURGE), and the actual QUERY gets the CORS headers", async () => {
    const app = methodsApp().layer(cors({ origin: A, methods: ["GET", "HEAD", "POST", "QUERY", "PURGE"] }));
    const p = await preflight(app, "QUERY");
    assert.equal(p.status, 204);
    assert.equal(p.headers["access-control-allow-origin"], A);
    assert.equal(p.headers["access-control-allow-methods"], "GET, HEAD, POST, QUERY, PURGE");
    assert.equal(p.headers["access-control-allow-headers"], "content-type");
    assert.equal((await preflight(app, "PURGE")).headers["access-control-allow-origin"], A);
    const actual = await app.inject({ method: "QUERY", url: "/search", headers: { origin: A, "content-type": "application/json" }, body: '{"term":"x"}' });
    assert.equal(actual.status, 200);
    assert.equal(actual.headers["access-control-allow-origin"], A);
  });

  it("refuses a QUERY preflight when QUERY is not in methods (the default list has no QUERY)", async () => {
    const app = methodsApp().layer(cors({ origin: A }));
    const p = await preflight(app, "QUERY");
    assert.equal(p.status, 204);
    for (const name of Object.keys(p.headers)) assert.ok(!name.startsWith("access-control-"), name);
    // Methods are compared case-sensitively, as browsers send them (fetch does not upper-case "query").
    const lower = await preflight(methodsApp().layer(cors({ origin: A, methods: ["QUERY"] })), "query");
    assert.equal(lower.headers["access-control-allow-origin"], undefined);
  });
});

describe("over HTTP/1.1 sockets (node:http's parser)", () => {
  let server: ListeningServer;
  const logger = captureLogger(40);
  before(async () => {
    server = await methodsApp(logger).register(production({ service: "methods", logger })).listen({ port: 0 });
  });
  after(() => server.close());

  it("lists QUERY in http.METHODS on this Node (20.20, 22, 24 and 26 all do)", () => {
    assert.ok(METHODS.includes("QUERY"), `node ${process.version}: ${METHODS.join(" ")}`);
    assert.ok(METHODS.includes("PURGE"));
    assert.ok(!METHODS.includes("FROB"));
  });

  it("delivers QUERY with its body to the route", async () => {
    const raw = await rawExchange(server.port, queryRequest(JSON.stringify({ term: "sockets" })));
    assert.equal(statusOf(raw), 200, raw);
    assert.deepEqual(bodyOf(raw), { term: "sockets", limit: 10 });
    const bad = await rawExchange(server.port, queryRequest(JSON.stringify({ term: 7 })));
    assert.equal(statusOf(bad), 422, bad);
  });

  it("delivers PURGE, and answers a GET on a QUERY route 405 with Allow", async () => {
    const purge = await rawExchange(server.port, "PURGE /cache/k HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n");
    assert.equal(statusOf(purge), 200, purge);
    assert.deepEqual(bodyOf(purge), { purged: "k" });
    const get = await rawExchange(server.port, "GET /search HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n");
    assert.equal(statusOf(get), 405, get);
    assert.match(get, /\r\nallow: OPTIONS, QUERY\r\n/i);
  });

  it("gets a 400 from the parser for a token outside http.METHODS, and for a lower-case method", async () => {
    for (const line of ["FROB /frob HTTP/1.1", "query /search HTTP/1.1"]) {
      const raw = await rawExchange(server.port, `${line}\r\nhost: localhost\r\nconnection: close\r\n\r\n`);
      assert.equal(statusOf(raw), 400, `${line}: ${raw}`);
      assert.match((bodyOf(raw) as { error_id: string }).error_id, ERROR_ID);
    }
  });

  it("production() warns once at listen, naming the routes HTTP/1.1 cannot reach", () => {
    const warnings = logger.records.filter((r) => r.msg.includes("HTTP/1.1 parser"));
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.level, 40);
    assert.deepEqual(warnings[0]!.fields["routes"], ["FROB /frob"]);
  });

  it("does not warn when every route's method is in http.METHODS", async () => {
    const quiet = captureLogger(40);
    const s = await new App({ logger: quiet }).routes(route.query("/q", [], () => "q"), route.method("PURGE")("/p", [], () => "p")).register(production({ service: "quiet", logger: quiet })).listen({ port: 0 });
    await s.close();
    assert.deepEqual(quiet.records.filter((r) => r.msg.includes("HTTP/1.1 parser")), []);
  });
});

describe("over HTTP/2 (any token)", () => {
  let server: ListeningServer;
  let cert: string;
  before(async () => {
    const pair = selfSignedCertificate();
    cert = pair.cert;
    server = await methodsApp().listen({ port: 0, listener: http2(pair) });
  });
  after(() => server.close());

  function h2(method: string, target: string, body?: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const session = h2connect(server.url, { ca: cert });
      session.on("error", reject);
      const headers: Record<string, string> = { ":method": method, ":path": target };
      if (body !== undefined) headers["content-type"] = "application/json";
      const stream = session.request(headers, { endStream: body === undefined });
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on("response", (h) => (status = Number(h[":status"])));
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        session.close();
        resolve({ status, body: Buffer.concat(chunks).toString("utf8") });
      });
      stream.on("error", reject);
      if (body !== undefined) stream.end(body);
    });
  }

  it("delivers QUERY with its body and a token node:http's HTTP/1.1 parser refuses", async () => {
    const q = await h2("QUERY", "/search", JSON.stringify({ term: "h2" }));
    assert.equal(q.status, 200, q.body);
    assert.deepEqual(JSON.parse(q.body), { term: "h2", limit: 10 });
    const frob = await h2("FROB", "/frob");
    assert.equal(frob.status, 200, frob.body);
    assert.deepEqual(JSON.parse(frob.body), { frobbed: true });
  });
});
