// Response contracts: a route's declared response schemas write its JSON replies (properties they
// do not list are never sent), a reply that does not fit is a 500 with the mismatch in the log only,
// and routes without a schema keep JSON.stringify.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, accepted, created, json, noContent, path, reply, route, t, textReply, type RouteDefinition } from "../../lib/index.js";
import { negotiation } from "../../lib/toon/index.js";
import { captureLogger } from "../support/capture-logger.js";

const User = t.named("ContractUser", t.object({ id: t.u64(), email: t.string({ format: "email" }) }));

/** A database row: more than the API may show. */
function row(id: number): { id: number; email: string; passwordHash: string } {
  return { id, email: `u${id}@example.com`, passwordHash: "$argon2id$v=19$secret-hash" };
}

function appWith(defs: readonly RouteDefinition[], options: ConstructorParameters<typeof App>[0] = {}) {
  const logger = captureLogger(40);
  const app = new App({ logger, ...options });
  app.routes(defs as RouteDefinition[]);
  return { app, logger };
}

describe("response contracts", () => {
  it("never sends a property the 200 schema does not list", async () => {
    const { app } = appWith([route.get("/users/{id}", { responses: { 200: User } }, [path("id", t.u64())], (id) => row(id))]);
    const r = await app.inject({ url: "/users/7" });
    assert.equal(r.status, 200);
    assert.equal(r.body, '{"id":7,"email":"u7@example.com"}');
    assert.equal(r.headers["content-type"], "application/json");
  });

  it("applies to application/*+json declarations only, by the one JSON media-type test", async () => {
    const { app } = appWith([
      route.get("/problem", { responses: { 200: { contentType: "application/vnd.user+json", schema: User } } }, [], () => row(1) as never),
      route.get("/seq", { responses: { 200: { contentType: "application/json-seq", schema: User } } }, [], () => row(2) as never),
    ]);
    assert.equal((await app.inject({ url: "/problem" })).body, '{"id":1,"email":"u1@example.com"}');
    // application/json-seq is not JSON: its schema documents, it does not write the body.
    assert.match((await app.inject({ url: "/seq" })).body, /passwordHash/);
  });

  it("strips nested objects, lists and the bodies of created()/accepted() replies", async () => {
    const List = t.object({ users: t.array(User), next: t.nullable(t.string()) });
    const { app } = appWith([
      route.get("/list", { responses: { 200: List } }, [], () => ({ users: [row(1), row(2)], next: null, debug: "internal" })),
      route.post("/users", { responses: { 201: User } }, [], () => created(row(3), { location: "/users/3" })),
      route.post("/later", { responses: { 202: User } }, [], () => accepted(row(4))),
    ]);
    const list = await app.inject({ url: "/list" });
    assert.equal(list.body, '{"users":[{"id":1,"email":"u1@example.com"},{"id":2,"email":"u2@example.com"}],"next":null}');
    const made = await app.inject({ method: "POST", url: "/users" });
    assert.equal(made.status, 201);
    assert.equal(made.headers["location"], "/users/3");
    assert.equal(made.body, '{"id":3,"email":"u3@example.com"}');
    const later = await app.inject({ method: "POST", url: "/later" });
    assert.equal(later.status, 202);
    assert.equal(later.body, '{"id":4,"email":"u4@example.com"}');
  });

  it("answers a value that does not fit with a 500 and logs the route, status and mismatch, never the value", async () => {
    const { app, logger } = appWith([
      route.get("/bad", { responses: { 200: User } }, [], () => ({ id: "sk_live_secret_value", email: "a@example.com" }) as never),
    ]);
    const r = await app.inject({ url: "/bad" });
    assert.equal(r.status, 500);
    const body = JSON.parse(r.body);
    assert.equal(body.error.type, "internal_error");
    assert.equal(typeof body.error_id, "string");
    assert.doesNotMatch(r.body, /sk_live_secret_value/);
    const logged = JSON.stringify(logger.records);
    assert.match(logged, /GET \/bad: response 200 does not match its schema at id: expected integer, got string/);
    assert.doesNotMatch(logged, /sk_live_secret_value/);
  });

  it("names a missing required property", async () => {
    const { app, logger } = appWith([route.get("/partial", { responses: { 200: User } }, [], () => ({ id: 1 }) as never)]);
    assert.equal((await app.inject({ url: "/partial" })).status, 500);
    assert.match(JSON.stringify(logger.records), /at email: expected a value, got nothing/);
  });

  it("checks value rules only with responseValidation: full", async () => {
    const defs = [route.get("/u", { responses: { 200: User } }, [], () => ({ id: 1, email: "not an email" }))];
    const shape = appWith(defs).app;
    assert.equal((await shape.inject({ url: "/u" })).status, 200);
    const { app: full, logger } = appWith(defs, { responseValidation: "full" });
    assert.equal((await full.inject({ url: "/u" })).status, 500);
    assert.match(JSON.stringify(logger.records), /GET \/u: response 200 does not match its schema at email/);
  });

  it("keeps JSON.stringify for routes and statuses without a schema", async () => {
    const { app } = appWith([
      route.get("/free", [], () => row(5)),
      route.get("/other", { responses: { 200: User } }, [], () => reply(209, row(6)) as never),
    ]);
    assert.deepEqual(JSON.parse((await app.inject({ url: "/free" })).body), row(5));
    const other = await app.inject({ url: "/other" });
    assert.equal(other.status, 209);
    assert.deepEqual(JSON.parse(other.body), row(6));
  });

  it("leaves non-JSON replies and 204 alone", async () => {
    const { app } = appWith([
      route.get("/text", { responses: { 200: t.string() } }, [], () => textReply("plain") as never),
      route.delete("/gone", { responses: { 204: "Deleted" } }, [], () => noContent()),
      route.delete("/nothing", { responses: { 204: "Deleted" } }, [], () => undefined),
      route.get("/hello", { responses: { 200: t.string() } }, [], () => "Hello"),
    ]);
    assert.equal((await app.inject({ url: "/text" })).body, "plain");
    const gone = await app.inject({ method: "DELETE", url: "/gone" });
    assert.equal(gone.status, 204);
    assert.equal(gone.body, "");
    assert.equal((await app.inject({ method: "DELETE", url: "/nothing" })).status, 204);
    assert.equal((await app.inject({ url: "/hello" })).body, '"Hello"');
  });

  it("writes Dates through toJSON for date-time strings", async () => {
    const Stamp = t.object({ at: t.string({ format: "date-time" }) });
    const { app } = appWith([route.get("/at", { responses: { 200: Stamp } }, [], () => ({ at: new Date(Date.UTC(2026, 0, 2)) }) as never)]);
    assert.equal((await app.inject({ url: "/at" })).body, '{"at":"2026-01-02T00:00:00.000Z"}');
  });

  it("gives TOON negotiation the value that was sent, not the handler's", async () => {
    const List = t.object({ users: t.array(User) });
    const app = new App({ logger: captureLogger(60) });
    app.layer(negotiation());
    app.route(route.get("/users", { responses: { 200: List }, config: { negotiated: true } }, [], () => ({ users: [row(1), row(2)] })));
    const r = await app.inject({ url: "/users", headers: { accept: "application/toon" } });
    assert.equal(r.status, 200);
    assert.match(String(r.headers["content-type"]), /toon/);
    assert.match(r.body, /u1@example\.com/);
    assert.doesNotMatch(r.body, /passwordHash|argon2/);
  });

  it("handles async handlers and validated request bodies on the same route", async () => {
    const { app } = appWith([
      route.post("/users", { responses: { 201: User } }, [json(t.object({ email: t.string() }))], async (b) => {
        await new Promise((resolve) => setImmediate(resolve));
        return created({ ...row(9), email: b.email });
      }),
    ]);
    const r = await app.inject({ method: "POST", url: "/users", headers: { "content-type": "application/json" }, body: '{"email":"x@example.com"}' });
    assert.equal(r.status, 201);
    assert.equal(r.body, '{"id":9,"email":"x@example.com"}');
  });
});

