// adminAccessLayers: no configuration, no admin routes; a token is checked in constant time and
// refused with the uniform 401; a short token is refused at startup; app layers are used as given.
import assert from "node:assert/strict";
import { it } from "node:test";
import { App, route, silentLogger, type Layer } from "../../lib/index.js";
import { adminAccessLayers } from "../../lib/shared/admin-access.js";

it("is null without a token or layers, and refuses a short token", () => {
  assert.equal(adminAccessLayers({}, "insight"), null);
  assert.throws(() => adminAccessLayers({ adminToken: "short" }, "insight"), /insight: adminToken must be a string of at least 16 characters/);
});

it("lets the right bearer token through and answers anything else with the uniform 401", async () => {
  const layers = adminAccessLayers({ adminToken: "0123456789abcdef-admin" }, "insight")!;
  const app = new App({ logger: silentLogger }).routes(route.get("/admin/x", { layers }, [], () => "ok"));
  assert.equal((await app.inject({ url: "/admin/x", headers: { authorization: "Bearer 0123456789abcdef-admin" } })).status, 200);
  for (const authorization of [undefined, "Bearer 0123456789abcdef-admiN", "Bearer 0123456789abcdef-admin ", "0123456789abcdef-admin"]) {
    const r = await app.inject({ url: "/admin/x", headers: authorization === undefined ? {} : { authorization } });
    assert.equal(r.status, 401, String(authorization));
    assert.equal(r.json<{ error: { type: string } }>().error.type, "unauthorized");
    assert.equal(r.headers["www-authenticate"], 'Bearer realm="admin"');
  }
});

it("uses the app's own layers, after the token when both are given", async () => {
  const seen: string[] = [];
  const mark: Layer = (ctx, next) => (seen.push("app layer"), next(ctx));
  const layers = adminAccessLayers({ adminToken: "0123456789abcdef-admin", adminLayers: [mark] }, "replay")!;
  assert.equal(layers.length, 2);
  const app = new App({ logger: silentLogger }).routes(route.get("/admin/y", { layers }, [], () => "ok"));
  assert.equal((await app.inject({ url: "/admin/y" })).status, 401);
  assert.deepEqual(seen, [], "the token is checked first");
  assert.equal((await app.inject({ url: "/admin/y", headers: { authorization: "Bearer 0123456789abcdef-admin" } })).status, 200);
  assert.deepEqual(seen, ["app layer"]);
});
