// One route -> one OpenAPI Operation: parameters (path, query, header, cookie), request body,
// responses (declared ones plus the uniform error body for what the extractors can reject).
import type { ResponseDoc, RouteDefinition } from "../core/route.js";
import type { OpenApiParameterDoc } from "../core/extractor.js";
import { refTarget } from "../schema/builder.js";
import { schemaName, type JsonSchema } from "../schema/index.js";
import { errorResponse, statusDescription } from "./error-schemas.js";
import { inferPathParamSchema, paramOverrideSchema, type PathTemplate } from "./path-params.js";
import type { SchemaCollector } from "./schema-collector.js";
import { isNegotiatedRoute, NEGOTIATED_MEDIA_TYPES } from "../shared/negotiated-route.js";
import type { OpenApiOperation, OpenApiParameter, OpenApiRequestBody, OpenApiResponse } from "./types.js";

/** Paths of the probes (added by the production baseline); untagged ones are tagged "health". */
const PROBE_PATHS = new Set(["/live", "/ready", "/health"]);
/** Statuses whose responses never carry content. */
const NO_CONTENT = new Set([204, 205, 304]);
const RESPONSE_DOC_KEYS = new Set(["description", "schema", "contentType"]);

function isObject(v: unknown): v is { readonly [k: string]: unknown } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `{ description?, schema?, contentType? }` rather than a schema (which has keywords like `type`). */
function isResponseDoc(v: JsonSchema | ResponseDoc): v is ResponseDoc {
  if (!isObject(v) || schemaName(v) !== undefined || refTarget(v) !== undefined) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => RESPONSE_DOC_KEYS.has(k));
}

function paramKey(location: string, name: string): string {
  return location + ":" + (location === "header" ? name.toLowerCase() : name);
}

function pathParameters(def: RouteDefinition, template: PathTemplate, docs: readonly OpenApiParameterDoc[], schemas: SchemaCollector): OpenApiParameter[] {
  return template.params.map((p) => {
    const override = def.meta.params?.[p.routeName] ?? def.meta.params?.[p.name];
    const fromExtractor = docs.find((d) => d.in === "path" && (d.name === p.routeName || d.name === p.name));
    let schema: JsonSchema;
    if (override !== undefined) schema = paramOverrideSchema(override);
    else if (fromExtractor?.schema !== undefined) schema = schemas.convert(fromExtractor.schema);
    else schema = inferPathParamSchema(p.name);
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

function parameters(def: RouteDefinition, template: PathTemplate, schemas: SchemaCollector): OpenApiParameter[] {
  const docs = def.extractors.flatMap((e) => e.doc.parameters ?? []);
  const out = pathParameters(def, template, docs, schemas);
  const seen = new Set(out.map((p) => paramKey(p.in, p.name)));
  const add = (p: OpenApiParameter): void => {
    const key = paramKey(p.in, p.name);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(p);
  };
  for (const e of def.extractors) {
    if (e.doc.querySchema !== undefined) for (const p of queryParameters(e.doc.querySchema, schemas)) add(p);
    for (const d of e.doc.parameters ?? []) {
      if (d.in === "path") continue;
      const p: OpenApiParameter = {
        name: d.in === "header" ? d.name.toLowerCase() : d.name,
        in: d.in,
        required: d.required,
        schema: d.schema === undefined ? { type: "string" } : schemas.convert(d.schema),
      };
      if (d.description !== undefined) p.description = d.description;
      add(p);
    }
  }
  return out;
}

function requestBody(def: RouteDefinition, schemas: SchemaCollector): OpenApiRequestBody | undefined {
  for (const e of def.extractors) {
    const body = e.doc.body;
    if (body === undefined) continue;
    const content: OpenApiRequestBody["content"] = Object.create(null);
    for (const type of body.contentTypes) content[type] = body.schema === undefined ? {} : { schema: schemas.convert(body.schema) };
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

function declaredResponse(status: number, value: JsonSchema | ResponseDoc, schemas: SchemaCollector, negotiated: boolean): OpenApiResponse {
  const doc: ResponseDoc = isResponseDoc(value) ? value : { schema: value };
  const response: OpenApiResponse = { description: doc.description ?? statusDescription(String(status)) };
  if (doc.schema !== undefined && !NO_CONTENT.has(status) && status >= 200) {
    const schema = schemas.convert(doc.schema);
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

function responses(def: RouteDefinition, schemas: SchemaCollector): Record<string, OpenApiResponse> {
  const byStatus = new Map<number, OpenApiResponse>();
  const declared = def.meta.responses ?? {};
  const negotiated = isNegotiatedRoute(def.meta);
  for (const key of Object.keys(declared)) {
    const status = Number(key);
    const value = declared[status];
    if (!Number.isInteger(status) || value === undefined) continue;
    byStatus.set(status, declaredResponse(status, value, schemas, negotiated));
  }
  const errorStatuses = new Set(def.extractors.flatMap((e) => e.doc.errorStatuses ?? []));
  if (negotiated) errorStatuses.add(406);
  for (const status of errorStatuses) if (!byStatus.has(status)) byStatus.set(status, errorResponse(status));
  if (![...byStatus.keys()].some((s) => s < 400)) byStatus.set(200, { description: statusDescription("200") });
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
export function securityNames(def: RouteDefinition): string[] {
  const names: string[] = [];
  for (const e of def.extractors) for (const n of e.doc.security ?? []) if (!names.includes(n)) names.push(n);
  return names;
}

export function buildOperation(def: RouteDefinition, pattern: string, template: PathTemplate, operationId: string, schemas: SchemaCollector): OpenApiOperation {
  const tagList = tags(def, pattern);
  const params = parameters(def, template, schemas);
  const body = requestBody(def, schemas);
  const security = securityNames(def);
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
    responses: responses(def, schemas),
    // Each name is one alternative: any one of the listed schemes satisfies the operation.
    ...(security.length > 0 ? { security: security.map((name) => ({ [name]: [] })) } : {}),
  };
  return op;
}
