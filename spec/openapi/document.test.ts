// buildOpenApiDocument and docsRoutes: document structure for a small app and for the sample
// service, path parameter inference and overrides, operationIds, error responses, components.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, extractor, header, json, optional, path, query, route, silentLogger, t, text, cookie, type RouteMeta, type RouteDefinition } from "../../lib/index.js";
import { asyncUnique } from "../../lib/json-schema/index.js";
import {
  buildOpenApiDocument,
  checkRefIntegrity,
  deriveOperationId,
  docsRoutes,
  findDanglingRefs,
  inferPathParamSchema,
  paramOverrideSchema,
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiParameter,
} from "../../lib/openapi/index.js";
import { createSampleApp } from "../../lib/sample/index.js";

/** The document as a client sees it (plain JSON). */
function plain(doc: OpenApiDocument): OpenApiDocument {
  return JSON.parse(JSON.stringify(doc)) as OpenApiDocument;
}

function op(doc: OpenApiDocument, path: string, method: "get" | "post" | "put" | "delete" | "patch"): OpenApiOperation {
  const o = doc.paths[path]?.[method];
  assert.ok(o, `${method.toUpperCase()} ${path} is in the document (paths: ${Object.keys(doc.paths).join(", ")})`);
  return o;
}

function param(o: OpenApiOperation, location: string, name: string): OpenApiParameter {
  const p = o.parameters?.find((x) => x.in === location && x.name === name);
  assert.ok(p, `${location} parameter ${name} (have: ${JSON.stringify(o.parameters?.map((x) => `${x.in}:${x.name}`))})`);
  return p;
}

const handler = (): never => null as never;

function docFor(...routes: RouteDefinition[]): OpenApiDocument {
  return plain(buildOpenApiDocument(new App({ logger: silentLogger }).routes(...routes).routeTable()));
}

