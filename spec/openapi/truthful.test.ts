// The document says every status a route can answer: declared ones, what extractors and the router
// reject, and what the layers around the route answer themselves (with their headers, parameters,
// security requirements and schemes).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, json, path, route, silentLogger, t, textReply } from "../../lib/index.js";
import { apiKey, apiKeyDigest, authUser, jwt, optionalAuthUser, requireRole } from "../../lib/auth/index.js";
import { circuitBreaker, csrf, idempotency, rateLimit, responseCache, timeout } from "../../lib/middleware/index.js";
import { docs, openApiDocument, type OpenApiDocument, type OpenApiOperation } from "../../lib/openapi/index.js";

const SECRET = "a-test-secret-of-at-least-32-bytes-long!!";

function operation(doc: OpenApiDocument, p: string, method: "get" | "post" | "delete"): OpenApiOperation {
  const op = doc.paths[p]?.[method];
  assert.ok(op, `${method.toUpperCase()} ${p} is documented`);
  return op;
}

const statuses = (op: OpenApiOperation) => Object.keys(op.responses).map(Number);

describe("a truthful OpenAPI document", () => {
  it("authUser() + docs() starts with no securitySchemes option and documents bearerAuth and its 401", async () => {
    const app = new App({ logger: silentLogger });
    app.route(route.get("/me", { layers: [jwt({ algorithms: ["HS256"], key: SECRET })], responses: { 200: t.object({ sub: t.string() }) } }, [authUser()], (c) => ({ sub: c.sub ?? "" })));
    app.route(route.get("/public", { responses: { 200: t.string() } }, [], () => "hi"));
    app.register(docs("/docs"));
    const server = await app.listen({ port: 0, host: "127.0.0.1" }); // the onListen integrity check passes
    await server.close();
    const doc = openApiDocument(app);
    assert.deepEqual(doc.components.securitySchemes, { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } });
    const me = operation(doc, "/me", "get");
    assert.deepEqual(me.security, [{ bearerAuth: [] }]);
    assert.ok(me.responses["401"]?.headers?.["www-authenticate"], "the 401 carries its challenge header");
    assert.deepEqual(operation(doc, "/public", "get").security, [], "a public operation says it needs nothing");
    assert.deepEqual(doc.servers, [{ url: "/" }]);
  });

  it("guards add 401 and 403; an explicit docs option replaces a registered scheme", () => {
    const app = new App({ logger: silentLogger });
    app.route(route.delete("/admin", { layers: [jwt({ algorithms: ["HS256"], key: SECRET })], responses: { 204: "Done" } }, [requireRole("admin")], () => undefined));
    const doc = openApiDocument(app, { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } } });
    const op = operation(doc, "/admin", "delete");
    assert.deepEqual(statuses(op), [204, 401, 403]);
    assert.equal(op.responses["204"]?.content, undefined);
    assert.deepEqual(doc.components.securitySchemes, { bearerAuth: { type: "http", scheme: "bearer" } });
  });

  it("apiKey() registers its scheme and requirement", () => {
    const app = new App({ logger: silentLogger });
    app.route(route.get("/k", { layers: [apiKey({ keys: [{ sha256: apiKeyDigest("k".repeat(32)) }] })], responses: { 200: t.string() } }, [], () => "ok"));
    const doc = openApiDocument(app);
    assert.deepEqual(doc.components.securitySchemes?.["apiKeyAuth"], { type: "apiKey", in: "header", name: "x-api-key" });
    const op = operation(doc, "/k", "get");
    assert.deepEqual(op.security, [{ apiKeyAuth: [] }]);
    assert.ok(op.responses["401"]);
  });

  it("rateLimit adds 429 with Retry-After, and its RateLimit headers on every answer", () => {
    const app = new App({ logger: silentLogger });
    app.route(route.get("/r", { layers: [rateLimit({ capacity: 5, refillPerSecond: 1 })], responses: { 200: t.string() } }, [], () => "ok"));
    const op = operation(openApiDocument(app), "/r", "get");
    assert.deepEqual(statuses(op), [200, 429]);
    assert.ok(op.responses["429"]?.headers?.["retry-after"]);
    for (const s of ["200", "429"]) for (const h of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) assert.ok(op.responses[s]?.headers?.[h], `${s} has ${h}`);
    assert.deepEqual(op.responses["429"]?.content?.["application/json"]?.schema, { $ref: "#/components/schemas/ErrorBody" });
  });

  it("csrf adds its 403 and its header and cookie to unsafe operations only", () => {
    const app = new App({ logger: silentLogger });
    const layers = [csrf({ secret: SECRET })];
    app.route(route.get("/form", { layers, responses: { 200: t.string() } }, [], () => "form"));
    app.route(route.post("/form", { layers, responses: { 200: t.string() } }, [], () => "sent"));
    const doc = openApiDocument(app);
    const get = operation(doc, "/form", "get");
    assert.equal(get.responses["403"], undefined);
    const post = operation(doc, "/form", "post");
    assert.ok(post.responses["403"]);
    assert.deepEqual(
      post.parameters?.map((p) => [p.in, p.name]),
      [["header", "x-csrf-token"], ["cookie", "csrf_token"]],
    );
  });

  it("a global timeout adds its status to every operation; idempotency its header", () => {
    const app = new App({ logger: silentLogger });
    app.layer(timeout({ ms: 1000, status: 504 }));
    app.route(route.post("/pay", { layers: [idempotency()], responses: { 201: t.object({ id: t.integer() }) } }, [], () => ({ id: 1 }) as never));
    app.route(route.get("/ok", { responses: { 200: t.string() } }, [], () => "ok"));
    const doc = openApiDocument(app);
    assert.ok(operation(doc, "/ok", "get").responses["504"]);
    const pay = operation(doc, "/pay", "post");
    assert.ok(pay.responses["504"] && pay.responses["409"] && pay.responses["422"]);
    assert.deepEqual(pay.parameters?.map((p) => [p.in, p.name, p.required]), [["header", "idempotency-key", false]]);
  });

  it("body extractors add 400, 413, 415 and 422; path parameters their maxLength and 400", () => {
    const app = new App({ logger: silentLogger, maxParamLength: 64 });
    app.route(route.post("/items/{name}", { responses: { 201: t.object({ id: t.integer() }) } }, [path("name"), json(t.object({ n: t.integer() }))], () => ({ id: 1 }) as never));
    const op = operation(openApiDocument(app), "/items/{name}", "post");
    assert.deepEqual(statuses(op), [201, 400, 413, 415, 422]);
    assert.deepEqual(op.parameters?.[0]?.schema, { type: "string", maxLength: 64 });
    assert.deepEqual(op.responses["422"]?.content?.["application/json"]?.schema, { $ref: "#/components/schemas/ValidationErrorBody" });
  });

  it("responses declared by a description: an error status gets the uniform body, 204 none, a text body its media type", () => {
    const app = new App({ logger: silentLogger });
    app.route(route.get("/u/{id}", { responses: { 200: t.object({ id: t.integer() }), 404: "No such user" } }, [path("id", t.integer())], (id) => ({ id })));
    app.route(route.delete("/u/{id}", { responses: { 204: "Deleted" } }, [path("id", t.integer())], () => undefined));
    app.route(route.get("/txt", { responses: { 200: { description: "Plain", schema: t.string(), contentType: "text/plain" } } }, [], () => textReply("x")));
    app.route(route.get("/fail", { responses: { 500: "Always fails" } }, [], () => {
      throw new Error("x");
    }));
    const doc = openApiDocument(app);
    const get = operation(doc, "/u/{id}", "get");
    assert.equal(get.responses["404"]?.description, "No such user");
    assert.deepEqual(get.responses["404"]?.content?.["application/json"]?.schema, { $ref: "#/components/schemas/ErrorBody" });
    const del = operation(doc, "/u/{id}", "delete");
    assert.equal(del.responses["204"]?.description, "Deleted");
    assert.equal(del.responses["204"]?.content, undefined);
    assert.equal(del.responses["200"], undefined, "no 200 where the route declares 204");
    assert.ok(operation(doc, "/txt", "get").responses["200"]?.content?.["text/plain"]);
    assert.deepEqual(statuses(operation(doc, "/fail", "get")), [500], "a route that always fails documents no success");
  });

  it("a global jwt() layer makes every operation require bearerAuth, except those with config: { auth: false }", () => {
    const app = new App({ logger: silentLogger });
    app.layer(jwt({ algorithms: ["HS256"], key: SECRET }));
    app.route(route.get("/orders", { responses: { 200: t.string() } }, [], () => "orders"));
    app.route(route.get("/status", { config: { auth: false }, responses: { 200: t.string() } }, [], () => "up"));
    const doc = openApiDocument(app);
    const orders = operation(doc, "/orders", "get");
    assert.deepEqual(orders.security, [{ bearerAuth: [] }], "the layer refuses anonymous callers: the document says so");
    assert.deepEqual(statuses(orders), [200, 401]);
    const status = operation(doc, "/status", "get");
    assert.deepEqual(status.security, []);
    assert.deepEqual(statuses(status), [200], "an opted-out route gets nothing from the layer");
  });

  it("optional credentials: optionalAuthUser() accepts anonymous callers, authUser() does not; JWKS keys add 503", () => {
    const app = new App({ logger: silentLogger });
    const layers = [jwt({ algorithms: ["HS256"], key: SECRET, credentialsRequired: false })];
    app.route(route.get("/feed", { layers, responses: { 200: t.string() } }, [optionalAuthUser()], () => "feed"));
    app.route(route.get("/mine", { layers, responses: { 200: t.string() } }, [authUser()], () => "mine"));
    app.route(route.get("/open", { layers, responses: { 200: t.string() } }, [], () => "open"));
    app.route(route.get("/remote", { layers: [jwt({ algorithms: ["RS256"], jwksUrl: "https://issuer.example/jwks.json" })], responses: { 200: t.string() } }, [], () => "r"));
    const doc = openApiDocument(app);
    assert.deepEqual(operation(doc, "/feed", "get").security, [{}, { bearerAuth: [] }]);
    assert.deepEqual(operation(doc, "/mine", "get").security, [{ bearerAuth: [] }]);
    assert.deepEqual(operation(doc, "/open", "get").security, [{}, { bearerAuth: [] }]);
    assert.ok(operation(doc, "/feed", "get").responses["401"], "a token that is sent but invalid is still refused");
    assert.deepEqual(statuses(operation(doc, "/remote", "get")), [200, 401, 503]);
  });

  it("a guard behind apiKey() requires the key (not a bearer token); an unused registered scheme is left out", () => {
    const app = new App({ logger: silentLogger });
    const keys = apiKey({ keys: [{ sha256: apiKeyDigest("k".repeat(32)), claims: { sub: "ci", role: "admin" } }] });
    app.route(route.post("/deploy", { layers: [keys], responses: { 202: "Started" } }, [requireRole("admin")], () => undefined as never));
    const doc = openApiDocument(app);
    const op = operation(doc, "/deploy", "post");
    assert.deepEqual(op.security, [{ apiKeyAuth: [] }]);
    assert.deepEqual(statuses(op), [202, 401, 403]);
    assert.equal(op.responses["202"]?.description, "Started");
    assert.deepEqual(Object.keys(doc.components.securitySchemes ?? {}), ["apiKeyAuth"]);
  });

  it("two authentication layers on one route: both must be satisfied", () => {
    const app = new App({ logger: silentLogger });
    const keys = apiKey({ keys: [{ sha256: apiKeyDigest("k".repeat(32)) }], query: "api_key" });
    app.route(route.get("/both", { layers: [keys, jwt({ algorithms: ["HS256"], key: SECRET })], responses: { 200: t.string() } }, [], () => "ok"));
    const op = operation(openApiDocument(app), "/both", "get");
    assert.deepEqual(op.security, [{ apiKeyAuth: [], bearerAuth: [] }, { apiKeyQuery: [], bearerAuth: [] }]);
  });

  it("every 401 carries WWW-Authenticate, also when only an extractor declares it", () => {
    const app = new App({ logger: silentLogger });
    app.route(route.get("/me", { responses: { 200: t.string() } }, [authUser()], () => "me"));
    const op = operation(openApiDocument(app), "/me", "get");
    assert.ok(op.responses["401"]?.headers?.["www-authenticate"]);
  });

  it("per-route opt-outs remove what a layer adds: rateLimit, csrf, idempotency", () => {
    const app = new App({ logger: silentLogger });
    app.layer(rateLimit({ capacity: 5, refillPerSecond: 1 })).layer(csrf({ secret: SECRET })).layer(idempotency());
    app.route(route.post("/hook", { config: { rateLimit: false, csrf: false, idempotency: false }, responses: { 204: "Received" } }, [], () => undefined));
    app.route(route.post("/pay", { responses: { 204: "Paid" } }, [], () => undefined));
    const doc = openApiDocument(app);
    const hook = operation(doc, "/hook", "post");
    assert.deepEqual(statuses(hook), [204]);
    assert.equal(hook.parameters, undefined);
    assert.equal(hook.responses["204"]?.headers, undefined);
    const pay = operation(doc, "/pay", "post");
    assert.deepEqual(statuses(pay), [204, 400, 403, 409, 413, 422, 429, 503]);
    assert.deepEqual(pay.parameters?.map((p) => p.name), ["x-csrf-token", "csrf_token", "idempotency-key"]);
  });

  it("the response cache answers 304 (no body, its ETag) to GET with If-None-Match; the default timeout is 503", () => {
    const app = new App({ logger: silentLogger });
    app.layer(timeout(1000));
    const cache = responseCache();
    app.route(route.get("/list", { layers: [cache], responses: { 200: t.array(t.string()) } }, [], () => ["a"]));
    app.route(route.post("/list", { layers: [cache], responses: { 204: "Added" } }, [], () => undefined));
    const doc = openApiDocument(app);
    const get = operation(doc, "/list", "get");
    assert.deepEqual(statuses(get), [200, 304, 503]);
    assert.equal(get.responses["304"]?.content, undefined);
    assert.ok(get.responses["304"]?.headers?.["etag"]);
    assert.ok(get.responses["200"]?.headers?.["x-cache"]);
    assert.deepEqual(get.parameters?.map((p) => [p.in, p.name, p.required]), [["header", "if-none-match", false]]);
    assert.deepEqual(statuses(operation(doc, "/list", "post")), [204, 503], "the cache leaves other methods alone");
  });

  it("an open circuit breaker answers 503 with Retry-After", () => {
    const app = new App({ logger: silentLogger });
    app.route(route.get("/upstream", { layers: [circuitBreaker()], responses: { 200: t.string() } }, [], () => "ok"));
    const op = operation(openApiDocument(app), "/upstream", "get");
    assert.deepEqual(statuses(op), [200, 503]);
    assert.ok(op.responses["503"]?.headers?.["retry-after"]);
  });

  it("servers can be given", () => {
    const app = new App({ logger: silentLogger });
    app.route(route.get("/x", [], () => "x"));
    assert.deepEqual(openApiDocument(app, { servers: [{ url: "https://api.example.com" }] }).servers, [{ url: "https://api.example.com" }]);
    assert.equal(operation(openApiDocument(app), "/x", "get").security, undefined, "no schemes anywhere: no security keys");
  });
});
