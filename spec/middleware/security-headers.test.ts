// securityHeaders() over real sockets: the default set, per-header override and removal,
// replies that bring their own value keep it, 404s are covered, and HSTS only over HTTPS
// (or when configured for a TLS-terminating proxy).
import assert from "node:assert/strict";
import { createServer as createHttpsServer, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { App, html, route, silentLogger, type ListeningServer } from "../../lib/index.js";
import { DEFAULT_CONTENT_SECURITY_POLICY, securityHeaders } from "../../lib/middleware/index.js";
import { send } from "../support/http.js";
import { selfSignedCertificate, type TestCertificate } from "../support/test-certificate.js";

const PAGE_CSP = "default-src 'none'; script-src 'sha256-abc'";

function appWith(layer = securityHeaders()): App {
  return new App({ logger: silentLogger })
    .layer(layer)
    .routes(
      route.get("/hello", [], () => "Hello, World!"),
      route.get("/docs", [], () => html("<p>docs</p>", 200, { "content-security-policy": PAGE_CSP, "x-frame-options": "SAMEORIGIN" })),
    );
}

describe("securityHeaders() defaults", () => {
  let server: ListeningServer;
  before(async () => {
    server = await appWith().listen({ port: 0 });
  });
  after(() => server.close());

  it("sends the default set on plain HTTP, without HSTS", async () => {
    for (const path of ["/hello", "/nowhere"]) {
      const r = await send(server.url + path);
      assert.equal(r.headers["x-content-type-options"], "nosniff");
      assert.equal(r.headers["x-frame-options"], "DENY");
      assert.equal(r.headers["referrer-policy"], "strict-origin-when-cross-origin");
      assert.equal(r.headers["cross-origin-opener-policy"], "same-origin");
      assert.equal(r.headers["cross-origin-resource-policy"], "same-origin");
      assert.equal(r.headers["content-security-policy"], DEFAULT_CONTENT_SECURITY_POLICY);
      assert.equal(r.headers["strict-transport-security"], undefined);
      assert.equal(r.headers["cross-origin-embedder-policy"], undefined);
    }
  });

  it("keeps a header the reply already has (a docs page with its own CSP)", async () => {
    const r = await send(server.url + "/docs");
    assert.equal(r.headers["content-security-policy"], PAGE_CSP);
    assert.equal(r.headers["x-frame-options"], "SAMEORIGIN");
    assert.equal(r.headers["x-content-type-options"], "nosniff");
  });
});

describe("securityHeaders() configured", () => {
  let server: ListeningServer;
  before(async () => {
    server = await appWith(
      securityHeaders({
        frameOptions: false,
        contentSecurityPolicy: "default-src 'none'",
        crossOriginResourcePolicy: "cross-origin",
        hsts: { always: true, maxAge: 60, includeSubDomains: false, preload: true },
        extra: { "Permissions-Policy": "camera=()", "X-Content-Type-Options": "nosniff" },
      }),
    ).listen({ port: 0 });
  });
  after(() => server.close());

  it("replaces, removes and adds headers; HSTS always when asked", async () => {
    const r = await send(server.url + "/hello");
    assert.equal(r.headers["x-frame-options"], undefined);
    assert.equal(r.headers["content-security-policy"], "default-src 'none'");
    assert.equal(r.headers["cross-origin-resource-policy"], "cross-origin");
    assert.equal(r.headers["permissions-policy"], "camera=()");
    assert.equal(r.headers["strict-transport-security"], "max-age=60; preload");
  });

  it("refuses values that could break the header block", () => {
    assert.throws(() => securityHeaders({ contentSecurityPolicy: "a\r\nset-cookie: x=1" }), TypeError);
    assert.throws(() => securityHeaders({ extra: { "bad name": "x" } }), TypeError);
    assert.throws(() => securityHeaders({ referrerPolicy: "" }), TypeError);
    assert.throws(() => securityHeaders({ hsts: { maxAge: -5 } }), TypeError);
  });
});

describe("securityHeaders() over HTTPS", () => {
  it("sends Strict-Transport-Security on TLS requests", async (t) => {
    let pem: TestCertificate;
    try {
      pem = selfSignedCertificate();
    } catch {
      t.skip("openssl not available to make a test certificate");
      return;
    }
    const app = appWith();
    app.compile();
    const server = createHttpsServer(pem, app.handler);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const hsts = await new Promise<string | undefined>((resolve, reject) => {
        const req = httpsRequest({ host: "127.0.0.1", port, path: "/hello", rejectUnauthorized: false, agent: false }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.headers["strict-transport-security"] as string | undefined));
        });
        req.on("error", reject);
        req.end();
      });
      assert.equal(hsts, "max-age=15552000; includeSubDomains");
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
