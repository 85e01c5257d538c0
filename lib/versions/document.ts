// The OpenAPI document of one version: that version's operations only, info.version set to it.
import { describeLayer, group, type App, type LayerDoc, type LayerHeaderDoc, type RouteDefinition } from "../index.js";
import { buildOpenApiDocument, type OpenApiDocument, type OpenApiOptions } from "../openapi/index.js";
import type { ApiVersions } from "./versions.js";

/** Never called: it only carries the version's description into the document. */
const describesOnly = () => Promise.reject(new Error("keel/versions: a documentation layer is not served"));

function versionLayerDoc(api: ApiVersions, version: string): LayerDoc {
  const doc: { -readonly [K in keyof LayerDoc]: LayerDoc[K] } & { headers?: Record<string, LayerHeaderDoc> } = {};
  const dep = api.deprecation(version);
  if (dep !== null) {
    doc.headers = { Deprecation: { description: "RFC 9745: when this version was deprecated", schema: { type: "string", const: dep.deprecation } } };
    if (dep.sunset !== null) doc.headers["Sunset"] = { description: "RFC 8594: when this version stops answering", schema: { type: "string", const: dep.sunset } };
  }
  if (api.by === "header" || api.by === "query") {
    const isDefault = api.defaultVersion === version;
    doc.parameters = [{ in: api.by, name: api.by === "header" ? headerName(api.name) : api.name, required: !isDefault, schema: { type: "string", const: version }, description: isDefault ? "The API version (this one when absent)" : "The API version" }];
  }
  if (api.by !== "path") doc.responses = api.by === "accept" ? { 406: { description: "Unknown or missing API version" } } : { 404: { description: "Unknown or missing API version" } };
  return doc;
}

/** `api-version` → `Api-Version`, as documents usually spell headers. */
function headerName(lower: string): string {
  return lower.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

/** The routes of `version` as the document shows them (prefixed for `by: "path"`). */
export function versionRoutes(api: ApiVersions, version: string): RouteDefinition[] {
  const g = api.groups.find((x) => x.version === version);
  if (g === undefined) throw new TypeError(`versions: no version ${JSON.stringify(version)} (have ${api.groups.map((x) => x.version).join(", ")})`);
  const layer = describeLayer(describesOnly, versionLayerDoc(api, version));
  return group({ ...(api.by === "path" ? { prefix: api.prefixOf(version) } : {}), layers: [layer] }, g.routes) as RouteDefinition[];
}

/**
 * The OpenAPI document of one version: `versionDocument(app, api, "2")` holds that version's
 * operations only (with what the app's global layers add to each), and info.version is the
 * version. Serve it, write it to a file, or give it to the typed client.
 *
 * @example
 * writeFileSync("openapi-v2.json", JSON.stringify(versionDocument(app, api, "2", { title: "Users" })));
 */
export function versionDocument(app: Pick<App, "layerTable"> & Partial<Pick<App, "runtime">>, api: ApiVersions, version: string, options: Omit<OpenApiOptions, "version"> = {}): OpenApiDocument {
  const maxParamLength = app.runtime?.maxParamLength;
  return buildOpenApiDocument(versionRoutes(api, version), {
    layers: app.layerTable(),
    ...(maxParamLength === undefined ? {} : { maxParamLength }),
    ...options,
    version,
  });
}
