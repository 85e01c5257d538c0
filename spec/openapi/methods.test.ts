// Routes of methods outside OpenAPI 3.1's eight are never dropped silently: a 3.2 document holds
// QUERY in the Path Item's `query` field and any other method under `additionalOperations`
// (keyed by the method as sent); a 3.1 document refuses them, naming the route, when the
// document is built, when docs() is registered and when the app starts listening.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, json, path, route, silentLogger, t, type RouteDefinition } from "../../lib/index.js";
import { buildOpenApiDocument, docs, findDanglingRefs, openApiDocument, type OpenApiDocument } from "../../lib/openapi/index.js";
import { findChromium } from "../support/chromium.js";
import { withBrowser } from "../support/cdp.js";

const Filter = t.object({ term: t.string() });

function routes(): RouteDefinition[] {
  return [
    route.query("/search", { summary: "Search with a body" }, [json(Filter)], (f) => f),
    route.get("/cache/{key}", [path("key", t.string())], (key) => key),
    route.method("PURGE")("/cache/{key}", { summary: "Evict" }, [path("key", t.string())], (key) => key),
  ];
}

function registered(...defs: RouteDefinition[]): App {
  return new App({ logger: silentLogger }).routes(defs);
}

describe("OpenAPI 3.2: query and additionalOperations", () => {
  const doc = JSON.parse(JSON.stringify(buildOpenApiDocument(registered(...routes()).routeTable(), { openapi: "3.2.0" }))) as OpenApiDocument;

  it("writes QUERY under query, with its request body", () => {
    assert.equal(doc.openapi, "3.2.0");
    const q = doc.paths["/search"]?.query;
    assert.ok(q !== undefined, JSON.stringify(doc.paths["/search"]));
    assert.equal(q.operationId, "querySearch");
    assert.equal(q.summary, "Search with a body");
    assert.equal(q.requestBody?.required, true);
    assert.ok(q.requestBody?.content["application/json"]?.schema !== undefined);
    assert.ok(q.responses["422"] !== undefined, "the body's validation errors are documented");
    assert.equal(doc.paths["/search"]?.additionalOperations, undefined, "QUERY has its own field, not an additional operation");
  });

  it("writes any other method under additionalOperations, keyed as sent, beside the fixed fields", () => {
    const item = doc.paths["/cache/{key}"]!;
    assert.equal(item.get?.operationId, "getCacheByKey");
    assert.deepEqual(Object.keys(item.additionalOperations ?? {}), ["PURGE"]);
    const purge = item.additionalOperations!["PURGE"]!;
    assert.equal(purge.operationId, "purgeCacheByKey");
    assert.equal(purge.summary, "Evict");
    assert.deepEqual(purge.parameters?.map((p) => [p.in, p.name]), [["path", "key"]]);
    assert.deepEqual(findDanglingRefs(doc), []);
  });

  it("serves the 3.2 document from docs(path, { openapi: \"3.2.0\" })", async () => {
    const app = registered(...routes()).register(docs("/docs", { openapi: "3.2.0" }));
    const served = (await app.inject({ url: "/docs/openapi.json" })).json<OpenApiDocument>();
    assert.equal(served.openapi, "3.2.0");
    assert.ok(served.paths["/search"]?.query !== undefined);
    assert.ok(served.paths["/cache/{key}"]?.additionalOperations?.["PURGE"] !== undefined);
    assert.equal(openApiDocument(app).openapi, "3.2.0", "openApiDocument(app) uses the options docs() was mounted with");
    const server = await app.listen({ port: 0 });
    await server.close();
  });

  it("refuses a version it does not write", () => {
    assert.throws(() => buildOpenApiDocument([], { openapi: "3.0.3" as "3.1.0" }), /openapi must be one of "3\.1\.0", "3\.2\.0"/);
    assert.throws(() => docs("/docs", { openapi: "4.0.0" as "3.1.0" }), /openapi must be one of/);
  });
});

describe("OpenAPI 3.1 (the default): routes it cannot hold are reported, never dropped", () => {
  it("buildOpenApiDocument throws, naming every such route and the ways out", () => {
    const app = registered(...routes());
    assert.throws(
      () => buildOpenApiDocument(app.routeTable()),
      (err: Error) =>
        err instanceof TypeError &&
        err.message.includes("QUERY /search, PURGE /cache/{key}") &&
        err.message.includes('openapi: "3.2.0"') &&
        err.message.includes("hidden: true"),
    );
  });

  it("documents the rest when those routes are hidden", () => {
    const doc = buildOpenApiDocument(registered(
      route.query("/search", { hidden: true }, [json(Filter)], (f) => f),
      route.method("PURGE")("/cache", { hidden: true }, [], () => "ok"),
      route.get("/cache", [], () => "ok"),
    ).routeTable());
    assert.equal(doc.openapi, "3.1.0");
    assert.deepEqual(Object.keys(doc.paths), ["/cache"]);
    assert.deepEqual(Object.keys(doc.paths["/cache"]!), ["get"]);
  });

  it("docs() throws at registration when such a route is already there", () => {
    const app = registered(...routes());
    assert.throws(() => app.register(docs()), /has no place for QUERY \/search, PURGE \/cache\/\{key\}/);
  });

  it("listen() fails when such a route comes after docs()", async () => {
    const app = new App({ logger: silentLogger }).register(docs()).routes(route.method("PURGE")("/cache", [], () => "ok"));
    await assert.rejects(app.listen({ port: 0 }), /has no place for PURGE \/cache/);
  });
});

describe("the docs page shows and sends QUERY and additional operations", () => {
  const chromium = findChromium();
  it("lists both, and its try-it forms send them with the method as routed", { skip: chromium === undefined ? "chromium not installed" : false, timeout: 90_000 }, async () => {
    const server = await registered(...routes()).register(docs("/docs", { openapi: "3.2.0" })).listen({ port: 0, host: "127.0.0.1" });
    try {
      await withBrowser(chromium!, async (browser) => {
        const page = await browser.newPage();
        await page.navigate(server.url + "/docs");
        assert.equal(await page.waitFor<string>(`document.body && document.body.getAttribute("data-ready")`, 15_000, "the docs page to render"), "true");
        const open = (id: string) => page.evaluate(`document.querySelector('form.try[data-operation="${id}"]').closest("details").open = true`);
        const send = async (id: string): Promise<string> => {
          const form = `form.try[data-operation="${id}"]`;
          await open(id);
          await page.click(`${form} button.send`);
          return page.waitFor<string>(
            `(() => { const s = document.querySelector(${JSON.stringify(form + " .result")}).getAttribute("data-status"); return s !== "pending" && s; })()`,
            15_000,
            `the response of ${id}`,
          );
        };
        const labels = await page.evaluate<string[]>(`Array.from(document.querySelectorAll("summary .method"), (e) => e.textContent)`);
        assert.deepEqual([...labels].sort(), ["GET", "PURGE", "QUERY"]);
        assert.equal(await send("querySearch"), "200");
        await open("purgeCacheByKey");
        await page.type(`form.try[data-operation="purgeCacheByKey"] input[name="path:key"]`, "k1");
        assert.equal(await send("purgeCacheByKey"), "200");
      });
    } finally {
      await server.close();
    }
  });
});
