// The probe routes over real sockets: /live, /ready (checks, failure, draining), /health,
// custom paths, OpenAPI tagging.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, silentLogger, type ListeningServer } from "../../lib/index.js";
import { buildOpenApiDocument } from "../../lib/openapi/index.js";
import { HealthChecks } from "../../lib/service/index.js";
import { probeRoutes, type ProbeOptions } from "../../lib/service/index.js";
import { send } from "../support/http.js";

async function serve(options: Partial<ProbeOptions> & { checks?: HealthChecks } = {}): Promise<{ server: ListeningServer; app: App }> {
  const app = new App({ logger: silentLogger }).routes(probeRoutes({ service: "billing", version: "2.0.1", ...options }));
  return { app, server: await app.listen({ port: 0 }) };
}

const ADMIN_TOKEN = "probe-admin-token-0123456789";

const json = (body: string): Record<string, unknown> => JSON.parse(body) as Record<string, unknown>;

describe("probes", () => {
  it("GET /live is 200 {status: ok}, not cacheable", async () => {
    const { server } = await serve();
    const r = await send(server.url + "/live");
    await server.close();
    assert.equal(r.status, 200);
    assert.deepEqual(json(r.body), { status: "ok" });
    assert.equal(r.headers["content-type"], "application/json");
    assert.equal(r.headers["cache-control"], "no-store");
  });

  it("GET /ready is 200 with the checks when all pass", async () => {
    const checks = new HealthChecks().add("db", () => true).add("cache", async () => undefined);
    const { server } = await serve({ checks });
    const r = await send(server.url + "/ready");
    await server.close();
    assert.equal(r.status, 200);
    const body = json(r.body) as { status: string; checks: Record<string, { status: string }> };
    assert.equal(body.status, "ready");
    assert.equal(body.checks["db"]?.status, "ok");
    assert.equal(body.checks["cache"]?.status, "ok");
  });

  it("a failing readiness check gives 503 unready with its error (to the admin token's bearer)", async () => {
    const checks = new HealthChecks().add("db", () => Promise.reject(new Error("connection refused (db:5432)"))).add("cache", () => true);
    const { server } = await serve({ checks, adminToken: ADMIN_TOKEN });
    const ready = await send(server.url + "/ready", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const health = await send(server.url + "/health", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    await server.close();
    assert.equal(ready.status, 503);
    const body = json(ready.body) as { status: string; checks: Record<string, { status: string; error?: string }> };
    assert.equal(body.status, "unready");
    assert.deepEqual({ status: body.checks["db"]?.status, error: body.checks["db"]?.error }, { status: "fail", error: "connection refused (db:5432)" });
    assert.equal(body.checks["cache"]?.status, "ok");
    assert.equal(health.status, 503);
    assert.equal(json(health.body)["status"], "fail");
  });

  it("without the admin token a failing check shows its name, status and a generic reason, never the message", async () => {
    const checks = new HealthChecks()
      .add("redis", () => Promise.reject(new Error("Redis at 10.1.2.3:16391 is not connected (ECONNREFUSED)")))
      .add("search", () => ({ status: "degraded", error: "replica search-2.internal:9200 lags" }), { critical: false })
      .add("cache", () => true);
    for (const options of [{}, { adminToken: ADMIN_TOKEN }] as const) {
      const { server } = await serve({ checks, ...options });
      const asked = [
        await send(server.url + "/ready"),
        await send(server.url + "/health"),
        await send(server.url + "/health", { headers: { authorization: "Bearer wrong-token-wrong-token" } }),
        await send(server.url + "/ready", { headers: { authorization: ADMIN_TOKEN } }),
      ];
      await server.close();
      for (const r of asked) {
        assert.equal(r.status, 503);
        assert.doesNotMatch(r.body, /10\.1\.2\.3|16391|ECONNREFUSED|search-2|9200/, r.body);
        const body = json(r.body) as { checks: Record<string, { status: string; error?: string }> };
        assert.deepEqual({ status: body.checks["redis"]?.status, error: body.checks["redis"]?.error }, { status: "fail", error: "check failed" });
        assert.deepEqual({ status: body.checks["search"]?.status, error: body.checks["search"]?.error }, { status: "degraded", error: "check degraded" });
        assert.deepEqual(body.checks["cache"]?.status, "ok");
      }
    }
  });

  it("with the admin token (Bearer, or an app's own showDetails) the full message", async () => {
    const checks = new HealthChecks().add("redis", () => Promise.reject(new Error("Redis at 10.1.2.3:16391 is not connected (ECONNREFUSED)")));
    let token: string | undefined;
    const { server } = await serve({ checks, adminToken: () => token, showDetails: (ctx) => ctx.header("x-internal") === "yes" });
    const before = await send(server.url + "/ready", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    token = ADMIN_TOKEN; // set after the routes were built (as production().probeAdminToken does)
    const ready = await send(server.url + "/ready", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const health = await send(server.url + "/health", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const internal = await send(server.url + "/health", { headers: { "x-internal": "yes" } });
    await server.close();
    assert.doesNotMatch(before.body, /10\.1\.2\.3/, "no token set yet: nobody sees the message");
    for (const r of [ready, health, internal]) {
      assert.equal(r.status, 503);
      assert.match(r.body, /Redis at 10\.1\.2\.3:16391 is not connected \(ECONNREFUSED\)/);
    }
    assert.throws(() => probeRoutes({ service: "x", adminToken: "short" }), TypeError);
  });

  it("GET /health reports service, version, uptime and checks; degraded stays 200", async () => {
    const checks = new HealthChecks().add("search", () => "degraded");
    const { server } = await serve({ checks });
    const r = await send(server.url + "/health");
    await server.close();
    assert.equal(r.status, 200);
    const body = json(r.body);
    assert.equal(body["status"], "degraded");
    assert.equal(body["service"], "billing");
    assert.equal(body["version"], "2.0.1");
    assert.ok(typeof body["uptime_s"] === "number" && body["uptime_s"] >= 0);
    assert.deepEqual((body["checks"] as Record<string, { status: string }>)["search"]?.status, "degraded");
  });

  it("GET /health with no checks is ok", async () => {
    const { server } = await serve();
    const r = await send(server.url + "/health");
    await server.close();
    assert.equal(r.status, 200);
    assert.equal(json(r.body)["status"], "ok");
    assert.deepEqual(json(r.body)["checks"], {});
  });

  it("/ready answers 503 draining once shutdown has begun (checks not consulted)", async () => {
    let calls = 0;
    const checks = new HealthChecks({ cacheMs: 0 }).add("db", () => {
      calls++;
      return true;
    });
    const { app, server } = await serve({ checks });
    app.runtime.draining = true; // what listen's drain does first
    const r = await send(server.url + "/ready");
    const live = await send(server.url + "/live");
    app.runtime.draining = false;
    await server.close();
    assert.equal(r.status, 503);
    assert.deepEqual(json(r.body), { status: "draining" });
    assert.equal(calls, 0);
    assert.equal(live.status, 200, "still alive while draining");
  });

  it("paths are configurable and probes can be left out", async () => {
    const { server } = await serve({ paths: { live: "/healthz/live", ready: "/healthz/ready", health: false } });
    const live = await send(server.url + "/healthz/live");
    const ready = await send(server.url + "/healthz/ready");
    const oldLive = await send(server.url + "/live");
    const health = await send(server.url + "/health");
    await server.close();
    assert.equal(live.status, 200);
    assert.equal(ready.status, 200);
    assert.equal(oldLive.status, 404);
    assert.equal(health.status, 404);
    assert.throws(() => probeRoutes({ service: "x", paths: { live: "live" } }), /must start with/);
  });

  it("probes are in the OpenAPI document under tag health, with response schemas", () => {
    const routes = probeRoutes({ service: "x" });
    assert.deepEqual(routes.map((r) => [r.method, r.path, r.meta.tag]), [
      ["GET", "/live", "health"],
      ["GET", "/ready", "health"],
      ["GET", "/health", "health"],
    ]);
    const doc = buildOpenApiDocument(routes) as unknown as { paths: Record<string, { get: { tags?: string[]; summary?: string; responses: Record<string, unknown> } }> };
    for (const p of ["/live", "/ready", "/health"]) {
      const op = doc.paths[p]?.get;
      assert.ok(op, `${p} documented`);
      assert.deepEqual(op.tags, ["health"]);
      assert.ok(op.summary);
      assert.ok(op.responses["200"], `${p} documents 200`);
    }
    assert.ok(doc.paths["/ready"]!.get.responses["503"], "/ready documents 503");
  });
});
