// Standard Schema in (issue 33): every schema extractor and declared response takes any
// StandardSchemaV1 besides JSON Schema; issues become the uniform 422; an object that is neither
// is refused at registration naming the route. Hand-written schemas here (no library): the real
// zod, valibot and arktype are in standard-schema-peers.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, cookie, created, form, header, json, path, query, route, silentLogger, t, type StandardSchemaV1, type Static, type StaticInput } from "../../lib/index.js";
import { openApiDocument } from "../../lib/openapi/index.js";
import { multipart } from "../../lib/web/index.js";
import { toon } from "../../lib/toon/index.js";

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
type ErrorBody = { error: { type: string; fields?: Array<{ field: string; code: string; message: string }> } };

/** A tiny Standard Schema: `check` returns the issues (or none) and the output value. */
function standard<I, O>(
  check: (value: unknown) => { value: O } | { issues: StandardSchemaV1.Issue[] },
  options: { async?: boolean; jsonSchema?: Record<string, unknown>; vendor?: string } = {},
): StandardSchemaV1<I, O> & { readonly "~standard": { jsonSchema?: unknown } } {
  const props: Record<string, unknown> = {
    version: 1,
    vendor: options.vendor ?? "handmade",
    validate: (value: unknown) => (options.async === true ? Promise.resolve().then(() => check(value)) : check(value)),
  };
  if (options.jsonSchema !== undefined) {
    const js = options.jsonSchema;
    props["jsonSchema"] = { input: () => ({ $schema: "https://json-schema.org/draft/2020-12/schema", ...js }), output: () => ({ ...js, title: "out" }) };
  }
  return { "~standard": props } as never;
}

interface Signup { email: string; password: string }
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const signupCheck = (v: unknown): { value: Signup } | { issues: StandardSchemaV1.Issue[] } => {
  if (!isRecord(v)) return { issues: [{ message: "Expected object" }] };
  const issues: StandardSchemaV1.Issue[] = [];
  if (typeof v["email"] !== "string" || !v["email"].includes("@")) issues.push({ message: "Invalid email", path: ["email"] });
  if (typeof v["password"] !== "string" || v["password"].length < 8) issues.push({ message: "Too short", path: [{ key: "password" }] });
  const tags = v["tags"];
  if (Array.isArray(tags)) tags.forEach((x, i) => typeof x !== "string" && issues.push({ message: "Expected string", path: ["tags", { key: i }] }));
  if (isRecord(v["odd"])) issues.push({ message: "Bad key", path: ["odd", "a b"] });
  return issues.length > 0 ? { issues } : { value: { email: String(v["email"]).toLowerCase(), password: String(v["password"]) } };
};

describe("Standard Schema in: json()", () => {
  for (const async of [false, true]) {
    const Signup = standard<unknown, Signup>(signupCheck, { async });
    const app = new App({ logger: silentLogger }).route(
      route.post("/signup", [json(Signup)], (body) => {
        const email: string = body.email; // the handler's argument is the schema's output type
        return created({ email });
      }),
    );

    it(`validates (${async ? "async" : "sync"} validate) and hands the handler the validated value`, async () => {
      const r = await app.inject({ method: "POST", url: "/signup", body: { email: "A@B.io", password: "long enough" } });
      assert.equal(r.status, 201);
      assert.deepEqual(r.json(), { email: "a@b.io" });
    });

    it(`turns every issue into one 422 field item in keel's notation (${async ? "async" : "sync"})`, async () => {
      const r = await app.inject({ method: "POST", url: "/signup", body: { email: "nope", password: "x", tags: ["a", 3], odd: {} } });
      assert.equal(r.status, 422);
      const body = r.json<ErrorBody>();
      assert.equal(body.error.type, "validation_error");
      assert.deepEqual(body.error.fields, [
        { field: "email", code: "invalid", message: "Invalid email" },
        { field: "password", code: "invalid", message: "Too short" },
        { field: "tags[1]", code: "invalid", message: "Expected string" },
        { field: 'odd["a b"]', code: "invalid", message: "Bad key" },
      ]);
    });

    it(`reports a root issue as the body, as keel's own schemas do (${async ? "async" : "sync"})`, async () => {
      const r = await app.inject({ method: "POST", url: "/signup", body: [1] });
      assert.equal(r.status, 422);
      assert.deepEqual(r.json<ErrorBody>().error.fields, [{ field: "body", code: "invalid", message: "Expected object" }]);
    });
  }

  it("keeps at most 100 field items for a schema that reports thousands of issues", async () => {
    const many = standard(() => ({ issues: Array.from({ length: 5000 }, (_, i) => ({ message: "bad", path: [i] })) }));
    const app = new App({ logger: silentLogger }).route(route.post("/x", [json(many)], () => "ok"));
    const r = await app.inject({ method: "POST", url: "/x", body: {} });
    assert.equal(r.status, 422);
    assert.equal(r.json<ErrorBody>().error.fields!.length, 100);
  });

  it("accepts a schema that is a function (arktype's types are callable)", async () => {
    const fn = Object.assign(() => undefined, { "~standard": { version: 1, vendor: "fn", validate: (v: unknown) => (v === 1 ? { value: 1 } : { issues: [{ message: "not one" }] }) } });
    const app = new App({ logger: silentLogger }).route(route.post("/x", [json(fn as unknown as StandardSchemaV1<number>)], (n) => ({ n })));
    assert.equal((await app.inject({ method: "POST", url: "/x", body: 1 })).status, 200);
    assert.equal((await app.inject({ method: "POST", url: "/x", body: 2 })).status, 422);
  });
});

