// One route -> one OpenAPI Operation: parameters (path, query, header, cookie, and those layers
// read), request body, responses (declared ones, plus the uniform error body for every status the
// extractors, the router and the layers around the route can answer with), security.
import { type AnySchema, type JsonSchema, type Layer, layerDoc, type LayerDoc, type OpenApiParameterDoc, type ResponseDoc, type ResponseValue, type RouteDefinition } from "../index.js";
import { defined, isResponseDoc } from "../plugin.js";
import { errorResponse, statusDescription } from "./error-schemas.js";
import { inferPathParamSchema, paramOverrideSchema, type PathTemplate } from "./path-params.js";
import type { SchemaCollector } from "./schema-collector.js";
import { componentName, documentedSchema, hoistLocalRefs } from "./foreign-schemas.js";
import { isNegotiatedRoute, NEGOTIATED_MEDIA_TYPES } from "../shared/negotiated-route.js";
import type { OpenApiOperation, OpenApiParameter, OpenApiRequestBody, OpenApiResponse, OpenApiSecurityRequirement } from "./types.js";

/** Paths of the probes (added by the production baseline); untagged ones are tagged "health". */
const PROBE_PATHS = new Set(["/live", "/ready", "/health"]);
/** Statuses whose responses never carry content. */
const NO_CONTENT = new Set([204, 205, 304]);

function isObject(v: unknown): v is { readonly [k: string]: unknown } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** What the app around the routes contributes to every operation. */
export interface OperationContext {
  /** The descriptions of the app's global layers (outermost first). */
  readonly globalLayers: readonly LayerDoc[];
  /** The router's longest path parameter (a longer one is a 400). */
  readonly maxParamLength: number;
  /** Security schemes met while building (from extractors and layers), by name. */
  readonly securitySchemes: Map<string, Readonly<Record<string, unknown>>>;
  /** Document a foreign schema that offers no JSON Schema as unconstrained (else: an error naming it). */
  readonly unconstrainedSchemas?: boolean;
}

/** Turns the schemas of one route into JSON Schema: another library's through its Standard JSON Schema. */
type Documented = (schema: AnySchema, direction: "input" | "output", location: string) => JsonSchema;

function documenter(def: RouteDefinition, pattern: string, context: OperationContext, schemas: SchemaCollector): Documented {
  return (schema, direction, location) => {
    const out = documentedSchema(schema, direction, `${def.method} ${pattern} (${location})`, context.unconstrainedSchemas === true);
    if (out === schema || typeof out !== "object") return out;
    // Another library's JSON Schema: its own $defs and root references become components.
    const rootName = componentName(`${def.method}_${pattern}_${location}`);
    return hoistLocalRefs(out as Record<string, unknown>, rootName, (name, s) => schemas.define(name, s));
  };
}

/** The layer descriptions that apply to `def` (global ones first, then the route's own), for its method. */
function layerDocs(def: RouteDefinition, context: OperationContext): LayerDoc[] {
  const out: LayerDoc[] = [];
  const method = def.method.toUpperCase();
  const config = def.meta.config;
  const add = (doc: LayerDoc | undefined): void => {
    if (doc === undefined || (doc.methods !== undefined && !doc.methods.includes(method))) return;
    if (doc.optOut !== undefined && config !== undefined && config[doc.optOut] === false) return;
    out.push(doc);
  };
  for (const doc of context.globalLayers) add(doc);
  for (const layer of def.meta.layers ?? []) add(layerDoc(layer));
  return out;
}

/** The descriptions of `layers` (those that have one). */
export function describedLayers(layers: readonly Layer[]): LayerDoc[] {
  const out: LayerDoc[] = [];
  for (const l of layers) {
    const doc = layerDoc(l);
    if (doc !== undefined) out.push(doc);
  }
  return out;
}

function paramKey(location: string, name: string): string {
  return location + ":" + (location === "header" ? name.toLowerCase() : name);
}

