// The listener seam is public: `listen({ listener })` takes any object with a scheme and a
// create(binding), builds the server with it, and gives that server what every keel server gets
// (the uniform client-error answers, the peer address read at accept, the graceful drain).
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { describe, it } from "node:test";
import { App, DEFAULT_SERVER_LIMITS, route, silentLogger } from "../../lib/index.js";
import { applyServerLimits, serverConstructionOptions, type ConnectionDrain, type Listener, type ListenerBinding } from "../../lib/plugin.js";
import { ERROR_ID, rawExchange, send } from "../support/http.js";

function testApp(): App {
  return new App({ logger: silentLogger }).routes(route.get("/hello", [], () => ({ hello: "world" })));
}

/** A user's own listener: node:http built by hand, recording what it was given. */
function ownListener(scheme: "http" | "https" = "http", drain?: ConnectionDrain): Listener & { bindings: ListenerBinding[]; servers: Server[] } {
  const bindings: ListenerBinding[] = [];
  const servers: Server[] = [];
  return {
    scheme,
    bindings,
    servers,
    create(binding) {
      bindings.push(binding);
      const server = createServer({ ...serverConstructionOptions(binding.limits), ...binding.serverOptions }, binding.handler);
      applyServerLimits(server, binding.limits);
      servers.push(server);
      return drain === undefined ? { server } : { server, drain };
    },
  };
}

describe("listen({ listener })", () => {
  it("serves the app on the server a user's own listener built, given the handler, logger, limits and raw options", async () => {
    const listener = ownListener();
    const app = testApp();
    const server = await app.listen({ port: 0, listener, keepAliveTimeout: 1234, server: { noDelay: true } });
    try {
      assert.equal(listener.bindings.length, 1);
      const [binding] = listener.bindings;
      assert.equal(server.server, listener.servers[0], "ListeningServer.server is the listener's server");
      assert.equal(binding!.handler, app.handler);
      assert.equal(binding!.logger, silentLogger);
      assert.deepEqual(binding!.limits, { ...DEFAULT_SERVER_LIMITS, keepAliveTimeout: 1234 });
      assert.deepEqual(binding!.serverOptions, { noDelay: true });
      assert.equal(binding!.upgradeListener, null, "no WebSocket routes: nothing to take upgrades for");
      assert.equal(server.server.keepAliveTimeout, 1234);
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const r = await send(server.url + "/hello");
      assert.equal(r.status, 200);
      assert.deepEqual(JSON.parse(r.body), { hello: "world" });
    } finally {
      await server.close();
    }
  });

  it("gives the listener's server the uniform client-error answers", async () => {
    const server = await testApp().listen({ port: 0, listener: ownListener() });
    try {
      const raw = await rawExchange(server.port, "GET /hello HTTP/1.1\r\nhost localhost\r\n\r\n");
      assert.match(raw, /^HTTP\/1\.1 400 Bad Request\r\n/);
      const body = JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)) as { error: { type: string }; error_id: string };
      assert.equal(body.error.type, "bad_request");
      assert.match(body.error_id, ERROR_ID);
    } finally {
      await server.close();
    }
  });

  it("takes the URL scheme from the listener", async () => {
    // A TLS-terminating listener would build an https server; the scheme is what the URL says.
    const server = await testApp().listen({ port: 0, listener: ownListener("https") });
    try {
      assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await server.close();
    }
  });

  it("drains through the listener's own ConnectionDrain when it gives one", async () => {
    const calls: string[] = [];
    let server: Server | undefined;
    const drain: ConnectionDrain = {
      begin: () => calls.push("begin"),
      closeIdle: () => {
        calls.push("closeIdle");
        server!.closeIdleConnections();
      },
      closeAll: () => calls.push("closeAll"),
    };
    const listener = ownListener("http", drain);
    const listening = await testApp().listen({ port: 0, listener });
    server = listener.servers[0];
    await listening.close();
    assert.equal(calls[0], "begin");
    assert.ok(calls.includes("closeIdle"), calls.join());
    assert.ok(!calls.includes("closeAll"), "nothing in flight: the deadline is never reached");
  });

  it("refuses a listener that is not one, at listen()", async () => {
    const refused = (err: Error) => err instanceof TypeError && /listen option listener must be an object with scheme/.test(err.message);
    await assert.rejects(testApp().listen({ port: 0, listener: {} as Listener }), refused);
    await assert.rejects(testApp().listen({ port: 0, listener: { scheme: "ftp", create: () => ({ server: createServer() }) } as unknown as Listener }), refused);
  });
});
