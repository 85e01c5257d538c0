import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, App, bodyExtractor, bytes, cookie, extractor, form, header, json, optional, path, query, requestContext, route, silentLogger, t, text, type AnyExtractor, type TSchema } from "../../lib/index.js";

const app = () => new App({ logger: silentLogger });
type ErrorBody = { error: { type: string; message: string; fields?: Array<{ field: string; code: string; message: string }> }; error_id: string };

describe("path", () => {
  it("gives the decoded string, or the coerced and validated value", async () => {
    const a = app().routes(
      route.get("/s/{name}", [path("name")], (n) => ({ n })),
      route.get("/n/{id}", [path("id", t.u64())], (id) => ({ id, type: typeof id })),
    );
    assert.deepEqual((await a.inject({ url: "/s/caf%C3%A9" })).json(), { n: "café" });
    assert.deepEqual((await a.inject({ url: "/n/42" })).json(), { id: 42, type: "number" });
    const bad = await a.inject({ url: "/n/abc" });
    assert.equal(bad.status, 422);
    const body = bad.json<ErrorBody>();
    assert.equal(body.error.type, "validation_error");
    assert.equal(body.error.fields?.[0]?.field, "id");
    assert.equal((await a.inject({ url: "/n/-1" })).status, 422);
  });
});

describe("query", () => {
  it("parses into a null-prototype map, arrays for repeats", async () => {
    const a = app().route(route.get("/q", [query()], (q) => ({ proto: Object.getPrototypeOf(q) === null, q: { ...q } })));
    const r = (await a.inject({ url: "/q?a=1&b=x%20y&a=2&__proto__=z&c" })).json<{ proto: boolean; q: Record<string, unknown> }>();
    assert.equal(r.proto, true);
    assert.deepEqual(r.q["a"], ["1", "2"]);
    assert.equal(r.q["b"], "x y");
    assert.equal(r.q["c"], "");
    assert.equal(({} as Record<string, unknown>)["z"], undefined);
  });

  it("validates and coerces against a schema", async () => {
    const Q = t.object({ page: t.integer({ minimum: 1 }), q: t.optional(t.string()) });
    const a = app().route(route.get("/q", [query(Q)], (q) => ({ page: q.page, q: q.q ?? null })));
    assert.deepEqual((await a.inject({ url: "/q?page=3&q=x" })).json(), { page: 3, q: "x" });
    const bad = await a.inject({ url: "/q?page=0" });
    assert.equal(bad.status, 422);
    assert.equal(bad.json<ErrorBody>().error.fields?.[0]?.field, "page");
    const missing = await a.inject({ url: "/q" });
    assert.equal(missing.status, 422);
    assert.equal(missing.json<ErrorBody>().error.fields?.[0]?.code, "required");
  });
});

describe("header and cookie", () => {
  it("missing header is 400 with its name; optional() gives undefined", async () => {
    const a = app().routes(
      route.get("/h", [header("X-Thing")], (v) => v),
      route.get("/o", [optional(header("x-thing"))], (v) => v ?? "none"),
      route.get("/c", [cookie("sid")], (v) => v),
    );
    const missing = await a.inject({ url: "/h" });
    assert.equal(missing.status, 400);
    assert.equal(missing.json<ErrorBody>().error.message, "Missing required header: x-thing");
    assert.equal((await a.inject({ url: "/h", headers: { "x-thing": "v" } })).json(), "v");
    assert.equal((await a.inject({ url: "/o" })).json(), "none");
    assert.equal((await a.inject({ url: "/c", headers: { cookie: "a=1; sid=abc%20d; sid=second" } })).json(), "abc d");
    assert.equal((await a.inject({ url: "/c" })).status, 400);
  });

  it("validated header", async () => {
    const a = app().route(route.get("/h", [header("x-n", t.integer({ maximum: 5 }))], (n) => n + 1));
    assert.equal((await a.inject({ url: "/h", headers: { "x-n": "4" } })).json(), 5);
    assert.equal((await a.inject({ url: "/h", headers: { "x-n": "9" } })).status, 422);
  });
});