function pathParameters(def: RouteDefinition, template: PathTemplate, docs: readonly OpenApiParameterDoc[], schemas: SchemaCollector, maxLength: number, doc: Documented): OpenApiParameter[] {
  return template.params.map((p) => {
    const override = def.meta.params?.[p.routeName] ?? def.meta.params?.[p.name];
    const fromExtractor = docs.find((d) => d.in === "path" && (d.name === p.routeName || d.name === p.name));
    let schema: JsonSchema;
    if (override !== undefined) schema = paramOverrideSchema(override);
    else if (fromExtractor?.schema !== undefined) schema = schemas.convert(doc(fromExtractor.schema, "input", `path parameter ${p.name}`));
    else schema = inferPathParamSchema(p.name);
    // The router answers 400 to a longer value: say so where the value is a plain string.
    if (!p.wildcard && isObject(schema) && schema["type"] === "string" && schema["maxLength"] === undefined) schema = { ...schema, maxLength };
    const param: OpenApiParameter = { name: p.name, in: "path", required: true, schema };
    const description = fromExtractor?.description ?? (p.wildcard ? 'The rest of the path; may contain "/".' : undefined);
    if (description !== undefined) param.description = description;
    if (p.wildcard) param["x-wildcard"] = true;
    return param;
  });
}

function queryParameters(querySchema: JsonSchema, schemas: SchemaCollector): OpenApiParameter[] {
  const resolved = schemas.resolve(querySchema);
  if (!isObject(resolved) || !isObject(resolved["properties"])) return [];
  const props = resolved["properties"];
  const required = Array.isArray(resolved["required"]) ? (resolved["required"] as unknown[]) : [];
  return Object.keys(props).map((name) => {
    const prop = props[name] as JsonSchema;
    const param: OpenApiParameter = { name, in: "query", required: required.includes(name), schema: schemas.convert(prop) };
    if (isObject(prop) && typeof prop["description"] === "string") param.description = prop["description"];
    if (isObject(prop) && prop["deprecated"] === true) param.deprecated = true;
    return param;
  });
}

function parameters(def: RouteDefinition, template: PathTemplate, schemas: SchemaCollector, layers: readonly LayerDoc[], maxParamLength: number, doc: Documented): OpenApiParameter[] {
  const docs = def.extractors.flatMap((e) => e.doc.parameters ?? []);
  const out = pathParameters(def, template, docs, schemas, maxParamLength, doc);
  const seen = new Set(out.map((p) => paramKey(p.in, p.name)));
  const add = (p: OpenApiParameter): void => {
    const key = paramKey(p.in, p.name);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(p);
  };
  for (const e of def.extractors) {
    if (e.doc.querySchema !== undefined) for (const p of queryParameters(doc(e.doc.querySchema, "input", "query"), schemas)) add(p);
    for (const d of e.doc.parameters ?? []) {
      if (d.in === "path") continue;
      const p: OpenApiParameter = {
        name: d.in === "header" ? d.name.toLowerCase() : d.name,
        in: d.in,
        required: d.required,
        schema: d.schema === undefined ? { type: "string" } : schemas.convert(doc(d.schema, "input", `${d.in} ${d.name}`)),
      };
      if (d.description !== undefined) p.description = d.description;
      add(p);
    }
  }
  for (const layer of layers) {
    for (const d of layer.parameters ?? []) {
      if (d.in === "path") continue;
      const p: OpenApiParameter = { name: d.in === "header" ? d.name.toLowerCase() : d.name, in: d.in, required: d.required, schema: d.schema === undefined ? { type: "string" } : doc(d.schema, "input", `${d.in} ${d.name}`) };
      if (d.description !== undefined) p.description = d.description;
      add(p);
    }
  }
  return out;
}

function requestBody(def: RouteDefinition, schemas: SchemaCollector, doc: Documented): OpenApiRequestBody | undefined {
  for (const e of def.extractors) {
    const body = e.doc.body;
    if (body === undefined) continue;
    const content: OpenApiRequestBody["content"] = Object.create(null);
    const schema = body.schema === undefined ? undefined : schemas.convert(doc(body.schema, "input", `${e.label} body`));
    for (const type of body.contentTypes) content[type] = schema === undefined ? {} : { schema };
    return { required: body.required, content };
  }
  return undefined;
}

/** Response headers a negotiated (JSON or TOON) reply carries. */
const NEGOTIATION_HEADERS: NonNullable<OpenApiResponse["headers"]> = {
  vary: { description: "Always includes Accept", schema: { type: "string" } },
  "x-format-used": { description: "The format of the body", schema: { type: "string", enum: ["json", "toon"] } },
  "x-token-count-json": { description: "Estimated language-model tokens of the JSON form", schema: { type: "integer" } },
  "x-token-count-toon": { description: "Estimated language-model tokens of the TOON form", schema: { type: "integer" } },
  "x-token-savings": { description: "Percent of tokens TOON saves over JSON (negative when larger)", schema: { type: "integer" } },
};

