// Client address: socket peer by default (X-Forwarded-For ignored), the header only through an
// explicit trusted-proxy hop count (and optional proxy allowlist), numeric canonical parsing.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, route, silentLogger, textReply, type Layer, type ListeningServer } from "../../lib/index.js";
import { canonicalIp, clientAddressResolver, ipv6Network, type TrustProxyOptions } from "../../lib/middleware/index.js";
import { send } from "../support/http.js";

/** A layer that answers with the resolved client address. */
function echoAddress(trust?: TrustProxyOptions): Layer {
  const resolve = clientAddressResolver(trust);
  return async (ctx) => textReply(resolve(ctx));
}

describe("client address over a real socket", () => {
  let server: ListeningServer;
  before(async () => {
    const app = new App({ logger: silentLogger }).routes(
      route.get("/peer", { layers: [echoAddress()] }, [], () => "unused"),
      route.get("/one", { layers: [echoAddress({ hops: 1 })] }, [], () => "unused"),
      route.get("/two", { layers: [echoAddress({ hops: 2 })] }, [], () => "unused"),
      route.get("/real", { layers: [echoAddress({ hops: 1, header: "X-Real-IP" })] }, [], () => "unused"),
      route.get("/listed", { layers: [echoAddress({ hops: 1, proxies: ["127.0.0.0/8", "::1"] })] }, [], () => "unused"),
      route.get("/unlisted", { layers: [echoAddress({ hops: 1, proxies: ["10.0.0.0/8"] })] }, [], () => "unused"),
    );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  const get = (path: string, xff?: string, name = "x-forwarded-for") =>
    send(server.url + path, xff === undefined ? {} : { headers: { [name]: xff } }).then((r) => r.body);

  it("uses the socket peer and ignores X-Forwarded-For without a trust setting", async () => {
    assert.equal(await get("/peer"), "127.0.0.1");
    assert.equal(await get("/peer", "6.6.6.6"), "127.0.0.1");
  });

  it("takes the entry `hops` places from the right; client-written entries further left are ignored", async () => {
    assert.equal(await get("/one", "6.6.6.6, 1.1.1.1, 2.2.2.2"), "2.2.2.2");
    assert.equal(await get("/two", "6.6.6.6, 1.1.1.1, 2.2.2.2"), "1.1.1.1");
    assert.equal(await get("/two", "1.1.1.1"), "1.1.1.1");
    assert.equal(await get("/one"), "127.0.0.1");
  });

  it("reads a single-value header when configured", async () => {
    assert.equal(await get("/real", "3.3.3.3", "x-real-ip"), "3.3.3.3");
  });

  it("falls back to the peer when the chosen entry is not a valid IP", async () => {
    for (const bad of ["999.1.1.1", "01.2.3.4", "evil", "1.2.3", "", "0x7f.0.0.1"]) {
      assert.equal(await get("/one", "5.5.5.5, " + bad), "127.0.0.1", bad);
    }
  });

  it("canonicalises spellings of one address", async () => {
    assert.equal(await get("/one", "[2001:DB8::1]:443"), "2001:db8::1");
    assert.equal(await get("/one", "2001:0db8:0000:0000:0000:0000:0000:0001"), "2001:db8::1");
    assert.equal(await get("/one", "::ffff:10.0.0.1"), "10.0.0.1");
    assert.equal(await get("/one", "1.2.3.4:5678"), "1.2.3.4");
  });

  it("reads the header only when the peer is a listed proxy", async () => {
    assert.equal(await get("/listed", "4.4.4.4"), "4.4.4.4");
    assert.equal(await get("/unlisted", "4.4.4.4"), "127.0.0.1");
  });
});

describe("address helpers", () => {
  it("canonicalIp parses numerically", () => {
    assert.equal(canonicalIp("::FFFF:102:304"), "1.2.3.4");
    assert.equal(canonicalIp("fe80::1%eth0"), "fe80::1");
    assert.equal(canonicalIp("256.0.0.1"), null);
    assert.equal(canonicalIp("1.2.3.4.5"), null);
    assert.equal(canonicalIp("[::1"), null);
  });

  it("ipv6Network groups an address by prefix, leaves IPv4 alone", () => {
    assert.equal(ipv6Network("2001:db8:1:2:3:4:5:6", 64), "2001:db8:1:2::/64");
    assert.equal(ipv6Network("2001:db8:1:2::9", 64), "2001:db8:1:2::/64");
    assert.equal(ipv6Network("2001:db8::1", 48), "2001:db8:0::/48");
    assert.equal(ipv6Network("9.9.9.9", 64), "9.9.9.9");
  });

  it("rejects bad trust settings at startup", () => {
    assert.throws(() => clientAddressResolver({ hops: 0 }), /hops/);
    assert.throws(() => clientAddressResolver({ hops: 1, proxies: ["10.0.0.0/40"] }), /prefix/);
    assert.throws(() => clientAddressResolver({ hops: 1, proxies: ["not-an-ip"] }), /not an IP/);
  });
});
