// The replay admin routes: list (summaries, filters), get and delete with the admin token; 401 in
// the uniform error body without it; no routes at all when admin access is not configured;
// never in the OpenAPI document; never recorded themselves.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, App, route, silentLogger, type Layer } from "../../lib/index.js";
import { openApiDocument } from "../../lib/openapi/index.js";
import { MemoryReplayStore, replay, type ReplayRecord, type ReplaySummary } from "../../lib/replay/index.js";
import { ERROR_ID } from "../support/http.js";

const TOKEN = "0123456789abcdef-admin";
const AUTH = { authorization: `Bearer ${TOKEN}` };

interface ErrorBody {
  error: { type: string; message: string };
  error_id: string;
}

function adminApp(options: Parameters<typeof replay>[0] = { adminToken: TOKEN }): { app: App; store: MemoryReplayStore } {
  const store = new MemoryReplayStore();
  const app = new App({ logger: silentLogger })
    .register(replay({ store, ...options }))
    .routes(
      route.get("/users/{id}", { tag: "users" }, [], () => ({ ok: true })),
      route.get("/missing", [], () => {
        throw new Error("boom");
      }),
    );
  return { app, store };
}

describe("replay admin routes with an admin token", () => {
  it("lists summaries newest first, filtered by route, status, limit and since", async () => {
    const { app } = adminApp();
    await app.inject({ url: "/users/1" });
    await app.inject({ url: "/missing" });
    await app.inject({ url: "/users/2" });
    const all = await app.inject({ url: "/admin/replays", headers: AUTH });
    assert.equal(all.status, 200);
    const records = all.json<{ records: ReplaySummary[] }>().records;
    assert.deepEqual(records.map((r) => [r.path, r.status, r.route, r.method]), [["/users/2", 200, "/users/{id}", "GET"], ["/missing", 500, "/missing", "GET"], ["/users/1", 200, "/users/{id}", "GET"]]);
    assert.deepEqual(Object.keys(records[0]!).sort(), ["duration_ms", "id", "method", "path", "recorded_at", "route", "status"]);
    const byRoute = await app.inject({ url: "/admin/replays?route=%2Fusers%2F%7Bid%7D&limit=1", headers: AUTH });
    assert.deepEqual(byRoute.json<{ records: ReplaySummary[] }>().records.map((r) => r.path), ["/users/2"]);
    const byStatus = await app.inject({ url: "/admin/replays?status=500", headers: AUTH });
    assert.deepEqual(byStatus.json<{ records: ReplaySummary[] }>().records.map((r) => r.path), ["/missing"]);
    const future = await app.inject({ url: "/admin/replays?since=2999-01-01T00:00:00Z", headers: AUTH });
    assert.deepEqual(future.json<{ records: ReplaySummary[] }>().records, []);
  });

  it("answers bad filters with 422 validation_error in the uniform body (limit 1000 passes, 1001 does not)", async () => {
    const { app } = adminApp();
    assert.equal((await app.inject({ url: "/admin/replays?limit=1000", headers: AUTH })).status, 200);
    for (const q of ["limit=1001", "limit=0", "status=99", "status=abc", "since=yesterday"]) {
      const res = await app.inject({ url: `/admin/replays?${q}`, headers: AUTH });
      assert.equal(res.status, 422, q);
      const body = res.json<ErrorBody>();
      assert.equal(body.error.type, "validation_error", q);
      assert.match(body.error_id, ERROR_ID);
    }
  });

  it("gets one full record and deletes it; unknown ids are 404 not_found", async () => {
    const { app, store } = adminApp();
    await app.inject({ url: "/users/1" });
    const [rec] = await store.list();
    const got = await app.inject({ url: `/admin/replays/${rec!.id}`, headers: AUTH });
    assert.equal(got.status, 200);
    const full = got.json<ReplayRecord>();
    assert.equal(full.id, rec!.id);
    assert.equal(full.request.path, "/users/1");
    assert.equal(full.response.body, '{"ok":true}');
    const del = await app.inject({ method: "DELETE", url: `/admin/replays/${rec!.id}`, headers: AUTH });
    assert.equal(del.status, 204);
    for (const method of ["GET", "DELETE"]) {
      const res = await app.inject({ method, url: `/admin/replays/${rec!.id}`, headers: AUTH });
      assert.equal(res.status, 404, method);
      assert.equal(res.json<ErrorBody>().error.type, "not_found");
      assert.match(res.json<ErrorBody>().error_id, ERROR_ID);
    }
  });

  it("answers 401 unauthorized in the uniform body without the token or with a wrong one", async () => {
    const { app, store } = adminApp();
    await app.inject({ url: "/users/1" });
    const [rec] = await store.list();
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}x` }, { authorization: TOKEN }]) {
      for (const [method, url] of [["GET", "/admin/replays"], ["GET", `/admin/replays/${rec!.id}`], ["DELETE", `/admin/replays/${rec!.id}`]] as const) {
        const res = await app.inject({ method, url, headers });
        assert.equal(res.status, 401, `${method} ${url}`);
        assert.equal(res.json<ErrorBody>().error.type, "unauthorized");
        assert.match(res.json<ErrorBody>().error_id, ERROR_ID);
      }
    }
    assert.notEqual(await store.get(rec!.id), null, "nothing was deleted");
  });

  it("does not record its own admin requests", async () => {
    const { app, store } = adminApp();
    await app.inject({ url: "/admin/replays", headers: AUTH });
    await app.inject({ url: "/admin/replays/x", headers: AUTH });
    assert.equal((await store.list()).length, 0);
  });

  it("serves a custom adminPath (a trailing slash is dropped)", async () => {
    const { app } = adminApp({ adminToken: TOKEN, adminPath: "/ops/recordings/" });
    assert.equal((await app.inject({ url: "/ops/recordings", headers: AUTH })).status, 200);
    assert.equal((await app.inject({ url: "/admin/replays", headers: AUTH })).status, 404);
    assert.throws(() => replay({ adminPath: "/ops/{id}" }), /adminPath/);
    assert.throws(() => replay({ adminPath: "relative" }), /adminPath/);
  });

  it("accepts the app's own admin layers instead of a token", async () => {
    const onlyAdmins: Layer = (ctx, next) => (ctx.header("x-role") === "admin" ? next(ctx) : Promise.reject(ApiError.forbidden("Admins only")));
    const { app } = adminApp({ adminLayers: [onlyAdmins] });
    assert.equal((await app.inject({ url: "/admin/replays", headers: { "x-role": "admin" } })).status, 200);
    const refused = await app.inject({ url: "/admin/replays" });
    assert.equal(refused.status, 403);
    assert.equal(refused.json<ErrorBody>().error.type, "forbidden");
  });
});

describe("replay admin routes without admin access", () => {
  it("registers no admin route at all: 404 with or without a token", async () => {
    const { app, store } = adminApp({});
    await app.inject({ url: "/users/1" });
    assert.equal((await store.list()).length, 1, "recording still works");
    for (const headers of [{}, AUTH]) {
      const res = await app.inject({ url: "/admin/replays", headers });
      assert.equal(res.status, 404);
      assert.equal(res.json<ErrorBody>().error.type, "not_found");
    }
    assert.equal(app.routeTable().some((r) => r.path.startsWith("/admin")), false);
  });

  it("with enabled: false records nothing but still serves the admin routes over the store", async () => {
    const { app, store } = adminApp({ adminToken: TOKEN, enabled: false });
    await app.inject({ url: "/users/1" });
    assert.equal((await store.list()).length, 0);
    assert.equal((await app.inject({ url: "/admin/replays", headers: AUTH })).status, 200);
  });

  it("refuses an admin token shorter than 16 characters", () => {
    assert.throws(() => replay({ adminToken: "short" }), /replay: adminToken must be a string of at least 16 characters/);
  });
});

describe("replay admin routes and OpenAPI", () => {
  it("are hidden from the document while the app's routes are listed", () => {
    const { app } = adminApp();
    const doc = openApiDocument(app) as { paths: Record<string, unknown> };
    assert.ok(doc.paths["/users/{id}"] !== undefined);
    assert.deepEqual(Object.keys(doc.paths).filter((p) => p.startsWith("/admin")), []);
    assert.equal(app.routeTable().filter((r) => r.path.startsWith("/admin/replays")).length, 3);
  });
});
