// Standard Schema in, against the real libraries (issue 33 item 4): zod 4, valibot 1 and arktype 2,
// installed on demand into .tmp/test-peers (spec/support/test-peers.ts), never as dependencies.
// The same route with each library gives the same 201, the same 422 items (modulo the library's
// message) and the same OpenAPI request schema (modulo the library's own wording).
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import { App, created, json, query, route, silentLogger, type StandardSchemaV1 } from "../../lib/index.js";
import { findDanglingRefs, openApiDocument } from "../../lib/openapi/index.js";
import { testPeer } from "../support/test-peers.js";

const ZOD = "4.6.7";
const VALIBOT = "1.5.0";
const VALIBOT_JSON = "1.8.0";
const ARKTYPE = "2.2.9";

const [zodDir, valibotDir, valibotJsonDir, arktypeDir] = await Promise.all([
  testPeer("zod", ZOD),
  testPeer("valibot", VALIBOT),
  testPeer("@valibot/to-json-schema", VALIBOT_JSON),
  testPeer("arktype", ARKTYPE),
]);
const skip =
  zodDir === null || valibotDir === null || valibotJsonDir === null || arktypeDir === null
    ? `zod@${ZOD}, valibot@${VALIBOT}, @valibot/to-json-schema@${VALIBOT_JSON} or arktype@${ARKTYPE} could not be installed into .tmp/test-peers (offline?)`
    : false;

type ErrorBody = { error: { type: string; fields?: Array<{ field: string; code: string; message: string }> } };
type Schema = StandardSchemaV1 & { readonly "~standard": { readonly jsonSchema?: unknown } };
/** The libraries' builders, loosely typed (their types are not in this project's dependencies). */
type Loose = Record<string, any>;

const load = async (dir: string, entry: string): Promise<Loose> => (await import(pathToFileURL(join(dir, entry)).href)) as Loose;

/** The signup body and the paging query, written in each library. */
async function schemas(): Promise<Record<string, { body: Schema; query: Schema }>> {
  const { z } = (await load(zodDir!, "index.js")) as unknown as { z: Loose };
  const v = await load(valibotDir!, "dist/index.mjs");
  const { toStandardJsonSchema } = await load(valibotJsonDir!, "dist/index.mjs");
  const { type } = await load(arktypeDir!, "out/index.js");
  return {
    zod: {
      body: z.object!({ email: z.email!(), password: z.string!().min(8), tags: z.array!(z.string!()).optional() }),
      query: z.object!({ page: z.coerce.number().int().min(1) }),
    },
    valibot: {
      // valibot's schemas validate as they are; its JSON Schema comes with toStandardJsonSchema().
      body: toStandardJsonSchema!(
        v.object!({ email: v.pipe!(v.string!(), v.email!()), password: v.pipe!(v.string!(), v.minLength!(8)), tags: v.optional!(v.array!(v.string!())) }),
      ),
      query: v.object!({ page: v.pipe!(v.string!(), v.transform!(Number), v.integer!(), v.minValue!(1)) }),
    },
    arktype: {
      body: type!({ email: "string.email", password: "string >= 8", "tags?": "string[]" }),
      query: type!({ page: type!("string.integer.parse").to("number >= 1") }),
    },
  };
}

/** A JSON Schema without what differs between libraries only in wording (regexes for email, `$schema`). */
function comparable(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === "pattern" || key === "$schema" ? undefined : value)));
}

