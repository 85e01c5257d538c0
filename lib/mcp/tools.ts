// The routes an app chooses, as MCP tools: built once from the app's OpenAPI document (keel/openapi
// derives every schema from the route's extractors, so the tools say exactly what the routes
// accept). Path and query parameters become top-level arguments; a JSON body is the `body`
// argument; the declared 2xx JSON response, when it is an object, is the tool's outputSchema.
import type { App, JsonSchema } from "../index.js";
import { isJsonMediaType } from "../plugin.js";
import { openApiDocument, type OpenApiDocument, type OpenApiOperation } from "../openapi/index.js";
import { DefsCollector } from "./tool-schema.js";

/** Which routes become tools: every route with one of `tags`, and every route `routes` names. */
export interface McpToolSelection {
  /** OpenAPI tags (a route's `tag`/`tags`). */
  readonly tags?: readonly string[];
  /** `"GET /users/{id}"` (method and path as documented) or an operationId. */
  readonly routes?: readonly string[];
}

/** What tools/list shows. */
export interface McpToolDescriptor {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/** How tools/call turns arguments into a request. */
export interface McpTool {
  readonly descriptor: McpToolDescriptor;
  readonly method: string;
  /** The documented path (`/users/{id}`). */
  readonly path: string;
  readonly pathParams: readonly { readonly name: string; readonly wildcard: boolean }[];
  readonly queryParams: readonly string[];
  /** The body's media type when the route takes a JSON body (the `body` argument). */
  readonly bodyType: string | null;
  readonly hasOutputSchema: boolean;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace", "query"] as const;
/** MCP tool names: letters, digits, `_`, `-`, `.`; 1 to 128 characters. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function isObjectSchema(schema: unknown): schema is Record<string, unknown> {
  return typeof schema === "object" && schema !== null && (schema as Record<string, unknown>)["type"] === "object";
}

function toolName(operationId: string): string {
  return TOOL_NAME.test(operationId) ? operationId : operationId.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 128) || "tool";
}

function selected(selection: McpToolSelection, method: string, path: string, op: OpenApiOperation): boolean {
  const names = selection.routes ?? [];
  if (names.includes(op.operationId) || names.includes(`${method.toUpperCase()} ${path}`)) return true;
  const tags = selection.tags ?? [];
  return (op.tags ?? []).some((t) => tags.includes(t));
}

function buildTool(document: OpenApiDocument, method: string, path: string, op: OpenApiOperation): McpTool | string {
  const where = `${method.toUpperCase()} ${path}`;
  const defs = new DefsCollector(document.components.schemas);
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const pathParams: { name: string; wildcard: boolean }[] = [];
  const queryParams: string[] = [];
  for (const p of op.parameters ?? []) {
    if (p.in !== "path" && p.in !== "query") continue;
    if (Object.hasOwn(properties, p.name)) return `${where}: the argument "${p.name}" is both a path and a query parameter`;
    properties[p.name] = defs.rewrite(p.description === undefined ? p.schema : { ...(p.schema as object), description: p.description });
    if (p.required) required.push(p.name);
    if (p.in === "path") pathParams.push({ name: p.name, wildcard: p["x-wildcard"] === true });
    else queryParams.push(p.name);
  }
  let bodyType: string | null = null;
  if (op.requestBody !== undefined) {
    const types = Object.keys(op.requestBody.content);
    const json = types.find((type) => isJsonMediaType(type));
    if (json === undefined) return `${where}: its body is ${types.join(" or ")}, and tools send JSON bodies only`;
    if (Object.hasOwn(properties, "body")) return `${where}: a parameter is named "body", the name of the body argument`;
    bodyType = json;
    properties["body"] = defs.rewrite(op.requestBody.content[json]!.schema ?? {});
    if (op.requestBody.required) required.push("body");
  }
  const inputSchema = defs.withDefs({ type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false });

  let outputSchema: Record<string, unknown> | undefined;
  const success = Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s)).sort()[0];
  const media = success === undefined ? undefined : op.responses[success]!.content?.["application/json"];
  if (media?.schema !== undefined) {
    const out = new DefsCollector(document.components.schemas);
    const root = out.inlineRoot(media.schema as JsonSchema);
    if (isObjectSchema(root)) outputSchema = out.withDefs(root);
  }
  const readOnly = method === "get" || method === "head";
  const descriptor: McpToolDescriptor = {
    name: toolName(op.operationId),
    ...(op.summary === undefined && op.description === undefined ? {} : { description: [op.summary, op.description].filter((s) => s !== undefined).join("\n\n") }),
    inputSchema,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    annotations: { readOnlyHint: readOnly, idempotentHint: readOnly || method === "put" || method === "delete", openWorldHint: false },
  };
  return { descriptor, method: method.toUpperCase(), path, pathParams, queryParams, bodyType, hasOutputSchema: outputSchema !== undefined };
}

/** The chosen routes of `app` as tools, by name; `skipped` says why a chosen route is not one. */
export function buildTools(app: App, selection: McpToolSelection): { tools: Map<string, McpTool>; skipped: string[] } {
  const document = openApiDocument(app);
  const tools = new Map<string, McpTool>();
  const skipped: string[] = [];
  const named = new Set(selection.routes ?? []);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op === undefined || !selected(selection, method, path, op)) continue;
      named.delete(op.operationId);
      named.delete(`${method.toUpperCase()} ${path}`);
      const tool = buildTool(document, method, path, op);
      if (typeof tool === "string") skipped.push(tool);
      else if (tools.has(tool.descriptor.name)) skipped.push(`${method.toUpperCase()} ${path}: the tool name ${tool.descriptor.name} is taken`);
      else tools.set(tool.descriptor.name, tool);
    }
  }
  for (const name of named) skipped.push(`${name}: no documented route has this method and path or operationId`);
  return { tools, skipped };
}