describe("openapi: sample service", () => {
  const app = createSampleApp({ logger: silentLogger });
  // The sample may already serve its docs (App.docs()); add them only when it does not.
  if (!app.routeTable().some((r) => r.method === "GET" && r.path === "/docs/openapi.json")) app.routes(...docsRoutes(app));

  it("serves a 3.1 document at /docs/openapi.json", async () => {
    const r = await app.inject({ url: "/docs/openapi.json" });
    assert.equal(r.status, 200);
    assert.match(String(r.headers["content-type"]), /^application\/json/);
    const doc = r.json<OpenApiDocument>();
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.equal(doc.info.title, "keel sample service");
    assert.equal(doc.info.version, "0.1.0");
    assert.equal(doc.paths["/docs"], undefined, "the docs routes are hidden");
    assert.equal(doc.paths["/docs/openapi.json"], undefined);
    const tagNames = doc.tags?.map((x) => x.name) ?? [];
    for (const tag of ["projects", "system", "users"]) assert.ok(tagNames.includes(tag), `tag ${tag} listed`);
    assert.deepEqual(tagNames, [...tagNames].sort(), "the tag list is sorted");
  });

  it("GET /users/{id}: id is a required integer/int64 path parameter", async () => {
    const doc = (await app.inject({ url: "/docs/openapi.json" })).json<OpenApiDocument>();
    const get = op(doc, "/users/{id}", "get");
    const id = param(get, "path", "id");
    assert.equal(id.required, true);
    assert.equal((id.schema as Record<string, unknown>)["type"], "integer");
    assert.equal((id.schema as Record<string, unknown>)["format"], "int64");
    assert.deepEqual(get.tags, ["users"]);
    assert.equal(get.summary, "Get a user");
    assert.equal(get.operationId, "getUsersById");
  });

  it("GET /projects: x-tenant-id is a required header parameter; 400 uses ErrorBody", async () => {
    const doc = (await app.inject({ url: "/docs/openapi.json" })).json<OpenApiDocument>();
    const get = op(doc, "/projects", "get");
    const h = param(get, "header", "x-tenant-id");
    assert.equal(h.required, true);
    assert.deepEqual(get.responses["400"]?.content?.["application/json"]?.schema, { $ref: "#/components/schemas/ErrorBody" });
  });

  it("POST /users: request body schema, 201 and 422 (validation error body)", async () => {
    const doc = (await app.inject({ url: "/docs/openapi.json" })).json<OpenApiDocument>();
    const post = op(doc, "/users", "post");
    assert.equal(post.requestBody?.required, true);
    const bodySchema = post.requestBody?.content["application/json"]?.schema as { $ref?: string };
    assert.equal(bodySchema.$ref, "#/components/schemas/CreateUser", "the named schema is a component");
    const schema = doc.components?.schemas?.["CreateUser"] as { properties: Record<string, Record<string, unknown>>; required: string[] };
    assert.equal(schema.properties["email"]?.["format"], "email");
    assert.equal(schema.properties["password"]?.["minLength"], 8);
    assert.deepEqual(schema.required, ["email", "password"]);
    assert.ok(post.responses["201"]?.content?.["application/json"]?.schema, "201 has the user schema");
    assert.deepEqual(post.responses["422"]?.content?.["application/json"]?.schema, { $ref: "#/components/schemas/ValidationErrorBody" });
    for (const status of ["400", "413", "415"]) {
      assert.deepEqual(post.responses[status]?.content?.["application/json"]?.schema, { $ref: "#/components/schemas/ErrorBody" }, status);
    }
  });

  it("POST /echo-text documents a text/plain body", async () => {
    const doc = (await app.inject({ url: "/docs/openapi.json" })).json<OpenApiDocument>();
    assert.deepEqual(op(doc, "/echo-text", "post").requestBody?.content["text/plain"], { schema: { type: "string" } });
  });

  it("has the uniform error components, with the error_id pattern and required validation fields", async () => {
    const doc = (await app.inject({ url: "/docs/openapi.json" })).json<OpenApiDocument>();
    type S = { properties: Record<string, S>; required?: string[]; pattern?: string; items?: unknown };
    const schemas = doc.components.schemas as Record<string, S>;
    const error = schemas["ErrorBody"]!;
    assert.deepEqual(error.required, ["error", "error_id"]);
    assert.equal(error.properties["error_id"]?.pattern, "^err_[0-9a-f]{32}$");
    assert.deepEqual(error.properties["error"]?.required, ["type", "message"]);
    const validation = schemas["ValidationErrorBody"]!;
    assert.deepEqual(validation.properties["error"]?.required, ["type", "message", "fields"]);
    assert.deepEqual(validation.properties["error"]?.properties["fields"]?.items, { $ref: "#/components/schemas/ErrorField" });
    assert.deepEqual(schemas["ErrorField"]?.required, ["field", "code", "message"]);
  });

  it("operationIds are unique", async () => {
    const doc = (await app.inject({ url: "/docs/openapi.json" })).json<OpenApiDocument>();
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((o) => (o as OpenApiOperation).operationId));
    assert.ok(ids.length >= 7, `${ids.length} operations`);
    assert.equal(new Set(ids).size, ids.length);
  });
});

