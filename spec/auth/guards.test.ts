// requireRole / requirePermission over a real socket: 200 with the role, 403 `forbidden`
// without it (with the RFC 6750 insufficient_scope challenge for bearer tokens), 401 when
// anonymous, configurable claims (nested paths, any/all), and principals from apiKey().
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, route, silentLogger, type ListeningServer } from "../../lib/index.js";
import { signJwt } from "../../lib/jose/index.js";
import { jwt } from "../../lib/auth/index.js";
import { apiKey } from "../../lib/auth/index.js";
import { requirePermission, requireRole } from "../../lib/auth/index.js";
import { send } from "../support/http.js";

const SECRET = "a-test-secret-that-is-at-least-32-bytes-long";
const auth = jwt({ algorithms: ["HS256"], key: SECRET });
const tok = (claims: Record<string, unknown>): Record<string, string> => ({
  authorization: "Bearer " + signJwt(claims, { algorithm: "HS256", key: SECRET, subject: "u1", expiresIn: 300 }),
});

describe("guards", () => {
  let server: ListeningServer;
  before(async () => {
    const layers = [auth];
    const app = new App({ logger: silentLogger }).routes(
      route.delete("/admin", { layers }, [requireRole<{ role: string }>("admin")], (c) => ({ sub: c.sub, role: c.role })),
      route.get("/staff", { layers }, [requireRole(["admin", "ops"])], () => "ok"),
      route.get("/both", { layers }, [requireRole(["admin", "ops"], { match: "all" })], () => "ok"),
      route.get("/kc", { layers }, [requireRole("admin", { claims: [["realm_access", "roles"]] })], () => "ok"),
      route.get("/read", { layers }, [requirePermission("items:read")], () => "ok"),
      route.get("/rw", { layers }, [requirePermission(["items:read", "items:write"])], () => "ok"),
      route.get("/groups", { layers }, [requirePermission("eng", { claims: ["groups"], splitStrings: false })], () => "ok"),
      route.get("/svc", { layers: [apiKey({ keys: [{ key: "k".repeat(32), claims: { sub: "svc", roles: ["reporter"] } }] })] }, [requireRole("admin")], () => "ok"),
      route.get("/svc-ok", { layers: [apiKey({ keys: [{ key: "k".repeat(32), claims: { sub: "svc", roles: ["reporter"] } }] })] }, [requireRole("reporter")], (c) => c.sub),
      route.get("/nolayer", [requireRole("admin")], () => "ok"),
    );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  const status = async (path: string, headers: Record<string, string> = {}, method = "GET") => (await send(server.url + path, { method, headers })).status;

  it("lets the role through and hands over the claims", async () => {
    const r = await send(server.url + "/admin", { method: "DELETE", headers: tok({ role: "admin" }) });
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { sub: "u1", role: "admin" });
    assert.equal(await status("/admin", tok({ roles: ["user", "admin"] }), "DELETE"), 200);
    assert.equal(await status("/admin", tok({ roles: "admin" }), "DELETE"), 200);
  });

  it("answers 403 forbidden with insufficient_scope when the role is missing", async () => {
    for (const claims of [{ role: "user" }, { roles: ["user"] }, {}, { role: "admin user" }, { role: ["Admin"] }, { role: 1 }, { roles: [{ admin: true }] }]) {
      const r = await send(server.url + "/admin", { method: "DELETE", headers: tok(claims) });
      assert.equal(r.status, 403, JSON.stringify(claims));
      const body = JSON.parse(r.body) as { error: { type: string } };
      assert.equal(body.error.type, "forbidden");
      assert.equal(r.headers["www-authenticate"], 'Bearer realm="api", error="insufficient_scope"');
    }
  });

  it("answers 401 when not authenticated at all", async () => {
    const r = await send(server.url + "/admin", { method: "DELETE" });
    assert.equal(r.status, 401);
    assert.equal(r.headers["www-authenticate"], 'Bearer realm="api"');
  });

  it("matches any listed role by default, all of them with match: all", async () => {
    assert.equal(await status("/staff", tok({ role: "ops" })), 200);
    assert.equal(await status("/staff", tok({ role: "user" })), 403);
    assert.equal(await status("/both", tok({ roles: ["ops"] })), 403);
    assert.equal(await status("/both", tok({ roles: ["ops", "admin"] })), 200);
  });

  it("reads nested claims through a path, never through the prototype", async () => {
    assert.equal(await status("/kc", tok({ realm_access: { roles: ["admin"] } })), 200);
    assert.equal(await status("/kc", tok({ realm_access: { roles: ["user"] } })), 403);
    assert.equal(await status("/kc", tok({ role: "admin" })), 403);
    assert.throws(() => requireRole("admin", { claims: [["__proto__", "roles"]] }), TypeError);
  });

  it("reads permissions from space-separated scope and permission arrays; all are needed by default", async () => {
    assert.equal(await status("/read", tok({ scope: "openid items:read" })), 200);
    assert.equal(await status("/read", tok({ permissions: ["items:read"] })), 200);
    assert.equal(await status("/read", tok({ permissions: "items:read items:write" })), 200);
    assert.equal(await status("/read", tok({ scope: "items:readx" })), 403);
    assert.equal(await status("/rw", tok({ scope: "items:read" })), 403);
    assert.equal(await status("/rw", tok({ scope: "items:write", permissions: ["items:read"] })), 200);
    assert.equal(await status("/groups", tok({ groups: ["eng"] })), 200);
    assert.equal(await status("/groups", tok({ groups: "eng ops" })), 403);
  });

  it("works with API-key principals (403 without a Bearer challenge)", async () => {
    const key = { "x-api-key": "k".repeat(32) };
    const r = await send(server.url + "/svc", { headers: key });
    assert.equal(r.status, 403);
    assert.equal(r.headers["www-authenticate"], undefined);
    const ok = await send(server.url + "/svc-ok", { headers: key });
    assert.equal(ok.status, 200);
    assert.equal(ok.body, '"svc"');
    assert.equal(await status("/svc-ok"), 401);
  });

  it("is a wiring error (500) on a route no authentication layer covers", async () => {
    assert.equal(await status("/nolayer", tok({ role: "admin" })), 500);
  });

  it("refuses empty configurations at startup", () => {
    assert.throws(() => requireRole([]), TypeError);
    assert.throws(() => requireRole(""), TypeError);
    assert.throws(() => requirePermission("x", { claims: [] }), TypeError);
    assert.throws(() => requirePermission("x", { match: "most" as "any" }), TypeError);
  });

  it("documents itself for OpenAPI", () => {
    assert.deepEqual(requireRole("admin").doc, {
      security: ["bearerAuth"],
      errorStatuses: [401, 403],
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
    });
    // A custom security name is the application's to register.
    assert.deepEqual(requireRole("admin", { security: ["oidc"] }).doc, { security: ["oidc"], errorStatuses: [401, 403] });
  });
});