function declaredResponse(status: number, value: ResponseValue, schemas: SchemaCollector, negotiated: boolean, documented: Documented): OpenApiResponse {
  // A description alone: an error status has the uniform error body, any other none.
  if (typeof value === "string") return status >= 400 ? { ...errorResponse(status), description: value } : { description: value };
  const doc: ResponseDoc = isResponseDoc(value) ? value : { schema: value };
  if (doc.schema === undefined && status >= 400) return { ...errorResponse(status), ...defined({ description: doc.description }) };
  const response: OpenApiResponse = { description: doc.description ?? statusDescription(String(status)) };
  if (doc.schema !== undefined && !NO_CONTENT.has(status) && status >= 200) {
    const schema = schemas.convert(documented(doc.schema, "output", `response ${status}`));
    if (negotiated && status < 300 && doc.contentType === undefined) {
      // Content negotiation: the same value as JSON or TOON, chosen by Accept.
      response.content = {};
      for (const type of NEGOTIATED_MEDIA_TYPES) response.content[type] = { schema };
      response.headers = NEGOTIATION_HEADERS;
    } else {
      response.content = { [doc.contentType ?? "application/json"]: { schema } };
    }
  }
  return response;
}

const CHALLENGE_HEADER = { description: "The authentication challenge (scheme and realm)", schema: { type: "string" } };

/** Statuses a body extractor can answer with: malformed (400), too large (413), wrong media type (415). */
const BODY_STATUSES = [400, 413, 415];

function responses(def: RouteDefinition, template: PathTemplate, schemas: SchemaCollector, layers: readonly LayerDoc[], doc: Documented): Record<string, OpenApiResponse> {
  const byStatus = new Map<number, OpenApiResponse>();
  const declared = def.meta.responses ?? {};
  const negotiated = isNegotiatedRoute(def.meta);
  for (const key of Object.keys(declared)) {
    const status = Number(key);
    const value = declared[status];
    if (!Number.isInteger(status) || value === undefined) continue;
    byStatus.set(status, declaredResponse(status, value, schemas, negotiated, doc));
  }
  const errorStatuses = new Set(def.extractors.flatMap((e) => e.doc.errorStatuses ?? []));
  if (def.extractors.some((e) => e.doc.body !== undefined)) for (const s of BODY_STATUSES) errorStatuses.add(s);
  // A path parameter that is badly percent-encoded or longer than the router allows: 400.
  if (template.params.length > 0) errorStatuses.add(400);
  if (negotiated) errorStatuses.add(406);
  for (const status of errorStatuses) if (!byStatus.has(status)) byStatus.set(status, errorResponse(status));
  // What the layers around the route answer themselves, with the headers those answers carry.
  for (const layer of layers) {
    for (const key of Object.keys(layer.responses ?? {})) {
      const status = Number(key);
      const doc = layer.responses![status]!;
      const known = byStatus.get(status);
      // An error status has the uniform error body; a layer's 304 (a cache) or other answer none.
      const fresh: OpenApiResponse = status >= 400 ? errorResponse(status) : { description: statusDescription(String(status)) };
      const response: OpenApiResponse = known ?? { ...fresh, ...defined({ description: doc.description }) };
      if (doc.headers !== undefined) response.headers = { ...response.headers, ...doc.headers };
      byStatus.set(status, response);
    }
  }
  // A route that declares no responses answers 200 (its handler's value); one that declares only
  // error statuses (it always fails) does not.
  if (def.meta.responses === undefined && ![...byStatus.keys()].some((s) => s < 400)) byStatus.set(200, { description: statusDescription("200") });
  // Every 401 carries its challenge (RFC 9110 §15.5.2); keel's auth answers always send one.
  const unauthorized = byStatus.get(401);
  if (unauthorized !== undefined && unauthorized.headers?.["www-authenticate"] === undefined) {
    byStatus.set(401, { ...unauthorized, headers: { ...unauthorized.headers, "www-authenticate": CHALLENGE_HEADER } });
  }
  // Headers a layer puts on every answer (RateLimit-*).
  for (const layer of layers) {
    if (layer.headers === undefined) continue;
    for (const [status, response] of byStatus) byStatus.set(status, { ...response, headers: { ...response.headers, ...layer.headers } });
  }
  const out: Record<string, OpenApiResponse> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) out[String(status)] = byStatus.get(status)!;
  return out;
}

function tags(def: RouteDefinition, pattern: string): string[] {
  const list: string[] = [];
  for (const tag of [def.meta.tag, ...(def.meta.tags ?? [])]) {
    if (tag !== undefined && tag !== "" && !list.includes(tag)) list.push(tag);
  }
  if (list.length === 0 && PROBE_PATHS.has(pattern)) list.push("health");
  return list;
}