describe("JSON replies written late", () => {
  it("a layer's JSON reply that JSON cannot hold is the uniform 500, in inject and on a socket", async () => {
    const logger = captureLogger(40);
    const app = new App({ logger });
    // A layer answers itself with a value JSON.stringify refuses (a BigInt): the text is written
    // only when the reply is sent, after every guard, and must still not escape as an exception.
    app.layer(() => Promise.resolve(created({ n: 1n })));
    app.route(route.get("/x", [], () => "never"));
    const injected = await app.inject({ url: "/x" });
    assert.equal(injected.status, 500);
    assert.equal(JSON.parse(injected.body).error.type, "internal_error");
    const server = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const r = await fetch(`${server.url}/x`);
      assert.equal(r.status, 500);
      assert.equal(((await r.json()) as { error: { type: string } }).error.type, "internal_error");
      const again = await fetch(`${server.url}/x`);
      assert.equal(again.status, 500, "the server is still up");
    } finally {
      await server.close();
    }
    assert.match(JSON.stringify(logger.records), /BigInt/);
  });
});

describe("route registration", () => {
  it("refuses a path extractor naming a parameter the path does not have", () => {
    const app = new App();
    assert.throws(
      () => app.route(route.get("/users/{userId}", [path("id")], (id) => id)),
      (err: Error) => err instanceof TypeError && /GET \/users\/\{userId\}: extractor path\("id"\) names a parameter the path does not have \(it has only \{userId\}\)/.test(err.message),
    );
    assert.throws(() => app.route(route.get("/plain", [path("id")], (id) => id)), /it has no parameters/);
    // The matching name registers, in both path syntaxes.
    app.route(route.get("/a/{id}", [path("id")], (id) => id));
    app.route(route.get("/b/:id", [path("id")], (id) => id));
  });

  it("refuses a response schema it cannot compile, naming the route and status", () => {
    const app = new App();
    assert.throws(
      () => app.route(route.get("/r", { responses: { 200: { $ref: "#/components/schemas/Nowhere" } } }, [], () => null as never)),
      /GET \/r: response 200 schema cannot be compiled/,
    );
  });
});