describe("openapi: path parameters", () => {
  const inferred: Array<[string, Record<string, unknown>]> = [
    ["id", { type: "integer", format: "int64" }],
    ["user_id", { type: "integer", format: "int64" }],
    ["postId", { type: "integer", format: "int64" }],
    ["userId", { type: "integer", format: "int64" }],
    ["orderID", { type: "integer", format: "int64" }],
    ["uuid", { type: "string", format: "uuid" }],
    ["user_uuid", { type: "string", format: "uuid" }],
    ["userUuid", { type: "string", format: "uuid" }],
    ["slug", { type: "string" }],
    ["name", { type: "string" }],
    ["paid", { type: "string" }],
    ["identity", { type: "string" }],
  ];
  /** A string path parameter is documented with the router's limit (100 unless the app sets another). */
  const documented = (schema: Record<string, unknown>) => (schema["type"] === "string" ? { ...schema, maxLength: 100 } : schema);
  for (const [name, schema] of inferred) {
    it(`{${name}} without an extractor is documented as ${JSON.stringify(schema)}`, () => {
      assert.deepEqual(inferPathParamSchema(name), schema);
      const doc = docFor(route.get(`/things/{${name}}`, [], handler));
      const p = param(op(doc, `/things/{${name}}`, "get"), "path", name);
      assert.equal(p.required, true);
      assert.deepEqual(p.schema, documented(schema));
    });
  }

  const overrides: Array<[NonNullable<RouteMeta["params"]>[string], Record<string, unknown>]> = [
    ["uuid", { type: "string", format: "uuid" }],
    ["integer", { type: "integer", format: "int64" }],
    ["int", { type: "integer", format: "int64" }],
    ["int64", { type: "integer", format: "int64" }],
    ["int32", { type: "integer", format: "int32" }],
    ["string", { type: "string" }],
    ["number", { type: "number" }],
    ["float", { type: "number" }],
    ["boolean", { type: "boolean" }],
    ["bool", { type: "boolean" }],
  ];
  for (const [value, schema] of overrides) {
    it(`override ${value} -> ${JSON.stringify(schema)}, over the name and the extractor`, () => {
      assert.deepEqual(paramOverrideSchema(value), schema);
      // `id` would infer int64 and the extractor says string/uuid: the override still wins.
      const doc = docFor(route.get("/things/{id}", { params: { id: value } }, [path("id", t.uuid())], handler));
      assert.deepEqual(param(op(doc, "/things/{id}", "get"), "path", "id").schema, documented(schema));
    });
  }

  it("the extractor's schema wins over the name", () => {
    const doc = docFor(route.get("/things/{id}", [path("id", t.uuid())], handler));
    assert.deepEqual(param(op(doc, "/things/{id}", "get"), "path", "id").schema, { type: "string", format: "uuid", maxLength: 100 });
  });

  it("every {name} is a required path parameter, colon syntax too; wildcards become {rest}", () => {
    const doc = docFor(
      route.get("/orgs/:orgId/repos/{slug}", [], handler),
      route.get("/files/{*rest}", [], handler),
      route.get("/raw/*", [], handler),
    );
    const repo = op(doc, "/orgs/{orgId}/repos/{slug}", "get");
    assert.deepEqual(repo.parameters?.map((p) => [p.name, p.in, p.required]), [["orgId", "path", true], ["slug", "path", true]]);
    const files = op(doc, "/files/{rest}", "get");
    const rest = param(files, "path", "rest");
    assert.equal(rest.required, true);
    assert.deepEqual(rest.schema, { type: "string" });
    assert.equal(rest["x-wildcard"], true);
    assert.equal(param(op(doc, "/raw/{wildcard}", "get"), "path", "wildcard").required, true);
  });
});

