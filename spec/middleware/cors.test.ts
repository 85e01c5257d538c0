// cors() over a real socket: preflights answered before routing (204 with allow headers for an
// allowed origin, none for a refused one), actual requests (errors included), Vary: Origin,
// credentials never with "*", reflected request headers split and checked without regex.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, Reply, route, silentLogger, type ListeningServer } from "../../lib/index.js";
import { jwt } from "../../lib/auth/index.js";
import { addVary, cors } from "../../lib/middleware/index.js";
import { send } from "../support/http.js";

const A = "http://127.0.0.1:4001";
const EVIL = "http://evil.example";

function preflight(url: string, origin: string, extra: Record<string, string> = {}) {
  return send(url, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", ...extra } });
}

describe("cors() with an origin list and credentials", () => {
  let server: ListeningServer;
  before(async () => {
    const app = new App({ logger: silentLogger })
      .layer(cors({ origin: [A, "https://App.Example.com:443"], credentials: true, exposeHeaders: ["x-total"], maxAge: 600, methods: ["GET", "POST"] }))
      .routes(
        route.get("/items", [], () => new Reply(200, "[]", { "content-type": "application/json", "x-total": "0" })),
        route.post("/items", { layers: [jwt({ algorithms: ["HS256"], key: "k".repeat(32) })] }, [], () => "created"),
      );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("answers an allowed preflight with 204 and the allow headers", async () => {
    const r = await preflight(server.url + "/items", A, { "access-control-request-headers": "Content-Type, X-CSRF-Token" });
    assert.equal(r.status, 204);
    assert.equal(r.headers["access-control-allow-origin"], A);
    assert.equal(r.headers["access-control-allow-credentials"], "true");
    assert.equal(r.headers["access-control-allow-methods"], "GET, POST");
    assert.equal(r.headers["access-control-allow-headers"], "content-type, x-csrf-token");
    assert.equal(r.headers["access-control-max-age"], "600");
    assert.equal(r.headers["vary"], "Origin, Access-Control-Request-Method, Access-Control-Request-Headers");
    assert.equal(r.body, "");
  });

  it("answers preflights before routing and before inner layers (unknown path, jwt-protected route)", async () => {
    const unknown = await preflight(server.url + "/nowhere", A);
    assert.equal(unknown.status, 204);
    assert.equal(unknown.headers["access-control-allow-origin"], A);
  });

  it("gives a refused origin no CORS headers at all", async () => {
    for (const origin of [EVIL, "null", A + ".evil.example", "http://127.0.0.1:4002", A.toUpperCase()]) {
      const r = await preflight(server.url + "/items", origin);
      assert.equal(r.status, 204, origin);
      for (const name of Object.keys(r.headers)) assert.ok(!name.startsWith("access-control-"), `${origin}: ${name}`);
      assert.match(String(r.headers["vary"]), /Origin/);
    }
  });

  it("matches configured origins in their serialized form (case, default port)", async () => {
    const r = await preflight(server.url + "/items", "https://app.example.com");
    assert.equal(r.headers["access-control-allow-origin"], "https://app.example.com");
  });

  it("matches origins exactly: no prefix, suffix, trailing-dot, port, scheme or case tricks", async () => {
    const near = [
      "https://app.example.com.evil.com",
      "https://app.example.com.",
      "https://app.example.co",
      "https://app.example.com:8443",
      "https://app.example.com:443",
      "https://app.example.com/",
      "http://app.example.com",
      "HTTPS://APP.EXAMPLE.COM",
      "https://evil-app.example.com",
      "https://xapp.example.com",
      A + "0",
      A.replace("4001", "4000"),
    ];
    for (const origin of near) {
      const actual = await send(server.url + "/items", { headers: { origin } });
      assert.equal(actual.headers["access-control-allow-origin"], undefined, origin);
      assert.equal(actual.headers["access-control-allow-credentials"], undefined, origin);
      assert.equal(actual.headers["vary"], "Origin", origin);
      const pre = await preflight(server.url + "/items", origin);
      assert.equal(pre.headers["access-control-allow-origin"], undefined, origin);
    }
  });

  it("gives a preflight for a method outside the list, or a repeated method header, no CORS headers", async () => {
    for (const method of ["PUT", "DELETE", "post", "POST, PUT"]) {
      const r = await preflight(server.url + "/items", A, { "access-control-request-method": method });
      assert.equal(r.status, 204, method);
      for (const name of Object.keys(r.headers)) assert.ok(!name.startsWith("access-control-"), `${method}: ${name}`);
      assert.match(String(r.headers["vary"]), /Access-Control-Request-Method/);
    }
    const ok = await preflight(server.url + "/items", A, { "access-control-request-method": "GET" });
    assert.equal(ok.headers["access-control-allow-origin"], A);
  });

  it("decorates actual responses, error replies included, and always varies on Origin", async () => {
    const ok = await send(server.url + "/items", { headers: { origin: A } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers["access-control-allow-origin"], A);
    assert.equal(ok.headers["access-control-allow-credentials"], "true");
    assert.equal(ok.headers["access-control-expose-headers"], "x-total");
    assert.equal(ok.headers["vary"], "Origin");
    const denied = await send(server.url + "/items", { method: "POST", headers: { origin: A } });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers["access-control-allow-origin"], A);
    const evil = await send(server.url + "/items", { headers: { origin: EVIL } });
    assert.equal(evil.status, 200);
    assert.equal(evil.headers["access-control-allow-origin"], undefined);
    assert.equal(evil.headers["vary"], "Origin");
    const none = await send(server.url + "/items");
    assert.equal(none.headers["access-control-allow-origin"], undefined);
    assert.equal(none.headers["vary"], "Origin");
  });

  it("passes OPTIONS without Access-Control-Request-Method through to the app", async () => {
    const r = await send(server.url + "/items", { method: "OPTIONS", headers: { origin: A } });
    assert.equal(r.status, 204);
    assert.match(String(r.headers["allow"]), /GET/);
  });

  it("refuses a preflight with a hostile or oversized requested-header list instead of reflecting it", async () => {
    for (const requested of ["a b", "x-ok, bad\u00ff", "a,".repeat(100) + "b", "x".repeat(5000), "x-ok,(evil)"]) {
      const r = await preflight(server.url + "/items", A, { "access-control-request-headers": requested });
      assert.equal(r.status, 204);
      for (const name of Object.keys(r.headers)) assert.ok(!name.startsWith("access-control-"), `${requested.slice(0, 30)}: ${name}`);
    }
    const hostile = " ,".repeat(2000);
    const started = process.hrtime.bigint();
    const r = await preflight(server.url + "/items", A, { "access-control-request-headers": hostile });
    assert.equal(r.status, 204);
    assert.equal(r.headers["access-control-allow-headers"], undefined);
    assert.ok(process.hrtime.bigint() - started < 2_000_000_000n);
  });
});

describe("cors() with *", () => {
  let server: ListeningServer;
  before(async () => {
    const app = new App({ logger: silentLogger }).layer(cors({ origin: "*", allowHeaders: ["content-type"] })).routes(route.get("/x", [], () => "x"));
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("answers * without depending on the origin (no Vary, no credentials)", async () => {
    const r = await send(server.url + "/x", { headers: { origin: EVIL } });
    assert.equal(r.headers["access-control-allow-origin"], "*");
    assert.equal(r.headers["access-control-allow-credentials"], undefined);
    assert.equal(r.headers["vary"], undefined);
    const p = await preflight(server.url + "/x", EVIL, { "access-control-request-headers": "Content-Type" });
    assert.equal(p.headers["access-control-allow-origin"], "*");
    assert.equal(p.headers["access-control-allow-headers"], "content-type");
    // The preflight's answer depends on the requested method and headers, never on the origin.
    assert.equal(p.headers["vary"], "Access-Control-Request-Method, Access-Control-Request-Headers");
  });

  it("gives a preflight naming a header outside allowHeaders no CORS headers", async () => {
    for (const requested of ["x-other", "content-type, x-other", "authorization"]) {
      const p = await preflight(server.url + "/x", EVIL, { "access-control-request-headers": requested });
      assert.equal(p.status, 204);
      for (const name of Object.keys(p.headers)) assert.ok(!name.startsWith("access-control-"), `${requested}: ${name}`);
    }
  });

  it("refuses * together with credentials at construction", () => {
    assert.throws(() => cors({ origin: "*", credentials: true }), /credentials/);
    assert.throws(() => cors({ origin: [A, "*"] }), TypeError);
    assert.throws(() => cors({ origin: [A, "*"], credentials: true }), TypeError);
    // With credentials a browser reads allowHeaders "*" as a header named "*": refused too.
    assert.throws(() => cors({ origin: A, credentials: true, allowHeaders: ["*"] }), /allowHeaders "\*" cannot be combined with credentials/);
    assert.throws(() => cors({ origin: A, credentials: true, methods: ["*"] }), /methods "\*" cannot be combined with credentials/);
  });

  it("treats allowHeaders and methods \"*\" as the wildcard without credentials", async () => {
    const app = new App({ logger: silentLogger }).layer(cors({ origin: A, allowHeaders: ["*"], methods: ["*"] })).routes(route.get("/x", [], () => "x"));
    const p = await app.inject({ method: "OPTIONS", url: "/x", headers: { origin: A, "access-control-request-method": "PURGE", "access-control-request-headers": "x-anything" } });
    assert.equal(p.headers["access-control-allow-origin"], A);
    assert.equal(p.headers["access-control-allow-headers"], "*");
    assert.equal(p.headers["access-control-allow-methods"], "*");
  });
});

describe("cors() with a predicate", () => {
  let server: ListeningServer;
  const seen: string[] = [];
  before(async () => {
    const app = new App({ logger: silentLogger })
      .layer(cors({ origin: (o) => (seen.push(o), o.endsWith(".trusted.test")), credentials: true }))
      .routes(route.get("/x", [], () => "x"));
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("echoes only origins the predicate accepts, and never passes it header-unsafe values", async () => {
    const ok = await send(server.url + "/x", { headers: { origin: "https://a.trusted.test" } });
    assert.equal(ok.headers["access-control-allow-origin"], "https://a.trusted.test");
    const no = await send(server.url + "/x", { headers: { origin: "https://a.trusted.test.evil" } });
    assert.equal(no.headers["access-control-allow-origin"], undefined);
    const list = await send(server.url + "/x", { headers: { origin: "https://x.test, https://a.trusted.test" } });
    assert.equal(list.headers["access-control-allow-origin"], undefined);
    assert.deepEqual(seen, ["https://a.trusted.test", "https://a.trusted.test.evil"]);
  });
});

describe("cors() configuration and addVary", () => {
  it("refuses origins with paths and invalid header names", () => {
    assert.throws(() => cors({ origin: "https://a.example/path" }), TypeError);
    assert.throws(() => cors({ origin: "not an origin" }), TypeError);
    assert.throws(() => cors({ origin: [] }), TypeError);
    assert.throws(() => cors({ origin: A, allowHeaders: ["x\r\ny"] }), TypeError);
    assert.throws(() => cors({ origin: A, methods: ["GET POST"] }), TypeError);
    assert.throws(() => cors({ origin: A, maxAge: -1 }), TypeError);
  });

  it("adds Vary tokens once, case-insensitively, and leaves Vary: * alone", () => {
    const r = new Reply(200, null, { vary: "Accept-Encoding" });
    addVary(r, "Origin");
    addVary(r, "origin");
    assert.equal(r.headers["vary"], "Accept-Encoding, Origin");
    const star = new Reply(200, null, { vary: "*" });
    addVary(star, "Origin");
    assert.equal(star.headers["vary"], "*");
    const arr = new Reply(200, null);
    arr.appendHeader("vary", "Accept");
    arr.appendHeader("vary", "Cookie");
    addVary(arr, "Origin");
    assert.equal(arr.headers["vary"], "Accept, Cookie, Origin");
  });
});

describe("cors() defaults and in-process requests", () => {
  it("allows any origin without credentials when called without options", async () => {
    const app = new App({ logger: silentLogger }).layer(cors()).routes(route.get("/x", [], () => "x"));
    const r = await app.inject({ url: "/x", headers: { origin: EVIL } });
    assert.equal(r.headers["access-control-allow-origin"], "*");
    assert.equal(r.headers["access-control-allow-credentials"], undefined);
    const p = await app.inject({ method: "OPTIONS", url: "/x", headers: { origin: EVIL, "access-control-request-method": "PUT", "access-control-request-headers": "x-a" } });
    assert.equal(p.status, 204);
    assert.equal(p.headers["access-control-allow-methods"], "GET, HEAD, PUT, PATCH, POST, DELETE");
    assert.equal(p.headers["access-control-allow-headers"], "x-a");
  });

  it("does not crash on repeated Origin or request-header values (possible through inject)", async () => {
    const app = new App({ logger: silentLogger }).layer(cors({ origin: (o) => o === A })).routes(route.get("/x", [], () => "x"));
    const r = await app.inject({ url: "/x", headers: { origin: [A, A] } });
    assert.equal(r.status, 200);
    assert.equal(r.headers["access-control-allow-origin"], undefined);
  });
});

describe("cors() and the null origin with credentials", () => {
  it("refuses a list containing null when credentials are on, at configuration time", () => {
    assert.throws(() => cors({ origin: [A, "null"], credentials: true }), /origin "null" cannot be combined with credentials/);
    assert.throws(() => cors({ origin: "null", credentials: true }), /origin "null" cannot be combined with credentials/);
    // Without credentials a null origin may be listed (a public API for sandboxed pages).
    assert.doesNotThrow(() => cors({ origin: ["null"] }));
  });

  it("never reflects Origin: null with credentials, even when a predicate accepts it", async () => {
    const app = new App({ logger: silentLogger })
      .layer(cors({ origin: () => true, credentials: true }))
      .route(route.get("/x", [], () => ({ ok: true })));
    const actual = await app.inject({ url: "/x", headers: { origin: "null" } });
    assert.equal(actual.status, 200);
    assert.equal(actual.headers["access-control-allow-origin"], undefined);
    assert.equal(actual.headers["access-control-allow-credentials"], undefined);
    const pre = await app.inject({ method: "OPTIONS", url: "/x", headers: { origin: "null", "access-control-request-method": "POST" } });
    assert.equal(pre.headers["access-control-allow-origin"], undefined);
    // Any real origin is still reflected by the predicate.
    const ok = await app.inject({ url: "/x", headers: { origin: A } });
    assert.equal(ok.headers["access-control-allow-origin"], A);
  });
});
