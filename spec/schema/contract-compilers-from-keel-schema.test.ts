// Importing keel/schema fills the response contracts' compiler slot (besides registering its
// engine): raw JSON Schema responses are contracts with no `t` and no extractor in sight.
// (node:test runs each file in its own process.)
import assert from "node:assert/strict";
import { it } from "node:test";
import { App, route, silentLogger } from "../../lib/index.js";
import "../../lib/json-schema/index.js";

it("a raw response schema is a contract once keel/schema is imported", async () => {
  const out = { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } as const;
  const app = new App({ logger: silentLogger }).route(route.get("/u", { responses: { 200: out } }, [], () => ({ id: 7, hash: "h" }) as { id: number }));
  const r = await app.inject({ url: "/u" });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json(), { id: 7 });
});
