// keel/versions (issue 37 item 5): a route group carries a version, chosen by path prefix, header,
// query or Accept parameter; a missing version gets the default or the uniform 404/406, an unknown
// one the uniform 404/406; deprecated versions send Deprecation (RFC 9745) and Sunset (RFC 8594);
// the OpenAPI document is produced per version; an app without versions is unchanged.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, ApiError, path, route, silentLogger, t, type Layer } from "../../lib/index.js";
import { docs, openApiDocument } from "../../lib/openapi/index.js";
import { version, versionDocument, versions, type VersionsOptions } from "../../lib/versions/index.js";
import { ERROR_ID } from "../support/http.js";

const User1 = t.named("UserV1", t.object({ id: t.integer(), name: t.string() }));
const User2 = t.named("UserV2", t.object({ id: t.integer(), givenName: t.string(), familyName: t.string() }));

const DEPRECATED_AT = new Date("2026-01-01T00:00:00Z"); // 1767225600
const SUNSET_AT = new Date("2026-12-31T23:59:59Z");

function v1Routes() {
  return [
    route.get("/users/{id}", { summary: "Get a user (v1)", responses: { 200: User1 } }, [path("id", t.integer())], (id) => ({ id, name: "Ada Lovelace" })),
    route.get("/legacy", { summary: "Only in v1" }, [], () => ({ legacy: true })),
  ];
}
function v2Routes() {
  return [
    route.get("/users/{id}", { summary: "Get a user (v2)", responses: { 200: User2 } }, [path("id", t.integer())], (id) => ({ id, givenName: "Ada", familyName: "Lovelace" })),
    route.post("/users", { summary: "Create a user (v2)" }, [], () => ({ created: true })),
  ];
}

function makeApi(options: VersionsOptions, deprecated = true) {
  return versions(options, [
    version("1", v1Routes(), deprecated ? { deprecated: { date: DEPRECATED_AT, sunset: SUNSET_AT, link: "https://example.com/v1-deprecated", sunsetLink: "https://example.com/v1-sunset" } } : {}),
    version("2", v2Routes()),
  ]);
}

function appWith(options: VersionsOptions, ...layers: Layer[]) {
  const api = makeApi(options);
  const app = new App({ logger: silentLogger });
  for (const l of layers) app.layer(l);
  app.register(api).routes(route.get("/health", [], () => ({ ok: true })));
  return { app, api };
}

function assertUniformError(res: { status: number; json(): unknown }, status: number, type: string): void {
  assert.equal(res.status, status);
  const body = res.json() as { error: { type: string; message: string }; error_id: string };
  assert.equal(body.error.type, type);
  assert.match(body.error_id, ERROR_ID);
  assert.match(body.error.message, /API version/);
}

describe("versions by path prefix", () => {
  const { app } = appWith({ by: "path" });

  it("serves each version under its prefix", async () => {
    assert.deepEqual((await app.inject({ url: "/v1/users/7" })).json(), { id: 7, name: "Ada Lovelace" });
    assert.deepEqual((await app.inject({ url: "/v2/users/7" })).json(), { id: 7, givenName: "Ada", familyName: "Lovelace" });
    assert.equal((await app.inject({ method: "POST", url: "/v2/users" })).status, 200);
  });

  it("answers an unknown version, a missing one and a route the version lacks with the uniform 404", async () => {
    for (const url of ["/v9/users/7", "/users/7", "/v2/legacy"]) {
      const res = await app.inject({ url });
      assert.equal(res.status, 404, url);
      assert.equal((res.json() as { error: { type: string } }).error.type, "not_found");
    }
  });

  it("serves the default version without a prefix when the app set one", async () => {
    const { app } = appWith({ by: "path", default: "2" });
    assert.deepEqual((await app.inject({ url: "/users/7" })).json(), { id: 7, givenName: "Ada", familyName: "Lovelace" });
    assert.equal((await app.inject({ url: "/v1/users/7" })).status, 200);
  });

  it("takes the app's own prefix function", async () => {
    const { app } = appWith({ by: "path", prefix: (v) => `/api/v${v}` });
    assert.equal((await app.inject({ url: "/api/v2/users/7" })).status, 200);
    assert.equal((await app.inject({ url: "/v2/users/7" })).status, 404);
  });
});