describe("openapi: operations", () => {
  it("derives getUsersById-style operationIds, unique and stable, declared ones kept", () => {
    assert.equal(deriveOperationId("GET", "/users/{id}"), "getUsersById");
    assert.equal(deriveOperationId("POST", "/users"), "postUsers");
    assert.equal(deriveOperationId("GET", "/api/v1/echo-text"), "getApiV1EchoText");
    assert.equal(deriveOperationId("GET", "/"), "getRoot");
    assert.equal(deriveOperationId("DELETE", "/files/{*rest}"), "deleteFilesByRest");
    const routes = [
      route.get("/a-b", [], handler),
      route.get("/a_b", [], handler),
      route.get("/x", { operationId: "getAB" }, [], handler),
      route.get("/y", { operationId: "custom" }, [], handler),
      route.get("/z", { operationId: "custom" }, [], handler),
    ];
    const build = () => plain(buildOpenApiDocument(new App({ logger: silentLogger }).routes(...routes).routeTable()));
    const doc = build();
    assert.equal(op(doc, "/x", "get").operationId, "getAB", "the declared id keeps its name");
    assert.equal(op(doc, "/a-b", "get").operationId, "getAB_2");
    assert.equal(op(doc, "/a_b", "get").operationId, "getAB_3");
    assert.equal(op(doc, "/y", "get").operationId, "custom");
    assert.equal(op(doc, "/z", "get").operationId, "custom_2");
    assert.deepEqual(build(), doc, "same routes, same document");
  });

  it("query parameters come from the query schema, required per its `required`", () => {
    const q = t.object({ page: t.optional(t.integer({ minimum: 1, description: "Page number" })), q: t.string() });
    const doc = docFor(route.get("/search", [query(q)], handler));
    const get = op(doc, "/search", "get");
    const page = param(get, "query", "page");
    assert.equal(page.required, false);
    assert.equal(page.description, "Page number");
    assert.deepEqual(page.schema, { type: "integer", minimum: 1, description: "Page number" });
    assert.equal(param(get, "query", "q").required, true);
    assert.ok(get.responses["422"], "query validation can answer 422");
  });

  it("header and cookie parameters are deduplicated by location and name", () => {
    const a = header("X-Api-Version");
    const b = header("x-api-version");
    const doc = docFor(route.get("/h", [a, b, optional(cookie("session"))], handler));
    const get = op(doc, "/h", "get");
    assert.deepEqual(get.parameters?.map((p) => [p.in, p.name, p.required]), [["header", "x-api-version", true], ["cookie", "session", false]]);
  });

  it("declared responses win; 204 has no content; ResponseDoc gives description and content type", () => {
    const Item = t.object({ name: t.string() });
    const doc = docFor(
      route.put("/items/{id}", {
        responses: { 200: { description: "The item", schema: Item, contentType: "application/vnd.item+json" }, 204: Item, 422: t.object({ custom: t.boolean() }) },
      }, [json(Item)], handler),
    );
    const put = op(doc, "/items/{id}", "put");
    assert.equal(put.responses["200"]?.description, "The item");
    assert.deepEqual(Object.keys(put.responses["200"]?.content ?? {}), ["application/vnd.item+json"]);
    assert.equal(put.responses["204"]?.description, "No Content");
    assert.equal(put.responses["204"]?.content, undefined);
    assert.deepEqual(put.responses["422"]?.content?.["application/json"]?.schema, { type: "object", properties: { custom: { type: "boolean" } }, required: ["custom"] });
    assert.deepEqual(Object.keys(put.responses), ["200", "204", "400", "413", "415", "422"]);
  });

  it("an operation with no success response gets a bare 200", () => {
    const doc = docFor(route.get("/nothing", [], handler));
    assert.deepEqual(op(doc, "/nothing", "get").responses, { "200": { description: "OK" } });
  });

  it("tags, top-level tag list sorted, probes tagged health, hidden routes left out", () => {
    const doc = plain(buildOpenApiDocument(new App({ logger: silentLogger }).routes(
      route.get("/b", { tag: "zeta", tags: ["alpha", "zeta"], summary: "B", description: "Longer text", deprecated: true }, [], handler),
      route.get("/live", [], handler),
      route.get("/ready", [], handler),
      route.get("/health", { tag: "ops" }, [], handler),
      route.get("/secret", { hidden: true }, [], handler),
      // Other methods are never left out silently: spec/openapi/methods.test.ts.
      route.method("PURGE")("/cache", { hidden: true }, [], handler),
    ).routeTable(), { tagDescriptions: { alpha: "First letter" } }));
    const b = op(doc, "/b", "get");
    assert.deepEqual(b.tags, ["zeta", "alpha"]);
    assert.equal(b.description, "Longer text");
    assert.equal(b.deprecated, true);
    assert.deepEqual(op(doc, "/live", "get").tags, ["health"]);
    assert.deepEqual(op(doc, "/ready", "get").tags, ["health"]);
    assert.deepEqual(op(doc, "/health", "get").tags, ["ops"]);
    assert.deepEqual(doc.tags, [{ name: "alpha", description: "First letter" }, { name: "health" }, { name: "ops" }, { name: "zeta" }]);
    assert.equal(doc.paths["/secret"], undefined);
    assert.equal(doc.paths["/cache"], undefined);
  });

  it("security names from extractors become requirements; schemes come from the options", () => {
    const bearer = extractor("auth", () => "user", { security: ["bearerAuth"], errorStatuses: [401] });
    const routes = new App({ logger: silentLogger }).routes(route.get("/me", [bearer], handler)).routeTable();
    const doc = plain(buildOpenApiDocument(routes, { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } } }));
    const me = op(doc, "/me", "get");
    assert.deepEqual(me.security, [{ bearerAuth: [] }]);
    assert.deepEqual(me.responses["401"]?.content?.["application/json"]?.schema, { $ref: "#/components/schemas/ErrorBody" });
    assert.deepEqual(doc.components.securitySchemes, { bearerAuth: { type: "http", scheme: "bearer" } });
    assert.throws(() => buildOpenApiDocument(routes), /security scheme "bearerAuth"/);
  });

  it("info and servers come from the options", () => {
    const doc = plain(buildOpenApiDocument([], { title: "Shop", version: "2.0.0", description: "All things", servers: [{ url: "/api" }] }));
    assert.deepEqual(doc.info, { title: "Shop", version: "2.0.0", description: "All things" });
    assert.deepEqual(doc.servers, [{ url: "/api" }]);
  });
});

