// The audit() plugin: automatic events for 401s, 403s and admin routes (config { audit: "admin" }
// or the "admin" tag), with the principal's actor, the request id, client address, route pattern
// and method; audit(ctx, ...) from handlers; nothing taken from Authorization headers or bodies;
// metadata credentials redacted; no events for ordinary successes or unrouted requests.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { send } from "../support/http.js";
import { App, ApiError, context, json, route, silentLogger, t, type Context } from "../../lib/index.js";
import { apiKey, requireRole, jwt } from "../../lib/auth/index.js";
import { requestId } from "../../lib/middleware/index.js";
import { audit, auditLog, memoryAuditSink, AUDIT_REDACTED, type AuditLog } from "../../lib/audit/index.js";

const ALICE_KEY = "alice-key-0123456789abcdef";
const BOB_KEY = "bob-key-0123456789abcdefgh";
const SECRET_TOKEN = "eyJhbGciOiJIUzI1NiJ9.secret-token-value.sig";

function build(options: { auto?: boolean } = {}) {
  const sink = memoryAuditSink();
  const log = auditLog({ sink, clock: () => new Date("2024-05-01T12:00:00.000Z") });
  const keys = apiKey({ keys: [{ key: ALICE_KEY, claims: { sub: "alice", roles: ["admin"] } }, { key: BOB_KEY, claims: { sub: "bob", roles: ["user"] } }] });
  const app = new App({ logger: silentLogger })
    .layer(requestId())
    .register(audit({ log, ...(options.auto === undefined ? {} : { auto: options.auto }) }))
    .routes(
      route.get("/public", [], () => ({ ok: true })),
      route.get("/me", { layers: [keys] }, [], () => ({ ok: true })),
      route.delete("/users/{id}", { layers: [keys], config: { audit: "admin" } }, [requireRole("admin")], () => ({ deleted: true })),
      route.post("/settings", { layers: [keys], tags: ["admin"] }, [json(t.object({ password: t.string() }))], () => ({ saved: true })),
      route.post("/flags", { layers: [keys], tag: "admin" }, [], () => {
        throw ApiError.badRequest("bad flag");
      }),
      route.get("/reports", { layers: [keys], tag: "admin", config: { audit: false } }, [], () => ({ ok: true })),
      route.post("/orders/{id}/refund", { layers: [keys], tag: "admin" }, [context()], async (ctx: Context) => {
        await audit(ctx, { action: "order.refund", target: "order:" + ctx.params["id"], outcome: "success", metadata: { amount: 12, Authorization: "Bearer x", nested: { api_key: "k", card: { cvv: "1", password: "p" } } } });
        return { refunded: true };
      }),
      route.get("/jwt", { layers: [jwt({ algorithms: ["HS256"], key: "k".repeat(32) })] }, [], () => ({ ok: true })),
    );
  return { app, log, sink };
}

async function recorded(log: AuditLog, sink: ReturnType<typeof memoryAuditSink>): Promise<Array<Record<string, any>>> {
  await log.flush();
  return sink.lines().map((line) => JSON.parse(line));
}

