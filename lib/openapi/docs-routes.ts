// docsRoutes: `GET {path}` (the docs UI) and `GET {path}/openapi.json` (the document), both hidden
// from the document itself. The document is built from the live route table on first request and
// rebuilt when the number of routes changes, so routes registered after docsRoutes() appear.
import { html, type Layer, Reply, route, type RouteDefinition } from "../index.js";
import { DEFAULT_API_TITLE, buildOpenApiDocument } from "./document.js";
import { DOCS_PAGE_HEADERS, renderDocsPage } from "./docs-page.js";
import type { DocsOptions } from "./types.js";
import { defined } from "../plugin.js";

export const DEFAULT_DOCS_PATH = "/docs";

/** "/docs", "/docs/" -> "/docs"; "/" stays "/". Throws on a path that does not start with "/". */
export function normalizeDocsPath(path: string): string {
  if (typeof path !== "string" || !path.startsWith("/")) throw new TypeError(`docs path must start with "/", got ${JSON.stringify(path)}`);
  const trimmed = path.replace(/\/+$/, "");
  return trimmed === "" ? "/" : trimmed;
}

/** The two routes that serve the docs UI and the OpenAPI document of `app`'s routes. */
/** What the docs need of an app: its routes, and (when it has them) its global layers and limits. */
export interface DocumentedApp {
  routeTable(): readonly RouteDefinition[];
  layerTable?(): readonly Layer[];
  readonly runtime?: { readonly maxParamLength?: number };
}

/** The options a document of `app` is built with: the given ones, plus the app's layers and limits. */
export function appDocumentOptions(app: DocumentedApp, options: DocsOptions): DocsOptions {
  const layers = options.layers ?? app.layerTable?.();
  const maxParamLength = options.maxParamLength ?? app.runtime?.maxParamLength;
  return { ...options, ...defined({ layers, maxParamLength }) };
}

export function docsRoutes(app: DocumentedApp, options: DocsOptions = {}): RouteDefinition[] {
  const base = normalizeDocsPath(options.path ?? DEFAULT_DOCS_PATH);
  const jsonPath = base === "/" ? "/openapi.json" : `${base}/openapi.json`;
  const page = renderDocsPage(options.title ?? DEFAULT_API_TITLE);
  let cached: { routeCount: number; body: string } | undefined;

  const documentJson = (): string => {
    const routes = app.routeTable();
    if (cached === undefined || cached.routeCount !== routes.length) {
      cached = { routeCount: routes.length, body: JSON.stringify(buildOpenApiDocument(routes, appDocumentOptions(app, options)), null, 2) };
    }
    return cached.body;
  };

  return [
    route.get(base, { hidden: true, summary: "API documentation UI" }, [], () => html(page, 200, DOCS_PAGE_HEADERS)),
    route.get(jsonPath, { hidden: true, summary: "OpenAPI document" }, [], () =>
      new Reply(200, documentJson(), { "content-type": "application/json", "cache-control": "no-cache" }),
    ),
  ];
}
