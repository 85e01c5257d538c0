// The generated documents against the official OpenAPI 3.1 schema (schema-base: Schema Objects are
// checked against the OAS dialect too), using keel's own validator; and the OAI pass/fail fixture
// documents through the same validator, to show it agrees with the schema's intent.
// Data comes from KEEL_CONFORMANCE_DIR or ../shared/conformance (never copied into the repo).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { App, extractor, header, json, path, query, route, silentLogger, t } from "../../lib/index.js";
import { buildOpenApiDocument, docsRoutes, openApiDocument } from "../../lib/openapi/index.js";
import { compileSchema, SchemaRegistry, type CompiledSchema, type JsonSchema } from "../../lib/json-schema/index.js";
import { createSampleApp } from "../../lib/sample/index.js";

const repo = resolve(fileURLToPath(new URL(".", import.meta.url)), "../..");
const conformance = process.env["KEEL_CONFORMANCE_DIR"] ?? resolve(repo, "../shared/conformance");
const oasDir = join(conformance, "openapi/v3.1");
const metaDir = join(conformance, "json-schema-metaschemas/draft2020-12");
const present = existsSync(join(oasDir, "schema-base.json")) && existsSync(join(metaDir, "schema.json"));
const SKIP = present ? false : `OpenAPI conformance data not found under ${conformance}`;

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, "utf8"));
}

let validator: CompiledSchema | undefined;
/** schema-base.json compiled once, with every schema it reaches registered under its $id. */
function oasValidator(): CompiledSchema {
  if (validator !== undefined) return validator;
  const registry = new SchemaRegistry();
  registry.add(readJson(join(metaDir, "schema.json")) as JsonSchema);
  for (const f of readdirSync(join(metaDir, "meta")).filter((n) => n.endsWith(".json"))) registry.add(readJson(join(metaDir, "meta", f)) as JsonSchema);
  for (const f of ["meta.json", "dialect.json", "schema.json", "schema-base.json"]) registry.add(readJson(join(oasDir, f)) as JsonSchema);
  validator = compileSchema(readJson(join(oasDir, "schema-base.json")) as JsonSchema, { registry, formats: "annotate" });
  return validator;
}

function assertValid(doc: unknown, label: string): void {
  const errors = oasValidator().validate(JSON.parse(JSON.stringify(doc)));
  assert.equal(errors, null, `${label} is not a valid OpenAPI 3.1 document: ${JSON.stringify(errors?.slice(0, 5))}`);
}

/** An app using every feature the generator has: named and recursive schemas, query, headers, wildcard, security. */
function featureApp(): App {
  const Address = t.named("Address", t.object({ street: t.string(), zip: t.optional(t.string({ pattern: "^[0-9]{5}$" })) }));
  const Customer = t.named("Customer", t.object({
    id: t.u64(), name: t.string({ examples: ["Ada"], message: "a name please" }), address: Address,
    tags: t.array(t.string(), { uniqueItems: true }), note: t.nullable(t.string()), kind: t.enum(["person", "company"]),
  }));
  const Node = t.named("Node", t.object({ name: t.string(), children: t.array(t.ref("Node")) }));
  const bearer = extractor("auth", () => "u", { security: ["bearerAuth"], errorStatuses: [401, 403] });
  return new App({ logger: silentLogger }).routes(
    route.get("/customers", { tag: "customers", summary: "List", responses: { 200: t.array(Customer) } },
      [bearer, query(t.object({ page: t.optional(t.integer({ minimum: 1, default: 1 })), q: t.optional(t.string()) }))], () => []),
    route.put("/customers/{customerId}", { tag: "customers", deprecated: true, responses: { 200: Customer, 204: t.null() } },
      [path("customerId", t.u64()), header("x-request-token"), json(Customer)], () => null as never),
    route.get("/files/{*rest}", { tag: "files", params: { rest: "string" } }, [], () => null),
    route.get("/tree/{uuid}", { responses: { 200: { description: "A tree", schema: Node } } }, [], () => null as never),
    route.delete("/", {}, [], () => null),
  );
}

describe("openapi: official 3.1 schema", { skip: SKIP }, () => {
  it("the sample service's document is valid against schema-base.json", async () => {
    const app = createSampleApp({ logger: silentLogger });
    // The sample may already serve its docs (App.docs()); add them only when it does not.
    if (!app.routeTable().some((r) => r.method === "GET" && r.path === "/docs/openapi.json")) app.routes(...docsRoutes(app));
    const r = await app.inject({ url: "/docs/openapi.json" });
    assert.equal(r.status, 200);
    assertValid(r.json(), "the sample document");
  });

  it("a document using every generator feature is valid", () => {
    const doc = buildOpenApiDocument(featureApp().routeTable(), {
      title: "Features", description: "All of them", servers: [{ url: "/", description: "here" }],
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      tagDescriptions: { customers: "People and companies" },
    });
    assertValid(doc, "the feature document");
  });

  it("the validator rejects a broken document (the check can fail)", () => {
    const doc = JSON.parse(JSON.stringify(buildOpenApiDocument(featureApp().routeTable(), { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } } })));
    delete doc.info.title;
    assert.notEqual(oasValidator().validate(doc), null);
    const badParam = JSON.parse(JSON.stringify(openApiDocument(createSampleApp({ logger: silentLogger }))));
    badParam.paths["/users/{id}"].get.parameters[0].required = false; // path parameters must be required
    assert.notEqual(oasValidator().validate(badParam), null);
  });

  it("agrees with every OAI pass/fail fixture (tests-json)", () => {
    const results: string[] = [];
    let count = 0;
    for (const kind of ["pass", "fail"] as const) {
      const dir = join(oasDir, "tests-json", kind);
      for (const file of readdirSync(dir).filter((n) => n.endsWith(".json")).sort()) {
        let text = readFileSync(join(dir, file), "utf8");
        // Upstream's placeholder dialect id (see the conformance README).
        if (kind === "pass" && file === "json_schema_dialect.json") text = text.replaceAll("WORK-IN-PROGRESS", "2024-11-10");
        count++;
        let valid: boolean;
        try {
          valid = oasValidator().validate(JSON.parse(text)) === null;
        } catch (error) {
          results.push(`${kind}/${file}: threw ${(error as Error).message}`);
          continue;
        }
        if (valid !== (kind === "pass")) results.push(`${kind}/${file}: expected ${kind === "pass" ? "valid" : "invalid"}`);
      }
    }
    assert.ok(count >= 46, `found ${count} fixtures`);
    assert.deepEqual(results, [], `disagreements with the fixtures:\n${results.join("\n")}`);
  });
});
