// Graceful shutdown over real sockets.
import assert from "node:assert/strict";
import { Agent, get } from "node:http";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { App, route, silentLogger } from "../../lib/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { send } from "../support/http.js";

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

describe("graceful shutdown", () => {
  it("lets in-flight requests finish, refuses new connections, then resolves", async () => {
    const release = deferred();
    const started = deferred();
    const hooks: string[] = [];
    const app = new App({ logger: silentLogger })
      .route(
        route.get("/slow", [], async () => {
          started.resolve();
          await release.promise;
          return { done: true };
        }),
      )
      .onShutdown(() => {
        hooks.push("ran");
      });
    const controller = new AbortController();
    const server = await app.listen({ port: 0, signal: controller.signal });
    const inflight = send(server.url + "/slow");
    await started.promise;

    controller.abort();
    let closed = false;
    void server.closed.then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(app.runtime.draining, true);
    assert.equal(await canConnect(server.port), false, "new connections are refused while draining");
    assert.equal(closed, false, "not closed while a request is in flight");

    release.resolve();
    const r = await inflight;
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { done: true });
    assert.equal(r.headers["connection"], "close");
    await server.closed;
    assert.deepEqual(hooks, ["ran"]);
  });

  it("closes idle keep-alive connections instead of waiting for them", async () => {
    const app = new App({ logger: silentLogger }).route(route.get("/x", [], () => 1));
    const server = await app.listen({ port: 0 });
    const agent = new Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => {
      const req = get(server.url + "/x", { agent }, (res) => {
        res.resume();
        res.on("end", () => resolve());
      });
      req.on("error", reject);
    });
    // The agent now holds one idle keep-alive socket to the server.
    const t0 = Date.now();
    await server.close();
    assert.ok(Date.now() - t0 < 2000, "idle keep-alive socket did not hold shutdown");
    agent.destroy();
  });

  it("cuts off requests that outlive the deadline and logs how many", async () => {
    const logger = captureLogger(40);
    const started = deferred();
    const app = new App({ logger }).route(
      route.get("/hang", [], async () => {
        started.resolve();
        await new Promise(() => {});
      }),
    );
    const server = await app.listen({ port: 0, shutdownTimeout: 150 });
    const hanging = send(server.url + "/hang").then(
      () => "answered",
      () => "cut off",
    );
    await started.promise;
    const t0 = Date.now();
    await server.close();
    assert.ok(Date.now() - t0 >= 140);
    assert.equal(await hanging, "cut off");
    const rec = logger.records.find((r) => r.msg.includes("deadline"));
    assert.ok(rec, "the cut-off was logged");
    assert.equal(rec.fields["connections"], 1);
  });

  it("a shutdown promise works like a signal", async () => {
    const trigger = deferred();
    const app = new App({ logger: silentLogger }).route(route.get("/x", [], () => 1));
    const server = await app.listen({ port: 0, shutdown: trigger.promise });
    assert.equal((await send(server.url + "/x")).status, 200);
    trigger.resolve();
    await server.closed;
    assert.equal(await canConnect(server.port), false);
  });
});