describe("json body", () => {
  const User = t.object({ email: t.string({ email: true }), password: t.string({ length: { min: 8 } }) });
  const a = app().route(route.post("/u", [json(User)], (u) => ({ email: u.email })));
  const post = (body: string, type = "application/json") => a.inject({ method: "POST", url: "/u", headers: { "content-type": type }, body });

  it("accepts valid bodies (+json too)", async () => {
    assert.deepEqual((await post('{"email":"a@b.co","password":"12345678"}')).json(), { email: "a@b.co" });
    assert.equal((await post('{"email":"a@b.co","password":"12345678"}', "application/vnd.api+json; charset=utf-8")).status, 200);
  });

  it("415 for other content types or none", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", ""]) {
      const r = await post('{"email":"a@b.co","password":"12345678"}', type);
      assert.equal(r.status, 415, type);
      assert.equal(r.json<ErrorBody>().error.type, "unsupported_media_type");
    }
  });

  it("400 for malformed JSON with a useful message", async () => {
    const r = await post('{"email": ');
    assert.equal(r.status, 400);
    assert.match(r.json<ErrorBody>().error.message, /^Invalid JSON: /);
    assert.equal((await post("")).status, 400);
  });

  it("400 for __proto__ and constructor.prototype keys, even escaped", async () => {
    for (const body of [
      '{"email":"a@b.co","password":"12345678","__proto__":{"admin":true}}',
      '{"a":{"\\u005f_proto__":{"x":1}}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '[{"nested":{"constructor":{"prototype":{}}}}]',
    ]) {
      const r = await post(body);
      assert.equal(r.status, 400, body);
      assert.match(r.json<ErrorBody>().error.message, /Forbidden key/);
    }
    // "constructor" as a harmless value or a key without prototype is fine.
    const ok = app().route(route.post("/j", [json()], (v) => v));
    const r = await ok.inject({ method: "POST", url: "/j", headers: { "content-type": "application/json" }, body: '{"constructor":"x","k":"__proto__"}' });
    assert.equal(r.status, 200);
  });

  it("nesting deeper than the limit is 400, never a crash", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const r = await post(deep);
    assert.equal(r.status, 400);
    assert.match(r.json<ErrorBody>().error.message, /nesting/);
    const b = new App({ logger: silentLogger, jsonDepth: 3 }).route(route.post("/j", [json()], (v) => v));
    const hdr = { "content-type": "application/json" };
    assert.equal((await b.inject({ method: "POST", url: "/j", headers: hdr, body: '{"a":{"b":{"c":1}}}' })).status, 200);
    assert.equal((await b.inject({ method: "POST", url: "/j", headers: hdr, body: '{"a":{"b":{"c":[1]}}}' })).status, 400);
    assert.equal((await b.inject({ method: "POST", url: "/j", headers: hdr, body: '{"a":"[[[[[[["}' })).status, 200);
  });

  it("422 lists one field item per failed rule", async () => {
    const r = await post('{"email":"nope","password":"short"}');
    assert.equal(r.status, 422);
    const b = r.json<ErrorBody>();
    assert.equal(b.error.type, "validation_error");
    assert.equal(b.error.message, "Request validation failed");
    const fields = (b.error.fields ?? []).map((f) => `${f.field}:${f.code}`).sort();
    assert.deepEqual(fields, ["email:email", "password:length"]);
  });
});

describe("text, bytes, form", () => {
  const a = app().routes(
    route.post("/t", [text()], (s) => ({ s })),
    route.post("/b", [bytes()], (b) => ({ n: b.length, first: b[0] })),
    route.post("/f", [form(t.object({ n: t.integer(), tags: t.array(t.string()) }))], (f) => f),
  );

  it("text requires valid UTF-8", async () => {
    assert.deepEqual((await a.inject({ method: "POST", url: "/t", headers: { "content-type": "text/plain" }, body: "héllo" })).json(), { s: "héllo" });
    const bad = await a.inject({ method: "POST", url: "/t", headers: { "content-type": "text/plain" }, body: Buffer.from([0x68, 0xff, 0xfe]) });
    assert.equal(bad.status, 400);
    assert.match(bad.json<ErrorBody>().error.message, /UTF-8/);
    assert.equal((await a.inject({ method: "POST", url: "/t", headers: { "content-type": "application/json" }, body: "{}" })).status, 415);
  });

  it("bytes gives the raw body", async () => {
    assert.deepEqual((await a.inject({ method: "POST", url: "/b", body: Buffer.from([9, 8, 7]) })).json(), { n: 3, first: 9 });
  });

  it("form parses urlencoded bodies and validates with coercion", async () => {
    const ok = await a.inject({ method: "POST", url: "/f", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "n=5&tags=a&tags=b+c" });
    assert.deepEqual(ok.json(), { n: 5, tags: ["a", "b c"] });
    const bad = await a.inject({ method: "POST", url: "/f", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "n=x&tags=a" });
    assert.equal(bad.status, 422);
    assert.equal((await a.inject({ method: "POST", url: "/f", headers: { "content-type": "application/json" }, body: "{}" })).status, 415);
  });
});

