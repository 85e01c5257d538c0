// A schema extractor fills the response contracts' compiler slot (as `t` and keel/schema do): an
// app of raw JSON Schemas that validates a body gets its response contracts with nothing else.
// This file builds no `t` schema. (node:test runs each file in its own process.)
import assert from "node:assert/strict";
import { it } from "node:test";
import { App, json, route, silentLogger } from "../../lib/index.js";

it("json(rawSchema) loads the compilers: a raw response schema declared beside it is a contract", async () => {
  const body = { type: "object", properties: { name: { type: "string" } }, required: ["name"] } as const;
  const out = { type: "object", properties: { name: { type: "string" } }, required: ["name"] } as const;
  const app = new App({ logger: silentLogger }).route(
    route.post("/echo", { responses: { 200: out } }, [json(body)], (b) => ({ ...(b as { name: string }), secret: "x" }) as { name: string }),
  );
  const r = await app.inject({ method: "POST", url: "/echo", body: { name: "a" } });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json(), { name: "a" });
  assert.equal((await app.inject({ method: "POST", url: "/echo", body: {} })).status, 422);
});