describe("openapi: schemas", () => {
  it("named schemas land once in components.schemas, nested ones too, referenced with $ref", () => {
    const Address = t.named("Address", t.object({ city: t.string() }));
    const User = t.named("User", t.object({ id: t.u64(), home: Address, past: t.array(Address), note: t.nullable(t.string()) }));
    const doc = docFor(
      route.get("/users/{id}", { responses: { 200: User } }, [], handler),
      route.post("/users", { responses: { 201: User } }, [json(User)], handler),
    );
    const ref = { $ref: "#/components/schemas/User" };
    assert.deepEqual(op(doc, "/users/{id}", "get").responses["200"]?.content?.["application/json"]?.schema, ref);
    assert.deepEqual(op(doc, "/users", "post").requestBody?.content["application/json"]?.schema, ref);
    const user = doc.components.schemas["User"] as { properties: Record<string, unknown> };
    assert.deepEqual(user.properties["home"], { $ref: "#/components/schemas/Address" });
    assert.deepEqual(user.properties["past"], { type: "array", items: { $ref: "#/components/schemas/Address" } });
    assert.deepEqual(user.properties["note"], { type: ["string", "null"] }, "3.1 null, not nullable");
    assert.deepEqual(doc.components.schemas["Address"], { type: "object", properties: { city: { type: "string" } }, required: ["city"] });
    assert.doesNotMatch(JSON.stringify(doc), /"nullable"/);
  });

  it("recursive schemas via t.ref, examples arrays, raw 3.0 nullable converted, x-keel-* stripped", () => {
    const Node = t.named("Node", t.object({ name: t.string({ examples: ["root"] }), children: t.array(t.ref("Node")) }));
    const Raw = t.unsafe<unknown>({ type: "integer", nullable: true, "x-keel-internal": () => 1, "x-note": "kept" });
    // (json(Node) would need the validator's `components` option for the recursive ref.)
    const doc = docFor(route.get("/tree", { responses: { 200: Node } }, [], handler), route.get("/raw", { responses: { 200: Raw } }, [], handler));
    const node = doc.components.schemas["Node"] as { properties: Record<string, unknown> };
    assert.deepEqual(node.properties["children"], { type: "array", items: { $ref: "#/components/schemas/Node" } });
    assert.deepEqual(node.properties["name"], { type: "string", examples: ["root"] });
    assert.deepEqual(op(doc, "/tree", "get").responses["200"]?.content?.["application/json"]?.schema, { $ref: "#/components/schemas/Node" });
    assert.deepEqual(op(doc, "/raw", "get").responses["200"]?.content?.["application/json"]?.schema, { type: ["integer", "null"], "x-note": "kept" });
  });

  it("async rules (x-keel-async) stay out of the document; x-message is kept", () => {
    const Signup = t.object({ email: t.email({ async: [asyncUnique({ table: "users", column: "email" })], message: "bad email" }) });
    const doc = docFor(route.post("/signup", [json(Signup)], handler));
    const body = op(doc, "/signup", "post").requestBody?.content["application/json"]?.schema as { properties: Record<string, unknown> };
    assert.deepEqual(body.properties["email"], { type: "string", format: "email", "x-message": "bad email" });
  });

  it("schemas inside draft-07 style item lists are converted too", () => {
    const Named = t.named("Pair", t.object({ k: t.string() }));
    const doc = docFor(route.get("/tuple", { responses: { 200: t.unsafe({ type: "array", items: [Named, { type: "integer" }] }) } }, [], handler));
    assert.deepEqual(op(doc, "/tuple", "get").responses["200"]?.content?.["application/json"]?.schema, {
      type: "array", items: [{ $ref: "#/components/schemas/Pair" }, { type: "integer" }],
    });
  });

  it("two different schemas with one name are refused; the same shape twice is fine", () => {
    const a = t.named("Thing", t.object({ a: t.string() }));
    const same = t.named("Thing", t.object({ a: t.string() }));
    const other = t.named("Thing", t.object({ b: t.string() }));
    assert.doesNotThrow(() => docFor(route.get("/a", { responses: { 200: a } }, [], handler), route.get("/b", { responses: { 200: same } }, [], handler)));
    assert.throws(() => docFor(route.get("/a", { responses: { 200: a } }, [], handler), route.get("/b", { responses: { 200: other } }, [], handler)), /"Thing"/);
  });
});