/** Security requirement names the route's extractors declare, in first-seen order. */
function extractorSecurityNames(def: RouteDefinition): string[] {
  const names: string[] = [];
  for (const e of def.extractors) for (const n of e.doc.security ?? []) if (!names.includes(n)) names.push(n);
  return names;
}

/** Layers that authenticate (they register schemes) but let anonymous callers through. */
function optionalAuthLayers(layers: readonly LayerDoc[]): LayerDoc[] {
  return layers.filter((l) => l.security === undefined && l.securitySchemes !== undefined && Object.keys(l.securitySchemes).length > 0);
}

/**
 * The operation's security requirements:
 * - layers that demand credentials (jwt(), apiKey()) decide: each such layer must be satisfied
 *   (one requirement object names one scheme of each), any one of a layer's names will do;
 * - otherwise the extractors' names (authUser(), guards), each an alternative, plus `{}` when an
 *   optional authentication layer lets anonymous callers through and no extractor refuses them
 *   (optionalAuthUser());
 * - otherwise, behind an optional layer only: `{}` or its schemes.
 */
function securityRequirements(def: RouteDefinition, layers: readonly LayerDoc[]): OpenApiSecurityRequirement[] {
  let product: string[][] = [[]];
  let demanding = false;
  for (const l of layers) {
    const names = [...new Set(l.security ?? [])];
    if (names.length === 0) continue;
    demanding = true;
    product = product.flatMap((req) => names.map((n) => (req.includes(n) ? req : [...req, n])));
  }
  const toRequirement = (names: readonly string[]): OpenApiSecurityRequirement => Object.fromEntries(names.map((n) => [n, [] as string[]]));
  if (demanding) {
    const seen = new Set<string>();
    const out: OpenApiSecurityRequirement[] = [];
    for (const req of product) {
      const key = [...req].sort().join("\u0000");
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(toRequirement(req));
    }
    return out;
  }
  const optional = optionalAuthLayers(layers);
  const fromExtractors = extractorSecurityNames(def);
  if (fromExtractors.length > 0) {
    const refused = def.extractors.some((e) => (e.doc.security?.length ?? 0) > 0 && (e.doc.errorStatuses ?? []).includes(401));
    const anonymous = optional.length > 0 && !refused;
    return [...(anonymous ? [{}] : []), ...fromExtractors.map((n) => toRequirement([n]))];
  }
  if (optional.length === 0) return [];
  const names: string[] = [];
  for (const l of optional) for (const n of Object.keys(l.securitySchemes!)) if (!names.includes(n)) names.push(n);
  return [{}, ...names.map((n) => toRequirement([n]))];
}

/** Note the schemes the route's extractors and layers register (the first registration of a name wins). */
function collectSchemes(def: RouteDefinition, layers: readonly LayerDoc[], into: Map<string, Readonly<Record<string, unknown>>>): void {
  const add = (schemes: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined): void => {
    if (schemes === undefined) return;
    for (const name of Object.keys(schemes)) if (!into.has(name)) into.set(name, schemes[name]!);
  };
  for (const e of def.extractors) add(e.doc.securitySchemes);
  for (const l of layers) add(l.securitySchemes);
}

export function buildOperation(
  def: RouteDefinition,
  pattern: string,
  template: PathTemplate,
  operationId: string,
  schemas: SchemaCollector,
  context: OperationContext = { globalLayers: [], maxParamLength: 100, securitySchemes: new Map() },
): OpenApiOperation {
  const layers = layerDocs(def, context);
  collectSchemes(def, layers, context.securitySchemes);
  const tagList = tags(def, pattern);
  const doc = documenter(def, pattern, context, schemas);
  const params = parameters(def, template, schemas, layers, context.maxParamLength, doc);
  const body = requestBody(def, schemas, doc);
  const security = securityRequirements(def, layers);
  const meta = def.meta;
  // Spread in the order the keys read best in the JSON.
  const op: OpenApiOperation = {
    ...(tagList.length > 0 ? { tags: tagList } : {}),
    ...(meta.summary !== undefined ? { summary: meta.summary } : {}),
    ...(meta.description !== undefined ? { description: meta.description } : {}),
    operationId,
    ...(meta.deprecated === true ? { deprecated: true } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body !== undefined ? { requestBody: body } : {}),
    responses: responses(def, template, schemas, layers, doc),
    // Any one of the requirement objects satisfies the operation (`{}`: anonymous callers too).
    ...(security.length > 0 ? { security } : {}),
  };
  return op;
}