describe("audit() automatic events", () => {
  it("records a 401 as auth.failed with the request id, route, method, client address and no actor", async () => {
    const { app, log, sink } = build();
    const r = await app.inject({ url: "/me", headers: { "x-api-key": "wrong-key-0123456789abcdef", "x-request-id": "req-401" }, remoteAddress: "203.0.113.9" });
    assert.equal(r.status, 401);
    const [event, ...rest] = await recorded(log, sink);
    assert.equal(rest.length, 0);
    assert.deepEqual(
      { ...event, prev: undefined },
      { seq: 1, time: "2024-05-01T12:00:00.000Z", action: "auth.failed", outcome: "failure", actor: null, target: "/me", request_id: "req-401", route: "/me", method: "GET", client_address: "203.0.113.9", metadata: { status: 401 }, prev: undefined },
    );
  });

  it("records a 403 as access.denied with the principal as actor", async () => {
    const { app, log, sink } = build();
    const r = await app.inject({ method: "DELETE", url: "/users/7", headers: { "x-api-key": BOB_KEY, "x-request-id": "req-403" } });
    assert.equal(r.status, 403);
    const events = await recorded(log, sink);
    assert.equal(events.length, 1, "a denied admin request is one event");
    assert.equal(events[0]!.action, "access.denied");
    assert.equal(events[0]!.outcome, "denied");
    assert.deepEqual(events[0]!.actor, { scheme: "api-key", id: "bob" });
    assert.equal(events[0]!.request_id, "req-403");
    assert.equal(events[0]!.route, "/users/{id}");
    assert.equal(events[0]!.target, "/users/7");
  });

  it("records requests to admin routes: config { audit: 'admin' }, tag 'admin' or 'admin' in tags", async () => {
    const { app, log, sink } = build();
    assert.equal((await app.inject({ method: "DELETE", url: "/users/7", headers: { "x-api-key": ALICE_KEY, "x-request-id": "req-a" } })).status, 200);
    assert.equal((await app.inject({ method: "POST", url: "/settings", headers: { "x-api-key": ALICE_KEY }, body: { password: "hunter2" } })).status, 200);
    assert.equal((await app.inject({ method: "POST", url: "/flags", headers: { "x-api-key": ALICE_KEY } })).status, 400);
    const events = await recorded(log, sink);
    assert.deepEqual(
      events.map((e) => [e.seq, e.action, e.outcome, e.route, e.method, e.actor?.id, e.metadata.status]),
      [
        [1, "admin.request", "success", "/users/{id}", "DELETE", "alice", 200],
        [2, "admin.request", "success", "/settings", "POST", "alice", 200],
        [3, "admin.request", "failure", "/flags", "POST", "alice", 400],
      ],
    );
    assert.equal(events[0]!.request_id, "req-a");
    assert.match(events[1]!.request_id, /^[0-9a-f-]{36}$/, "a generated request id");
  });

  it("records nothing for ordinary successes, unrouted requests, or admin routes opted out with audit: false", async () => {
    const { app, log, sink } = build();
    assert.equal((await app.inject({ url: "/public" })).status, 200);
    assert.equal((await app.inject({ url: "/me", headers: { "x-api-key": BOB_KEY } })).status, 200);
    assert.equal((await app.inject({ url: "/nowhere" })).status, 404);
    assert.equal((await app.inject({ method: "PUT", url: "/public" })).status, 405);
    assert.equal((await app.inject({ url: "/reports", headers: { "x-api-key": ALICE_KEY } })).status, 200);
    assert.deepEqual(await recorded(log, sink), []);
    // The opt-out covers the admin rule only: a 401 there is still recorded.
    assert.equal((await app.inject({ url: "/reports" })).status, 401);
    assert.deepEqual((await recorded(log, sink)).map((e) => e.action), ["auth.failed"]);
  });

  it("records nothing automatically with auto: false", async () => {
    const { app, log, sink } = build({ auto: false });
    assert.equal((await app.inject({ url: "/me" })).status, 401);
    assert.equal((await app.inject({ method: "DELETE", url: "/users/7", headers: { "x-api-key": ALICE_KEY } })).status, 200);
    assert.deepEqual(await recorded(log, sink), []);
  });

  it("never records Authorization headers, API keys, cookies or bodies", async () => {
    const { app, log, sink } = build();
    await app.inject({ url: "/jwt", headers: { authorization: `Bearer ${SECRET_TOKEN}`, cookie: "sid=cookie-secret" } });
    await app.inject({ url: "/me", headers: { "x-api-key": "wrong-key-0123456789abcdef" } });
    await app.inject({ method: "POST", url: "/settings", headers: { "x-api-key": ALICE_KEY }, body: { password: "hunter2-body-secret" } });
    const events = await recorded(log, sink);
    assert.deepEqual(events.map((e) => e.action), ["auth.failed", "auth.failed", "admin.request"]);
    const text = sink.lines().join("\n");
    for (const secret of [SECRET_TOKEN, "secret-token-value", "Bearer", "cookie-secret", "wrong-key", ALICE_KEY, "hunter2"]) assert.ok(!text.includes(secret), secret);
  });
});

describe("audit() over a real socket", () => {
  it("takes the client address from the socket peer, not from X-Forwarded-For", async () => {
    const { app, log, sink } = build();
    const server = await app.listen({ port: 0 });
    try {
      const r = await send(server.url + "/me", { headers: { "x-forwarded-for": "10.9.9.9", "x-request-id": "wire-1" } });
      assert.equal(r.status, 401);
    } finally {
      await server.close();
    }
    const [event] = await recorded(log, sink);
    assert.equal(event!.client_address, "127.0.0.1");
    assert.equal(event!.request_id, "wire-1");
  });
});

describe("audit(ctx, event) from handlers", () => {
  it("records the handler's event with the request's fields, redacts credential metadata, and replaces the automatic admin event", async () => {
    const { app, log, sink } = build();
    const r = await app.inject({ method: "POST", url: "/orders/42/refund", headers: { "x-api-key": ALICE_KEY, "x-request-id": "req-refund" }, remoteAddress: "::ffff:198.51.100.4" });
    assert.equal(r.status, 200);
    const events = await recorded(log, sink);
    assert.equal(events.length, 1);
    const e = events[0]!;
    assert.equal(e.action, "order.refund");
    assert.equal(e.target, "order:42");
    assert.deepEqual(e.actor, { scheme: "api-key", id: "alice" });
    assert.equal(e.request_id, "req-refund");
    assert.equal(e.route, "/orders/{id}/refund");
    assert.equal(e.method, "POST");
    assert.equal(e.client_address, "198.51.100.4");
    assert.deepEqual(e.metadata, { amount: 12, Authorization: AUDIT_REDACTED, nested: { api_key: AUDIT_REDACTED, card: { cvv: "1", password: AUDIT_REDACTED } } });
  });

  it("answers 500 (uniform body) when the plugin is not registered", async () => {
    const app = new App({ logger: silentLogger }).routes(
      route.post("/x", [context()], async (ctx: Context) => {
        await audit(ctx, { action: "x.y", outcome: "success" });
        return {};
      }),
    );
    const r = await app.inject({ method: "POST", url: "/x" });
    assert.equal(r.status, 500);
    const body = r.json<{ error: { type: string }; error_id: string }>();
    assert.equal(body.error.type, "internal_error");
    assert.match(body.error_id, /^err_[0-9a-f]{32}$/);
  });

  it("refuses a plugin without a log", () => {
    assert.throws(() => audit({} as never), TypeError);
  });
});