describe("openapi: docsRoutes and integrity", () => {
  it("routes added after docsRoutes() appear; the document is rebuilt only when routes change", async () => {
    const app = new App({ logger: silentLogger });
    app.routes(route.get("/first", [], handler));
    app.routes(...docsRoutes(app, { path: "/api-docs/" }));
    const first = await app.inject({ url: "/api-docs/openapi.json" });
    assert.deepEqual(Object.keys(first.json<OpenApiDocument>().paths), ["/first"]);
    app.routes(route.post("/later", [text()], handler));
    const second = (await app.inject({ url: "/api-docs/openapi.json" })).json<OpenApiDocument>();
    assert.deepEqual(Object.keys(second.paths), ["/first", "/later"]);
    const page = await app.inject({ url: "/api-docs" });
    assert.equal(page.status, 200);
    assert.match(String(page.headers["content-type"]), /^text\/html/);
  });

  it("dangling $refs are detected and listed", () => {
    const good = plain(buildOpenApiDocument([]));
    assert.deepEqual(findDanglingRefs(good), []);
    assert.doesNotThrow(() => checkRefIntegrity(good));
    const bad = {
      ...good,
      paths: { "/x": { get: { responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Missing" } } } } } } } },
      components: { schemas: { ...good.components.schemas, Also: { items: { $ref: "#/components/schemas/Gone" } }, Fine: { $ref: "#/components/schemas/ErrorBody" } } },
    };
    const problems = findDanglingRefs(bad);
    assert.equal(problems.length, 2);
    assert.match(problems[0]!, /#\/components\/schemas\/Missing \(at \/paths\/~1x\/get/);
    assert.match(problems[1]!, /#\/components\/schemas\/Gone/);
    assert.throws(() => checkRefIntegrity(bad), /2 dangling reference\(s\):[\s\S]*Missing[\s\S]*Gone/);
  });

  it("a t.ref to a schema no route declares fails the build, unless options.schemas supplies it", () => {
    const ghost = route.get("/x", { responses: { 200: t.ref("Ghost") } }, [], handler);
    // An app cannot write a response whose schema it cannot resolve: registration refuses it.
    assert.throws(() => new App({ logger: silentLogger }).route(ghost), /GET \/x: response 200 schema cannot be compiled: .*Ghost/);
    const routes = [ghost];
    assert.throws(() => buildOpenApiDocument(routes), /#\/components\/schemas\/Ghost/);
    const doc = buildOpenApiDocument(routes, { schemas: { Ghost: t.object({ boo: t.string() }) } });
    assert.ok(doc.components.schemas["Ghost"]);
  });
});
