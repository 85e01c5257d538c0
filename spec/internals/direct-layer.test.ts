// Direct layers (lib/core/chain.ts): a layer that gets the inner chain itself, so a route that
// answers synchronously stays free of promises through it (metrics and the access log use it).
import assert from "node:assert/strict";
import { it } from "node:test";
import { composeLayers, directLayer } from "../../lib/core/chain.js";
import { Context } from "../../lib/core/context.js";
import { App, reply, route, silentLogger } from "../../lib/index.js";
import { Reply } from "../../lib/core/reply.js";

const ctx = {} as Context;

it("composed, a direct layer passes a synchronous answer through synchronously", () => {
  const seen: string[] = [];
  const layer = directLayer((c, next) => {
    const r = next(c);
    seen.push(r instanceof Promise ? "promise" : "reply");
    return r;
  });
  const chain = composeLayers([layer], () => new Reply(200, "ok", {}));
  const out = chain(ctx);
  assert.ok(out instanceof Reply, "no promise on the synchronous path");
  assert.deepEqual(seen, ["reply"]);
});

it("composed, a direct layer sees a promise when the inner chain is asynchronous, and what it returns is the answer", async () => {
  const layer = directLayer((c, next) => {
    const r = next(c);
    return r instanceof Promise ? r.then((x) => (x.headers["x-direct"] = "1", x)) : r;
  });
  const out = composeLayers([layer], async () => new Reply(201, "later", {}))(ctx);
  assert.ok(out instanceof Promise);
  const r = await out;
  assert.equal(r.status, 201);
  assert.equal(r.headers["x-direct"], "1");
});

it("called as a plain Layer (not through composeLayers), it returns a promise", async () => {
  const layer = directLayer((c, next) => next(c));
  const out = layer(ctx, () => Promise.resolve(new Reply(204, null, {})));
  assert.ok(out instanceof Promise);
  assert.equal((await out).status, 204);
});

it("a direct layer that throws answers the uniform 500 like any layer", async () => {
  const app = new App({ logger: silentLogger });
  app.layer(directLayer(() => {
    throw new Error("boom");
  }));
  app.route(route.get("/x", [], () => reply(200, "x")));
  const res = await app.inject({ method: "GET", url: "/x" });
  assert.equal(res.status, 500);
  assert.equal(res.json<{ error: { type: string } }>().error.type, "internal_error");
});
