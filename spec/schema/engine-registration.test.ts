// Importing keel/schema registers the full engine with the kernel: the schemas the kernel alone
// refuses (spec/schema/kernel-engine.test.ts) then compile wherever schemas compile: extractors,
// response contracts and keel/plugin's compileSchema.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, json, query, route, t } from "../../lib/index.js";
import { compileSchema as compileInKernel } from "../../lib/plugin.js";
import "../../lib/json-schema/index.js";

describe("keel/schema registered", () => {
  it("extractors compile $ref into $defs, unevaluatedProperties and long-tail formats", async () => {
    const app = new App().routes(
      route.post("/ref", {}, [json({ type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: { type: "string" } } })], (b) => b),
      route.post("/closed", {}, [json({ type: "object", properties: { id: { type: "integer" } }, unevaluatedProperties: false })], (b) => b),
      route.get("/wait", {}, [query(t.object({ d: t.string({ format: "duration" }) }))], (q) => q),
    );
    const post = (url: string, body: unknown) => app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    assert.equal((await post("/ref", { a: "x" })).status, 200);
    assert.equal((await post("/ref", { a: 1 })).status, 422);
    assert.equal((await post("/closed", { id: 1 })).status, 200);
    assert.equal((await post("/closed", { id: 1, extra: true })).status, 422);
    assert.equal((await app.inject({ url: "/wait?d=PT5M" })).status, 200);
    assert.equal((await app.inject({ url: "/wait?d=5 minutes" })).status, 422);
  });

  it("keel/plugin's compileSchema and response contracts use the registered engine", () => {
    assert.deepEqual(compileInKernel({ type: "object", unevaluatedProperties: false }).validate({ a: 1 })?.[0]?.code, "unevaluatedProperties");
    const schema = { type: "object", properties: { id: { type: "integer" } }, unevaluatedProperties: false };
    assert.doesNotThrow(() => new App().route(route.get("/x", { responses: { 200: schema } }, [], () => ({ id: 1 }))));
  });
});
