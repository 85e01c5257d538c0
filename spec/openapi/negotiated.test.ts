// OpenAPI entries for TOON: negotiated responses list both media types; TOON bodies list
// application/toon in requestBody.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, created, route, silentLogger, t } from "../../lib/index.js";
import { docs, openApiDocument } from "../../lib/openapi/index.js";
import { toon } from "../../lib/toon/index.js";

describe("openapi: TOON", () => {
  const Item = t.object({ id: t.integer(), name: t.string() });
  const app = new App({ logger: silentLogger })
    .routes(
      route.get("/items", { responses: { 200: t.array(Item) }, config: { negotiated: true } }, [], () => []),
      route.get("/plain", { responses: { 200: t.array(Item) } }, [], () => []),
      route.post("/items", { responses: { 201: Item } }, [toon(t.array(Item))], () => created({ id: 1, name: "x" })),
    )
    .register(docs());
  const doc = () => openApiDocument(app);

  it("negotiated operations list JSON and TOON, the negotiation headers and a 406", () => {
    const get = doc().paths["/items"]?.get;
    assert.deepEqual(Object.keys(get?.responses["200"]?.content ?? {}), ["application/json", "application/toon"]);
    assert.ok(get?.responses["200"]?.headers?.["x-token-savings"]);
    assert.ok(get?.responses["406"]);
    const plain = doc().paths["/plain"]?.get;
    assert.deepEqual(Object.keys(plain?.responses["200"]?.content ?? {}), ["application/json"]);
    assert.equal(plain?.responses["406"], undefined);
  });

  it("TOON body routes list application/toon in requestBody", () => {
    const post = doc().paths["/items"]?.post;
    assert.deepEqual(Object.keys(post?.requestBody?.content ?? {}), ["application/toon", "text/toon"]);
  });
});