describe("versions by header", () => {
  const { app } = appWith({ by: "header" });

  it("dispatches the same path to each version's route by Api-Version", async () => {
    const one = await app.inject({ url: "/users/7", headers: { "api-version": "1" } });
    assert.deepEqual(one.json(), { id: 7, name: "Ada Lovelace" });
    const two = await app.inject({ url: "/users/7", headers: { "Api-Version": " 2 " } });
    assert.deepEqual(two.json(), { id: 7, givenName: "Ada", familyName: "Lovelace" });
    assert.equal(two.headers["vary"], "api-version");
  });

  it("runs the version's extractors: a bad path parameter is the version route's 422", async () => {
    const res = await app.inject({ url: "/users/abc", headers: { "api-version": "2" } });
    assert.equal(res.status, 422);
  });

  it("answers a missing or unknown version with the uniform 404 when there is no default", async () => {
    assertUniformError(await app.inject({ url: "/users/7" }), 404, "not_found");
    const unknown = await app.inject({ url: "/users/7", headers: { "api-version": "9" } });
    assertUniformError(unknown, 404, "not_found");
    assert.equal(unknown.headers["vary"], "api-version");
  });

  it("answers a path the chosen version lacks with the uniform 404, and a method it lacks with 405", async () => {
    assert.equal((await app.inject({ url: "/legacy", headers: { "api-version": "2" } })).status, 404);
    assert.equal((await app.inject({ url: "/legacy", headers: { "api-version": "1" } })).status, 200);
    const res = await app.inject({ method: "POST", url: "/users/7", headers: { "api-version": "2" } });
    assert.equal(res.status, 405);
  });

  it("serves the default version when the request names none, and rejects unknown ones", async () => {
    const { app } = appWith({ by: "header", default: "2" });
    assert.deepEqual((await app.inject({ url: "/users/7" })).json(), { id: 7, givenName: "Ada", familyName: "Lovelace" });
    assertUniformError(await app.inject({ url: "/users/7", headers: { "api-version": "9" } }), 404, "not_found");
  });

  it("serves the default version for an unknown one too with unknown: \"default\"", async () => {
    const { app } = appWith({ by: "header", default: "2", unknown: "default" });
    assert.deepEqual((await app.inject({ url: "/users/7", headers: { "api-version": "9" } })).json(), { id: 7, givenName: "Ada", familyName: "Lovelace" });
  });

  it("reads the header the app names", async () => {
    const { app } = appWith({ by: "header", name: "X-API-Version" });
    assert.equal((await app.inject({ url: "/users/7", headers: { "x-api-version": "1" } })).status, 200);
    assert.equal((await app.inject({ url: "/users/7", headers: { "api-version": "1" } })).status, 404);
  });

  it("runs the app's global layers once around the version's answer, refusals included", async () => {
    let calls = 0;
    const counting: Layer = async (ctx, next) => {
      calls++;
      const r = await next(ctx);
      r.headers["x-outer"] = "yes";
      return r;
    };
    const { app } = appWith({ by: "header" }, counting);
    const ok = await app.inject({ url: "/users/7", headers: { "api-version": "2" } });
    const refused = await app.inject({ url: "/users/7", headers: { "api-version": "9" } });
    assert.equal(calls, 2);
    assert.equal(ok.headers["x-outer"], "yes");
    assert.equal(refused.headers["x-outer"], "yes");
  });

  it("leaves unversioned routes alone", async () => {
    assert.deepEqual((await app.inject({ url: "/health" })).json(), { ok: true });
  });
});

describe("versions by query", () => {
  const { app } = appWith({ by: "query", default: "1" });

  it("dispatches by ?version=", async () => {
    assert.deepEqual((await app.inject({ url: "/users/7?version=2" })).json(), { id: 7, givenName: "Ada", familyName: "Lovelace" });
    assert.deepEqual((await app.inject({ url: "/users/7?version=1" })).json(), { id: 7, name: "Ada Lovelace" });
  });

  it("serves the default version without the parameter, and 404s an unknown or repeated one", async () => {
    assert.deepEqual((await app.inject({ url: "/users/7" })).json(), { id: 7, name: "Ada Lovelace" });
    assertUniformError(await app.inject({ url: "/users/7?version=3" }), 404, "not_found");
    assertUniformError(await app.inject({ url: "/users/7?version=1&version=2" }), 404, "not_found");
  });

  it("answers a missing version with the uniform 404 when there is no default", async () => {
    const { app } = appWith({ by: "query" });
    assertUniformError(await app.inject({ url: "/users/7" }), 404, "not_found");
  });
});

