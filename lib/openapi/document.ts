// buildOpenApiDocument: the route table -> an OpenAPI 3.1 (default) or 3.2 document (pure; no I/O, no caching).
import type { RouteDefinition } from "../index.js";
import { DEFAULT_MAX_PARAM_LENGTH, normalizePattern } from "../plugin.js";
import { errorComponents } from "./error-schemas.js";
import { buildOperation, describedLayers, type OperationContext } from "./operation.js";
import { assignOperationIds } from "./operation-id.js";
import { checkDocumentedMethods, methodPlace, openApiVersion, type MethodPlace } from "./method-fields.js";
import { toOpenApiPath, type PathTemplate } from "./path-params.js";
import { checkRefIntegrity } from "./ref-integrity.js";
import { SchemaCollector } from "./schema-collector.js";
import type { OpenApiDocument, OpenApiOperation, OpenApiOptions, OpenApiPathItem, OpenApiTag } from "./types.js";

/** The default version of the document (`openapi: "3.2.0"` in the options for the other one). */
export const OPENAPI_VERSION = "3.1.0";
export const DEFAULT_API_TITLE = "keel API";
export const DEFAULT_API_VERSION = "0.1.0";

interface PlannedRoute {
  def: RouteDefinition;
  /** Lowercase, for the operationId (`querySearch`, `purgeCache`). */
  method: string;
  place: Exclude<MethodPlace, null>;
  pattern: string;
  template: PathTemplate;
}

function canonicalPattern(def: RouteDefinition): string {
  try {
    return normalizePattern(def.path).pattern;
  } catch {
    return def.pattern;
  }
}

/**
 * Builds the OpenAPI document for `routes` (hidden routes are left out). Throws when a visible
 * route's method has no place in the chosen version (any method but the eight in 3.1).
 */
export function buildOpenApiDocument(routes: readonly RouteDefinition[], options: OpenApiOptions = {}): OpenApiDocument {
  const version = openApiVersion(options.openapi);
  checkDocumentedMethods(routes, version);
  const schemas = new SchemaCollector();
  const errors = errorComponents();
  for (const name of Object.keys(errors)) schemas.define(name, errors[name]!);
  if (options.schemas !== undefined) for (const name of Object.keys(options.schemas)) schemas.define(name, options.schemas[name]!);

  const planned: PlannedRoute[] = [];
  for (const def of routes) {
    const place = methodPlace(def.method, version);
    if (def.meta.hidden === true || place === null) continue;
    const pattern = canonicalPattern(def);
    planned.push({ def, method: def.method.toLowerCase(), place, pattern, template: toOpenApiPath(pattern) });
  }
  const ids = assignOperationIds(planned.map((p) => ({ method: p.method, pattern: p.pattern, declared: p.def.meta.operationId })));

  const paths: Record<string, OpenApiPathItem> = {};
  const tagNames = new Set<string>();
  const context: OperationContext = {
    globalLayers: describedLayers(options.layers ?? []),
    maxParamLength: options.maxParamLength ?? DEFAULT_MAX_PARAM_LENGTH,
    securitySchemes: new Map(),
    unconstrainedSchemas: options.unconstrainedSchemas === true,
  };
  const operations: OpenApiOperation[] = [];
  planned.forEach((p, i) => {
    const op = buildOperation(p.def, p.pattern, p.template, ids[i]!, schemas, context);
    operations.push(op);
    for (const tag of op.tags ?? []) tagNames.add(tag);
    const item = paths[p.template.path] ?? (paths[p.template.path] = {});
    if ("field" in p.place) item[p.place.field] = op;
    else (item.additionalOperations ??= {})[p.place.additional] = op;
  });

  const info: OpenApiDocument["info"] = { title: options.title ?? DEFAULT_API_TITLE, version: options.version ?? DEFAULT_API_VERSION };
  if (options.description !== undefined) info.description = options.description;
  const components: OpenApiDocument["components"] = { schemas: schemas.components };
  // Registered schemes some operation names (a guard behind apiKey() registers bearerAuth but the
  // operation needs apiKeyAuth), then the explicit option, which adds or replaces.
  const named = new Set(operations.flatMap((op) => (op.security ?? []).flatMap((req) => Object.keys(req))));
  const registered = [...context.securitySchemes].filter(([name]) => named.has(name));
  const securitySchemes = { ...Object.fromEntries(registered), ...options.securitySchemes };
  if (Object.keys(securitySchemes).length > 0) {
    components.securitySchemes = securitySchemes;
    // With schemes in the document, an operation that needs none says so (`security: []`).
    for (const op of operations) op.security ??= [];
  }
  const descriptions = options.tagDescriptions ?? {};
  const tags: OpenApiTag[] = [...tagNames].sort().map((name) => {
    const description = Object.hasOwn(descriptions, name) ? descriptions[name] : undefined;
    return description === undefined ? { name } : { name, description };
  });
  const doc: OpenApiDocument = {
    openapi: version,
    info,
    servers: options.servers !== undefined && options.servers.length > 0 ? options.servers.map((s) => ({ ...s })) : [{ url: "/" }],
    paths,
    components,
    ...(tags.length > 0 ? { tags } : {}),
  };
  checkRefIntegrity(doc);
  return doc;
}