describe("Standard Schema in: query, path, header, cookie, form", () => {
  const seen: unknown[] = [];
  const record = standard<unknown, unknown>((v) => {
    seen.push(v);
    if (isRecord(v) && v["page"] === "0") return { issues: [{ message: "page must be positive", path: ["page"] }] };
    return { value: v };
  });
  const id = standard<string, number>((v) => (typeof v === "string" && /^\d+$/.test(v) ? { value: Number(v) } : { issues: [{ message: "not digits" }] }));
  const app = new App({ logger: silentLogger }).routes(
    route.get("/q", [query(record)], (q) => q),
    route.get("/p/{id}", [path("id", id)], (n) => ({ n, type: typeof n })),
    route.get("/h", [header("X-Page", id)], (n) => ({ n })),
    route.get("/c", [cookie("page", id)], (n) => ({ n })),
    route.post("/f", [form(record)], (f) => f),
  );

  it("gives query values to the schema as strings (arrays for repeated names)", async () => {
    seen.length = 0;
    const r = await app.inject({ url: "/q?page=2&tag=a&tag=b" });
    assert.equal(r.status, 200);
    assert.deepEqual({ ...(seen[0] as object) }, { page: "2", tag: ["a", "b"] });
    const bad = await app.inject({ url: "/q?page=0" });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.json<ErrorBody>().error.fields, [{ field: "page", code: "invalid", message: "page must be positive" }]);
  });

  it("names a path parameter, header or cookie by its name in the 422", async () => {
    assert.deepEqual((await app.inject({ url: "/p/42" })).json(), { n: 42, type: "number" });
    assert.deepEqual((await app.inject({ url: "/p/x" })).json<ErrorBody>().error.fields, [{ field: "id", code: "invalid", message: "not digits" }]);
    assert.deepEqual((await app.inject({ url: "/h", headers: { "x-page": "7" } })).json(), { n: 7 });
    assert.deepEqual((await app.inject({ url: "/h", headers: { "x-page": "x" } })).json<ErrorBody>().error.fields, [{ field: "x-page", code: "invalid", message: "not digits" }]);
    assert.deepEqual((await app.inject({ url: "/c", headers: { cookie: "page=9" } })).json(), { n: 9 });
    assert.deepEqual((await app.inject({ url: "/c", headers: { cookie: "page=y" } })).json<ErrorBody>().error.fields, [{ field: "page", code: "invalid", message: "not digits" }]);
    assert.equal((await app.inject({ url: "/c" })).status, 400);
  });

  it("validates an urlencoded form", async () => {
    const r = await app.inject({ method: "POST", url: "/f", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "page=0" });
    assert.equal(r.status, 422);
  });
});

