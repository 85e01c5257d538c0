// altSvc(): nothing is advertised unless configured; configured, every answer (errors too) carries
// the RFC 7838 value built once from checked parts; "clear" withdraws earlier advertisements.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, route, silentLogger } from "../../lib/index.js";
import { altSvc } from "../../lib/middleware/index.js";

const routes = [route.get("/hello", [], () => "hi")];

describe("altSvc()", () => {
  it("is absent unless configured", async () => {
    const r = await new App({ logger: silentLogger }).routes(routes).inject({ url: "/hello" });
    assert.equal(r.headers["alt-svc"], undefined);
  });

  it("advertises each service on every answer, 404s included", async () => {
    const app = new App({ logger: silentLogger }).layer(altSvc([{ protocol: "h3", port: 443, maxAge: 86400 }, { protocol: "h3-29", host: "alt.example.com", port: 8443, persist: true }])).routes(routes);
    const want = 'h3=":443"; ma=86400, h3-29="alt.example.com:8443"; persist=1';
    assert.equal((await app.inject({ url: "/hello" })).headers["alt-svc"], want);
    assert.equal((await app.inject({ url: "/nope" })).headers["alt-svc"], want);
  });

  it("clear", async () => {
    const app = new App({ logger: silentLogger }).layer(altSvc("clear")).routes(routes);
    assert.equal((await app.inject({ url: "/hello" })).headers["alt-svc"], "clear");
  });

  it("refuses values that would break the header", () => {
    assert.throws(() => altSvc([]), TypeError);
    assert.throws(() => altSvc([{ protocol: "h3\r\nx: y", port: 443 }]), TypeError);
    assert.throws(() => altSvc([{ protocol: "h3", port: 0 }]), TypeError);
    assert.throws(() => altSvc([{ protocol: "h3", port: 443, host: 'a"b' }]), TypeError);
    assert.throws(() => altSvc([{ protocol: "h3", port: 443, maxAge: -1 }]), TypeError);
  });
});
