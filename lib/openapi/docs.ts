// Mounting the docs on an app: `app.register(docs("/docs"))` serves the docs UI and the OpenAPI
// document, and checks the document when the app starts listening (a dangling `$ref` or an
// unknown security scheme fails `listen()`, not the first visitor). An app that never imports
// this entry carries no OpenAPI or docs-page code. A route the document's version cannot hold (a
// QUERY or PURGE route in a 3.1 document) fails registration when it is already there, and
// listen() when it comes later: never a route missing from the document without a word.
import type { App } from "../index.js";
import { appDocumentOptions, DEFAULT_DOCS_PATH, docsRoutes } from "./docs-routes.js";
import { buildOpenApiDocument } from "./document.js";
import { checkDocumentedMethods, openApiVersion } from "./method-fields.js";
import type { DocsOptions, OpenApiDocument } from "./types.js";

/** The options each app's docs were mounted with: the defaults of `openApiDocument(app)`. */
const mounted = new WeakMap<object, Omit<DocsOptions, "path">>();

/**
 * A plugin for `app.register(...)`: docs UI at `path`, the document at `{path}/openapi.json`.
 *
 * @example
 * ```ts
 * app.register(docs("/docs", { title: "Todo API", version: "1.0.0" }));
 * // GET /docs: the page; GET /docs/openapi.json: the document
 * ```
 * @see docs/features/openapi.md
 */
export function docs(path: string = DEFAULT_DOCS_PATH, options: Omit<DocsOptions, "path"> = {}): (app: App) => void {
  const version = openApiVersion(options.openapi);
  return (app) => {
    checkDocumentedMethods(app.routeTable(), version);
    mounted.set(app, options);
    app.routes(docsRoutes(app, { ...options, path }));
    app.onListen((started) => void buildOpenApiDocument(started.routeTable(), appDocumentOptions(started, options)));
  };
}

/**
 * The OpenAPI document for `app`'s current route table (by default with the options its docs were mounted with).
 *
 * @example
 * ```ts
 * writeFileSync("openapi.json", JSON.stringify(openApiDocument(app), null, 2));
 * ```
 * @see docs/features/openapi.md
 */
export function openApiDocument(app: Pick<App, "routeTable"> & Partial<Pick<App, "layerTable" | "runtime">>, options: Omit<DocsOptions, "path"> = mounted.get(app) ?? {}): OpenApiDocument {
  return buildOpenApiDocument(app.routeTable(), appDocumentOptions(app, options));
}
