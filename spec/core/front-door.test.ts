// One front door (lib/server/read-target.ts, App.contextFor): the request target, the HTTP
// version and Host are checked once, the same way for a request from node:http, an upgrade
// request and app.inject(), so a test through inject sees what a client on the wire sees.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, route, silentLogger, type Layer, type ListeningServer } from "../../lib/index.js";
import { websockets } from "../../lib/ws/index.js";
import { rawExchange } from "../support/http.js";

function parse(raw: string): { status: number; message: string | undefined } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
  const body = raw.slice(raw.indexOf("\r\n\r\n") + 4);
  let message: string | undefined;
  try {
    message = (JSON.parse(body) as { error?: { message?: string } }).error?.message;
  } catch {
    message = undefined;
  }
  return { status, message };
}

const UPGRADE = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";

describe("one front door for the wire, upgrades and inject", () => {
  const app = new App({ logger: silentLogger })
    .route(route.get("/s", [], () => "ok"))
    .route(route.ws("/ws", [], (ws) => ws.close(1000, "bye")))
    .register(websockets());
  let server: ListeningServer;
  before(async () => {
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  const cases: Array<[string, string, string, number, string]> = [
    ["an invalid Host", "/s", "a.example/admin", 400, "Invalid Host header"],
    ["a Host with userinfo", "/s", "user@a.example", 400, "Invalid Host header"],
    ["a target with a fragment", "/s#frag", "a.example", 400, "Invalid request target"],
    ["an absolute-form target with userinfo", "http://user@a.example/s", "a.example", 400, "Invalid request target"],
    ["an absolute-form target", "http://a.example/s", "a.example", 200, "ok"],
  ];
  for (const [name, target, host, status, message] of cases) {
    it(`${name}: ${status} on the wire, through an upgrade request and through inject`, async () => {
      const wire = parse(await rawExchange(server.port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
      const injected = await app.inject({ url: target, headers: { host } });
      assert.equal(wire.status, status);
      assert.equal(injected.status, status);
      if (status === 200) {
        assert.equal(injected.json(), message);
      } else {
        assert.equal(wire.message, message);
        assert.equal((injected.json() as { error: { message: string } }).error.message, message);
        const wsTarget = target.replace("/s", "/ws");
        const upgrade = parse(await rawExchange(server.port, `GET ${wsTarget} HTTP/1.1\r\nHost: ${host}\r\n${UPGRADE}\r\n`));
        assert.equal(upgrade.status, status, "upgrade request");
        assert.equal(upgrade.message, message, "upgrade request");
      }
    });
  }

  it("inject sends a Host as a client does (localhost unless given)", async () => {
    const echoHost: Layer = async (ctx, next) => {
      const reply = await next(ctx);
      reply.headers["x-host"] = String(ctx.req.headers.host);
      return reply;
    };
    const echo = new App({ logger: silentLogger }).route(route.get("/host", { layers: [echoHost] }, [], () => "x"));
    assert.equal((await echo.inject({ url: "/host" })).headers["x-host"], "localhost");
    assert.equal((await echo.inject({ url: "/host", headers: { Host: "api.example:8443" } })).headers["x-host"], "api.example:8443");
  });

  it("an upgrade request with a valid target and Host is upgraded", async () => {
    const raw = await rawExchange(server.port, `GET /ws HTTP/1.1\r\nHost: a.example\r\n${UPGRADE}\r\n`);
    assert.match(raw, /^HTTP\/1\.1 101 /);
  });
});