describe("Standard Schema in: zod 4, valibot 1, arktype 2", { skip }, () => {
  const all = schemas();
  const apps = (async () => {
    const out: Record<string, App> = {};
    for (const [name, s] of Object.entries(await all)) {
      out[name] = new App({ logger: silentLogger }).routes(
        route.post("/signup", [json(s.body)], (b) => created({ email: (b as { email: string }).email })),
        route.get("/items", [query(s.query)], (q) => ({ page: (q as { page: number }).page })),
      );
    }
    return out;
  })();

  it("gives the same 201 for a good body with each library", async () => {
    for (const [name, app] of Object.entries(await apps)) {
      const r = await app.inject({ method: "POST", url: "/signup", body: { email: "ada@example.com", password: "correct horse", tags: ["a"] } });
      assert.equal(r.status, 201, name);
      assert.deepEqual(r.json(), { email: "ada@example.com" }, name);
    }
  });

  it("gives the same 422 items for the same bad body, each with its library's message", async () => {
    for (const [name, app] of Object.entries(await apps)) {
      const r = await app.inject({ method: "POST", url: "/signup", body: { email: "nope", password: "x", tags: ["a", 3] } });
      assert.equal(r.status, 422, name);
      const fields = r.json<ErrorBody>().error.fields!;
      assert.deepEqual(fields.map((f) => [f.field, f.code]), [["email", "invalid"], ["password", "invalid"], ["tags[1]", "invalid"]], name);
      for (const f of fields) assert.ok(f.message.length > 0, `${name}: ${f.field} has a message`);
    }
  });

  it("gives a query schema the values as strings: one that coerces gets its number", async () => {
    for (const [name, app] of Object.entries(await apps)) {
      const ok = await app.inject({ url: "/items?page=3" });
      assert.deepEqual(ok.json(), { page: 3 }, name);
      const bad = await app.inject({ url: "/items?page=0" });
      assert.equal(bad.status, 422, name);
      assert.deepEqual(bad.json<ErrorBody>().error.fields!.map((f) => f.field), ["page"], name);
    }
  });

  it("documents the same OpenAPI request schema with each library (modulo wording)", async () => {
    const expected = {
      type: "object",
      properties: {
        email: { type: "string", format: "email" },
        password: { type: "string", minLength: 8 },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["email", "password"],
    };
    for (const [name, s] of Object.entries(await all)) {
      const app = new App({ logger: silentLogger }).route(route.post("/signup", [json(s.body)], () => "ok"));
      const op = openApiDocument(app).paths["/signup"]!.post!;
      assert.deepEqual(comparable(op.requestBody!.content["application/json"]!.schema), expected, name);
    }
  });

  it("names the route and the schema when a library's schema offers no JSON Schema (a bare valibot schema)", async () => {
    // The valibot query schema is not wrapped with toStandardJsonSchema(): it offers no JSON Schema.
    const app = (await apps)["valibot"]!;
    assert.throws(() => openApiDocument(app), /GET \/items \(query\): a valibot schema offers no Standard JSON Schema/);
    const doc = openApiDocument(app, { unconstrainedSchemas: true });
    assert.deepEqual(doc.paths["/items"]!.get!.parameters, undefined); // an unconstrained query object has no named parameters
  });
  it("hoists a converted schema's $defs and root recursion into components (no dangling $ref)", async () => {
    const { z } = (await load(zodDir!, "index.js")) as unknown as { z: Loose };
    const Tag = z.object({ label: z.string() }).meta({ id: "Tag" });
    const Post = z.object({ tags: z.array(Tag), main: Tag });
    const Category: Loose = z.object({ name: z.string(), get children() { return z.array(Category); } });
    const app = new App({ logger: silentLogger }).routes(
      route.post("/posts", [json(Post)], () => "ok"),
      route.post("/categories", [json(Category)], () => "ok"),
    );
    const doc = openApiDocument(app);
    assert.deepEqual(findDanglingRefs(doc), []);
    const schemas = JSON.parse(JSON.stringify(doc.components.schemas)) as Record<string, { properties?: Record<string, unknown> }>;
    assert.deepEqual(schemas["Tag"], { type: "object", properties: { label: { type: "string" } }, required: ["label"] });
    const post = JSON.parse(JSON.stringify(doc.paths["/posts"]!.post!.requestBody!.content["application/json"]!.schema)) as { properties: Record<string, unknown> };
    assert.deepEqual(post.properties["main"], { $ref: "#/components/schemas/Tag" });
    const category = doc.paths["/categories"]!.post!.requestBody!.content["application/json"]!.schema as { $ref: string };
    const name = category.$ref.replace("#/components/schemas/", "");
    assert.deepEqual(schemas[name]!.properties!["children"], { type: "array", items: { $ref: category.$ref } });
  });
});