describe("versions by Accept parameter", () => {
  const { app } = appWith({ by: "accept" });

  it("dispatches by the version parameter of the Accept media type", async () => {
    const two = await app.inject({ url: "/users/7", headers: { accept: "application/json; version=2" } });
    assert.deepEqual(two.json(), { id: 7, givenName: "Ada", familyName: "Lovelace" });
    assert.equal(two.headers["vary"], "accept");
    const one = await app.inject({ url: "/users/7", headers: { accept: 'text/html;q=0.5, application/json; version="1"' } });
    assert.deepEqual(one.json(), { id: 7, name: "Ada Lovelace" });
  });

  it("takes the most preferred range that names a version", async () => {
    for (const accept of ["application/json; version=1; q=0.4, application/json; version=2; q=0.9", "application/json; version=2; q=0.9, application/json; version=1; q=0.4"]) {
      const res = await app.inject({ url: "/users/7", headers: { accept } });
      assert.deepEqual(res.json(), { id: 7, givenName: "Ada", familyName: "Lovelace" }, accept);
    }
  });

  it("never selects by a range the client refuses (q=0)", async () => {
    assertUniformError(await app.inject({ url: "/users/7", headers: { accept: "application/json; version=1; q=0" } }), 406, "not_acceptable");
  });

  it("answers an unknown or missing version with the uniform 406", async () => {
    assertUniformError(await app.inject({ url: "/users/7", headers: { accept: "application/json; version=7" } }), 406, "not_acceptable");
    assertUniformError(await app.inject({ url: "/users/7", headers: { accept: "application/json" } }), 406, "not_acceptable");
    assertUniformError(await app.inject({ url: "/users/7" }), 406, "not_acceptable");
  });

  it("serves the default version when Accept names none", async () => {
    const { app } = appWith({ by: "accept", default: "2" });
    assert.deepEqual((await app.inject({ url: "/users/7", headers: { accept: "*/*" } })).json(), { id: 7, givenName: "Ada", familyName: "Lovelace" });
  });
});

describe("deprecated versions", () => {
  const expectDeprecation = (headers: Record<string, unknown>) => {
    assert.equal(headers["deprecation"], "@1767225600"); // RFC 9745: sf-date, @<unix seconds>
    assert.equal(headers["sunset"], "Thu, 31 Dec 2026 23:59:59 GMT"); // RFC 8594: IMF-fixdate
    assert.equal(headers["link"], '<https://example.com/v1-deprecated>; rel="deprecation"; type="text/html", <https://example.com/v1-sunset>; rel="sunset"; type="text/html"');
  };

  for (const by of ["path", "header", "query", "accept"] as const) {
    it(`send Deprecation, Sunset and Link on every answer (by ${by}), errors included; current versions send none`, async () => {
      const { app } = appWith({ by });
      const ask = (v: string, url: string) =>
        by === "path" ? app.inject({ url: `/v${v}${url}` })
        : by === "header" ? app.inject({ url, headers: { "api-version": v } })
        : by === "query" ? app.inject({ url: `${url}?version=${v}` })
        : app.inject({ url, headers: { accept: `application/json; version=${v}` } });
      const ok = await ask("1", "/users/7");
      assert.equal(ok.status, 200);
      expectDeprecation(ok.headers);
      const bad = await ask("1", "/users/x");
      assert.equal(bad.status, 422);
      expectDeprecation(bad.headers);
      const current = await ask("2", "/users/7");
      assert.equal(current.status, 200);
      for (const h of ["deprecation", "sunset", "link"]) assert.equal(current.headers[h], undefined, h);
    });
  }

  it("keep a Link the route already set", async () => {
    const api = versions({ by: "header" }, [
      version("1", [route.get("/x", [], () => { throw new ApiError(410, "gone", "gone", { headers: { link: "</docs>; rel=help" } }); })], { deprecated: { date: DEPRECATED_AT, link: "https://example.com/d" } }),
    ]);
    const app = new App({ logger: silentLogger }).register(api);
    const res = await app.inject({ url: "/x", headers: { "api-version": "1" } });
    assert.equal(res.headers["link"], '</docs>; rel=help, <https://example.com/d>; rel="deprecation"; type="text/html"');
    assert.equal(res.headers["sunset"], undefined);
  });

  it("are refused at startup with an invalid date or link", () => {
    assert.throws(() => versions({ by: "header" }, [version("1", [], { deprecated: { date: new Date("nope") } })]), /valid Date/);
    assert.throws(() => versions({ by: "header" }, [version("1", [], { deprecated: { date: DEPRECATED_AT, link: "https://x> ; rel=evil" } })]), /URI/);
  });
});