describe("Standard Schema in: multipart text fields", () => {
  const B = "----keelStd";
  const part = (name: string, value: string): string => `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const fields = standard<unknown, { title: string }>(
    (v) => (isRecord(v) && typeof v["title"] === "string" && v["title"] !== "" ? { value: { title: v["title"] } } : { issues: [{ message: "Required", path: ["title"] }] }),
    { async: true, jsonSchema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] } },
  );
  const app = new App({ logger: silentLogger }).route(route.post("/up", [multipart({ fields })], (b) => b.fields));
  const post = (payload: string) => app.inject({ method: "POST", url: "/up", headers: { "content-type": `multipart/form-data; boundary=${B}` }, body: `${payload}--${B}--\r\n` });

  it("validates the text fields (as strings) and documents them from the offered JSON Schema", async () => {
    assert.deepEqual((await post(part("title", "hello") + part("extra", "x"))).json(), { title: "hello" });
    const bad = await post(part("other", "x"));
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.json<ErrorBody>().error.fields, [{ field: "title", code: "invalid", message: "Required" }]);
    const schema = openApiDocument(app).paths["/up"]!.post!.requestBody!.content["multipart/form-data"]!.schema as { required?: string[] };
    assert.deepEqual(schema.required, ["title"]);
  });
});

describe("Standard Schema in: toon bodies", () => {
  const app = new App({ logger: silentLogger }).route(route.post("/t", [toon(standard<unknown, Signup>(signupCheck))], (b) => ({ email: b.email })));
  const post = (text: string) => app.inject({ method: "POST", url: "/t", headers: { "content-type": "application/toon" }, body: text });

  it("validates a decoded TOON body with the foreign schema", async () => {
    assert.deepEqual((await post("email: A@B.io\npassword: long enough")).json(), { email: "a@b.io" });
    const bad = await post("email: nope\npassword: x");
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.json<ErrorBody>().error.fields!.map((f) => f.field), ["email", "password"]);
  });

  it("refuses a schema that is neither, naming the route", () => {
    assert.throws(() => new App({ logger: silentLogger }).route(route.post("/t", [toon(new Map() as never)], () => "x")), /POST \/t: the schema of extractor toon is an instance of Map/);
  });
});

describe("Standard Schema in: declared responses", () => {
  // Strips every property but `id`, as zod's z.object does by default.
  const strip = (async: boolean) =>
    standard<unknown, { id: number }>(
      (v) => (isRecord(v) && typeof v["id"] === "number" ? { value: { id: v["id"] } } : { issues: [{ message: "Expected number", path: ["id"] }] }),
      { async },
    );
  const logs: string[] = [];
  const logger = { ...silentLogger, error: (_msg: string, fields?: Record<string, unknown>) => void logs.push(JSON.stringify(fields ?? {})) };
  const app = new App({ logger: logger as typeof silentLogger }).routes(
    route.get("/ok", { responses: { 200: strip(false) } }, [], () => ({ id: 1, secret: "x" })),
    route.post("/made", { responses: { 201: { description: "made", schema: strip(false) } } }, [], () => created({ id: 2, secret: "x" })),
    route.get("/bad", { responses: { 200: strip(false) } }, [], () => ({ id: "nope" }) as never),
    route.get("/async", { responses: { 200: strip(true) } }, [], () => ({ id: 1 })),
  );
  it("validates the reply and sends the validated value (a stripping schema strips)", async () => {
    assert.deepEqual((await app.inject({ url: "/ok" })).json(), { id: 1 });
    const made = await app.inject({ method: "POST", url: "/made" });
    assert.equal(made.status, 201);
    assert.deepEqual(made.json(), { id: 2 });
  });
  it("answers 500 for a reply that breaks its foreign schema, naming the issue in the log only", async () => {
    const r = await app.inject({ url: "/bad" });
    assert.equal(r.status, 500);
    assert.doesNotMatch(r.body, /nope|Expected number/);
  });
  it("answers 500 for a response schema that validates asynchronously (declared responses need a synchronous validate)", async () => {
    const r = await app.inject({ url: "/async" });
    assert.equal(r.status, 500);
  });
});

describe("a schema that is neither JSON Schema nor Standard Schema", () => {
  class NotASchema {
    readonly shape = {};
  }
  it("is refused at registration with an error naming the route and the extractor", () => {
    const app = new App({ logger: silentLogger });
    assert.throws(() => app.route(route.post("/users", [json(new NotASchema() as never)], () => "x")), /POST \/users: the schema of extractor json is an instance of NotASchema/);
    assert.throws(() => app.route(route.get("/q", [query((() => 1) as never)], () => "x")), /GET \/q: the schema of extractor query is a function/);
    assert.throws(() => app.route(route.get("/p/{id}", [path("id", "uuid" as never)], () => "x")), /GET \/p\/\{id\}: the schema of extractor path:id is a string/);
    const typesOnly = { "~standard": { version: 1, vendor: "x" } };
    assert.throws(() => app.route(route.post("/t", [json(typesOnly as never)], () => "x")), /has a ~standard without validate\(\)/);
  });
  it("is refused as a declared response naming the route and status", () => {
    const app = new App({ logger: silentLogger });
    assert.throws(() => app.route(route.get("/r", { responses: { 200: new NotASchema() as never } }, [], () => "x" as never)), /GET \/r: response 200 schema cannot be compiled: the schema is an instance of NotASchema/);
  });
});

describe("OpenAPI for Standard Schemas", () => {
  const body = standard(signupCheck, { jsonSchema: { type: "object", properties: { email: { type: "string" } }, required: ["email"] } });
  const bare = standard(signupCheck, { vendor: "bare" });

  it("documents a request from ~standard.jsonSchema.input and a response from .output", () => {
    const app = new App({ logger: silentLogger }).route(route.post("/s", { responses: { 200: body } }, [json(body)], () => ({}) as never));
    const op = openApiDocument(app).paths["/s"]!.post!;
    assert.deepEqual(plain(op.requestBody!.content["application/json"]!.schema), { type: "object", properties: { email: { type: "string" } }, required: ["email"] });
    assert.equal((op.responses["200"]!.content!["application/json"]!.schema as { title?: string }).title, "out");
  });

  it("documents query parameters from the JSON Schema a query schema offers", () => {
    const q = standard((v) => ({ value: v }), { jsonSchema: { type: "object", properties: { page: { type: "integer" } }, required: ["page"] } });
    const app = new App({ logger: silentLogger }).route(route.get("/q", [query(q)], () => "x"));
    assert.deepEqual(plain(openApiDocument(app).paths["/q"]!.get!.parameters), [{ name: "page", in: "query", required: true, schema: { type: "integer" } }]);
  });

  it("names the route and the schema when one offers no JSON Schema, unless told to document it unconstrained", () => {
    const app = new App({ logger: silentLogger }).route(route.post("/bare", [json(bare)], () => "x"));
    assert.throws(() => openApiDocument(app), /POST \/bare \(json body\): a bare schema offers no Standard JSON Schema/);
    const doc = openApiDocument(app, { unconstrainedSchemas: true });
    assert.deepEqual(plain(doc.paths["/bare"]!.post!.requestBody!.content["application/json"]!.schema), { description: "Validated by a bare schema, which offers no JSON Schema" });
  });
});

describe("Standard Schema types", () => {
  it("types the handler's argument with the schema's output and a typed client's input with its input", () => {
    type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
    const digits = standard<string, number>((v) => ({ value: Number(v) }));
    const ok1: Equal<Static<typeof digits>, number> = true;
    const ok2: Equal<StaticInput<typeof digits>, string> = true;
    const ok3: Equal<Static<ReturnType<typeof t.string>>, string> = true;
    const e = path("id", digits);
    const ok4: Equal<(typeof e)["__type"], number> = true;
    assert.ok(ok1 && ok2 && ok3 && ok4);
  });
});

describe("Standard Schema out: t schemas", () => {
  const User = t.object({ name: t.string({ length: { min: 2 } }), tags: t.optional(t.array(t.string())) });

  it("implement ~standard (vendor keel) with keel's validator, invisible to JSON", async () => {
    const std = User["~standard"];
    assert.equal(std.version, 1);
    assert.equal(std.vendor, "keel");
    assert.deepEqual(await std.validate({ name: "Al" }), { value: { name: "Al" } });
    const failed = (await std.validate({ name: "A", tags: ["x", 1] })) as StandardSchemaV1.FailureResult;
    assert.deepEqual(failed.issues.map((i) => i.path), [["name"], ["tags", 1]]);
    assert.ok(failed.issues.every((i) => typeof i.message === "string" && i.message !== ""));
    assert.equal(JSON.stringify(User).includes("standard"), false);
    assert.equal(Object.keys(User).includes("~standard"), false);
  });

  it("implement Standard JSON Schema: the JSON Schema itself, draft 2020-12 only", () => {
    const input = User["~standard"].jsonSchema.input({ target: "draft-2020-12" });
    assert.deepEqual(input, JSON.parse(JSON.stringify(User)));
    assert.deepEqual(User["~standard"].jsonSchema.output({ target: "draft-2020-12" }), input);
    assert.throws(() => User["~standard"].jsonSchema.input({ target: "openapi-3.0" }), /not supported/);
  });

  it("stay keel's own schemas in extractors (not read as foreign)", async () => {
    const app = new App({ logger: silentLogger }).route(route.post("/u", [json(User)], (u) => u));
    const r = await app.inject({ method: "POST", url: "/u", body: { name: "A" } });
    assert.equal(r.status, 422);
    assert.equal(r.json<ErrorBody>().error.fields![0]!.code, "length");
  });
});
