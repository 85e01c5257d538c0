// Response contracts reach their compilers through a slot that `t`, the schema extractors and
// keel/schema fill (lib/schema/contract-compilers.ts), so an app that declares no schema carries
// no serializer or validator. This file builds no schema before the first test: a route that
// declares a raw JSON Schema response with nothing loaded is refused at registration, never
// served without its contract. (node:test runs each file in its own process.)
import assert from "node:assert/strict";
import { it } from "node:test";
import { App, route, silentLogger, t } from "../../lib/index.js";

const rawUser = { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } as const;

function userRoute() {
  return route.get("/user", { responses: { 200: rawUser } }, [], () => ({ id: 1, password: "secret" }) as { id: number });
}

it("a declared response schema with no schema compiler loaded is refused at registration, naming what to load", () => {
  const app = new App({ logger: silentLogger });
  assert.throws(
    () => app.route(userRoute()),
    (err: Error) => err instanceof TypeError && /GET \/user: response 200 declares a schema but no schema compiler is loaded/.test(err.message) && /keel\/schema/.test(err.message) && /\bt\b/.test(err.message),
  );
  // A route without response schemas needs nothing.
  assert.doesNotThrow(() => new App({ logger: silentLogger }).route(route.get("/plain", [], () => "ok")));
});

it("once t has built a schema, the same raw response schema is a contract: no leaked field", async () => {
  t.string();
  const app = new App({ logger: silentLogger }).route(userRoute());
  const r = await app.inject({ url: "/user" });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json(), { id: 1 });
});