describe("OpenAPI per version", () => {
  for (const by of ["path", "header"] as const) {
    it(`versionDocument holds one version's operations with info.version set (by ${by})`, () => {
      const { app, api } = appWith({ by, default: "2" });
      app.register(docs("/docs"));
      const p = by === "path" ? "/v1" : "";
      const one = versionDocument(app, api, "1", { title: "Users" });
      assert.equal(one.info.version, "1");
      assert.equal(one.info.title, "Users");
      assert.deepEqual(Object.keys(one.paths).sort(), [`${p}/legacy`, `${p}/users/{id}`]);
      const get1 = one.paths[`${p}/users/{id}`]!.get!;
      assert.equal(get1.summary, "Get a user (v1)");
      assert.equal(get1.deprecated, true);
      assert.notEqual(one.components?.schemas?.["UserV1"], undefined, "v1 schema");
      assert.equal(one.components?.schemas?.["UserV2"], undefined);
      const two = versionDocument(app, api, "2");
      assert.equal(two.info.version, "2");
      const p2 = by === "path" ? "/v2" : "";
      assert.deepEqual(Object.keys(two.paths).sort(), [`${p2}/users`, `${p2}/users/{id}`]);
      assert.equal(two.paths[`${p2}/users/{id}`]!.get!.deprecated, undefined);
      if (by === "header") {
        const param = (get1.parameters ?? []).find((x) => "name" in x && x.name.toLowerCase() === "api-version");
        assert.notEqual(param, undefined, "the version header is documented");
        assert.equal((param as { required: boolean }).required, true);
        const responses = get1.responses as Record<string, { headers?: Record<string, unknown> }>;
        assert.equal((responses["200"]?.headers?.["Deprecation"] as { schema: unknown } | undefined)?.schema !== undefined, true, "Deprecation documented");
        assert.notEqual(responses["404"], undefined, "404 documented");
      }
      assert.throws(() => versionDocument(app, api, "3"), /no version "3"/);
    });
  }

  it("the app's own document keeps its unversioned routes and leaves dispatch routes out", () => {
    const { app } = appWith({ by: "header" });
    const doc = openApiDocument(app);
    assert.deepEqual(Object.keys(doc.paths), ["/health"]);
  });
});

describe("an app without versions", () => {
  it("is unchanged: same routes, same answers, no version headers", async () => {
    const app = new App({ logger: silentLogger }).routes(v2Routes());
    const res = await app.inject({ url: "/users/7", headers: { "api-version": "1", accept: "application/json; version=1" } });
    assert.deepEqual(res.json(), { id: 7, givenName: "Ada", familyName: "Lovelace" });
    for (const h of ["vary", "deprecation", "sunset", "link"]) assert.equal(res.headers[h], undefined, h);
    assert.deepEqual(app.routeTable().map((r) => `${r.method} ${r.path}`), ["GET /users/{id}", "POST /users"]);
  });
});

describe("versions() refuses at startup", () => {
  it("a default that is not a version, a version given twice, a bad name, a strategy it does not know", () => {
    assert.throws(() => versions({ by: "header", default: "3" }, [version("1", [])]), /default "3"/);
    assert.throws(() => versions({ by: "header" }, [version("1", []), version("1", [])]), /given twice/);
    assert.throws(() => version("1 2", []), /version name/);
    assert.throws(() => versions({ by: "cookie" as never }, [version("1", [])]), /by must be/);
  });

  it("WebSocket routes outside path versions, and registering one ApiVersions twice", () => {
    const api = versions({ by: "header" }, [version("1", [route.ws("/chat", [], () => undefined)])]);
    assert.throws(() => new App({ logger: silentLogger }).register(api), /WebSocket/);
    const twice = makeApi({ by: "path" });
    new App({ logger: silentLogger }).register(twice);
    assert.throws(() => new App({ logger: silentLogger }).register(twice), /already registered/);
  });
});
