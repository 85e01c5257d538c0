// How features attach to an app without the kernel knowing them: `register(plugin)` and
// `onListen(hook)`; and the docs plugin's startup check built on them.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { describe, it } from "node:test";
import { App, route, silentLogger, t, type Layer } from "../../lib/index.js";
import { docs, openApiDocument } from "../../lib/openapi/index.js";

/** A port nobody listens on right now (to prove a failed start bound nothing). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe("plugins and startup hooks", () => {
  it("register(plugin) runs the plugin on the app once and returns the app for chaining", async () => {
    const seen: App[] = [];
    const tag: Layer = async (ctx, next) => {
      const reply = await next(ctx);
      reply.headers["x-plugin"] = "on";
      return reply;
    };
    const app = new App({ logger: silentLogger });
    const returned = app.register((a) => {
      seen.push(a);
      a.layer(tag).routes(route.get("/from-plugin", [], () => "hi"));
    });
    assert.equal(returned, app);
    assert.deepEqual(seen, [app]);
    const r = await app.inject({ url: "/from-plugin" });
    assert.equal(r.status, 200);
    assert.equal(r.headers["x-plugin"], "on");
  });

  it("register(feature) also takes an object with a register(app) method (how production() installs)", async () => {
    const seen: App[] = [];
    const feature = {
      register(a: App) {
        seen.push(a);
        a.routes(route.get("/from-object", [], () => "hi"));
      },
    };
    const app = new App({ logger: silentLogger });
    assert.equal(app.register(feature), app);
    assert.deepEqual(seen, [app]);
    assert.equal((await app.inject({ url: "/from-object" })).status, 200);
  });

  it("onListen hooks run in order when listen() starts, after routes are compiled, not at inject time", async () => {
    const order: string[] = [];
    const app = new App({ logger: silentLogger })
      .routes(route.get("/x", [], () => 1))
      .onListen((a) => order.push(`first:${a.routeTable().length}`))
      .onListen(() => order.push("second"));
    await app.inject({ url: "/x" });
    assert.deepEqual(order, []);
    const server = await app.listen({ port: 0 });
    assert.deepEqual(order, ["first:1", "second"]);
    await server.close();
  });

  it("a throwing onListen hook rejects listen() and binds no port", async () => {
    const port = await freePort();
    const app = new App({ logger: silentLogger }).onListen(() => {
      throw new Error("startup check failed");
    });
    const started = app.listen({ port });
    assert.ok(started instanceof Promise, "listen() reports the failure through its promise");
    await assert.rejects(started, /startup check failed/);
    const probe = createServer();
    await new Promise<void>((resolve, reject) => probe.once("error", reject).listen(port, "127.0.0.1", resolve));
    await new Promise<void>((r) => probe.close(() => r()));
  });

  it("docs(): a dangling $ref fails listen(), not the first visitor; openApiDocument(app) uses the mounted options", async () => {
    // A JSON response schema is compiled at registration, so its dangling $ref fails there; one the
    // app does not write itself (another media type) is only in the document: listen() checks it.
    assert.throws(() => new App({ logger: silentLogger }).route(route.get("/x", { responses: { 200: t.ref("Ghost") } }, [], () => ({}) as never)), /Ghost/);
    const broken = new App({ logger: silentLogger })
      .routes(route.get("/x", { responses: { 200: { description: "XML", schema: t.ref("Ghost"), contentType: "application/xml" } } }, [], () => ({}) as never))
      .register(docs("/docs"));
    await assert.rejects(broken.listen({ port: 0 }), /Ghost/);

    const app = new App({ logger: silentLogger }).routes(route.get("/y", [], () => 1)).register(docs("/api-docs", { title: "Mounted" }));
    assert.equal(openApiDocument(app).info.title, "Mounted");
    const page = await app.inject({ url: "/api-docs" });
    assert.equal(page.status, 200);
    assert.equal((await app.inject({ url: "/api-docs/openapi.json" })).json<{ info: { title: string } }>().info.title, "Mounted");
  });
});