describe("combinators and custom extractors", () => {
  it("map, refine and a custom extractor in a few lines", async () => {
    const tenant = extractor("tenant", (ctx) => {
      const v = ctx.header("x-tenant")?.trim();
      if (!v) throw ApiError.badRequest("x-tenant required");
      return v;
    });
    const upper = tenant.map((v) => v.toUpperCase());
    const short = header("x-code").refine((v) => v.length <= 3, "x-code too long");
    const asyncMap = header("x-n").map(async (v) => Number(v) * 2);
    const a = app().routes(
      route.get("/t", [upper], (v) => v),
      route.get("/r", [short], (v) => v),
      route.get("/m", [asyncMap, tenant], (n, t2) => ({ n, t2 })),
    );
    assert.equal((await a.inject({ url: "/t", headers: { "x-tenant": " acme " } })).json(), "ACME");
    assert.equal((await a.inject({ url: "/t" })).status, 400);
    assert.equal((await a.inject({ url: "/r", headers: { "x-code": "abcd" } })).json<ErrorBody>().error.message, "x-code too long");
    assert.deepEqual((await a.inject({ url: "/m", headers: { "x-n": "21", "x-tenant": "z" } })).json(), { n: 42, t2: "z" });
  });

  it("requestContext gives method, url, route, remote address", async () => {
    const a = app().route(route.get("/rc/{id}", [requestContext()], (rc) => ({ m: rc.method, u: rc.url, r: rc.route, ip: rc.remoteAddress })));
    assert.deepEqual((await a.inject({ url: "/rc/1?x=2", remoteAddress: "10.0.0.9" })).json(), { m: "GET", u: "/rc/1?x=2", r: "/rc/{id}", ip: "10.0.0.9" });
  });

  it("16 extractors work; a 17th is a registration error", async () => {
    const many = Array.from({ length: 16 }, (_, i) => extractor("n" + i, () => i));
    const a = app().route(route.get("/16", many as AnyExtractor[], (...xs: unknown[]) => xs.length));
    assert.equal((await a.inject({ url: "/16" })).json(), 16);
    const seventeen = Array.from({ length: 17 }, (_, i) => extractor("n" + i, () => i));
    assert.throws(() => route.get("/17", seventeen as AnyExtractor[], () => 1), /at most 16 extractors/);
  });

  it("a body extractor that is not last, or a second body extractor, is a registration error", () => {
    const untyped = route.post as unknown as (p: string, e: AnyExtractor[], h: () => unknown) => unknown;
    assert.throws(() => untyped("/x", [json(), header("a")], () => 1), /must be the last argument/);
    assert.throws(() => untyped("/x", [text(), json()], () => 1), /body can be read once/);
    const custom = bodyExtractor("raw", (ctx) => ctx.body());
    assert.throws(() => untyped("/x", [custom, header("a")], () => 1), /raw must be the last/);
  });
});

describe("recursive named schemas", () => {
  it("json() validates a tree whose schema refers to itself by name", async () => {
    type TreeNode = { name: string; children: TreeNode[] };
    const Node = t.named(
      "TreeNode",
      t.object({ name: t.string({ length: { min: 1 } }), children: t.array(t.ref<TSchema<TreeNode>>("TreeNode")) }),
    );
    const a = app().route(route.post("/tree", [json(Node)], (tree) => ({ root: tree.name })));
    const post = (body: unknown) => a.inject({ method: "POST", url: "/tree", body });
    const ok = await post({ name: "a", children: [{ name: "b", children: [{ name: "c", children: [] }] }] });
    assert.equal(ok.status, 200);
    const bad = await post({ name: "a", children: [{ name: "b", children: [{ name: "", children: [] }] }] });
    assert.equal(bad.status, 422);
    assert.equal(bad.json<ErrorBody>().error.fields?.[0]?.field, "children[0].children[0].name");
  });
});
