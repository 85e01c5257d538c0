// tools/call: the arguments become one request to the route, run through `app.inject` (every
// layer of the app and the route, auth included, decides as it would for an HTTP client). A 2xx is
// the tool's result; a 4xx/5xx is a result with `isError: true` carrying the uniform error body,
// which is how MCP reports a tool that ran and failed (a JSON-RPC error is for calls that could
// not run: unknown tool, arguments that do not fit the route's path and query).
import type { App, InjectResponse } from "../index.js";
import { isJsonMediaType } from "../plugin.js";
import { encodeToon } from "../toon/index.js";
import type { McpTool } from "./tools.js";

/** How a tool result's text content is written. */
export type McpTextFormat = "json" | "toon";

/** Where the call came from: the headers to pass on, the client's address, the text format. */
export interface McpCallOrigin {
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly remoteAddress?: string;
  readonly format: McpTextFormat;
}

export interface McpToolResult {
  readonly content: { readonly type: "text"; readonly text: string }[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: true;
}

/** Arguments that cannot make a request (a JSON-RPC -32602). */
export class McpArgumentError extends Error {}

function scalar(name: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  throw new McpArgumentError(`argument "${name}" must be a string, a number or a boolean`);
}

/** The request target for `args`: path parameters substituted, query parameters appended. */
export function requestTarget(tool: McpTool, args: Readonly<Record<string, unknown>>): string {
  for (const name of Object.keys(args)) {
    if (name !== "body" || tool.bodyType === null) {
      if (!tool.pathParams.some((p) => p.name === name) && !tool.queryParams.includes(name)) throw new McpArgumentError(`unknown argument "${name}"`);
    }
  }
  let path = tool.path;
  for (const p of tool.pathParams) {
    const value = args[p.name];
    if (value === undefined) throw new McpArgumentError(`missing argument "${p.name}" (a path parameter)`);
    const text = scalar(p.name, value);
    // A wildcard keeps its slashes; every other segment is one segment.
    const encoded = p.wildcard ? text.split("/").map(encodeURIComponent).join("/") : encodeURIComponent(text);
    path = path.replace(`{${p.name}}`, encoded);
  }
  const query = new URLSearchParams();
  for (const name of tool.queryParams) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) query.append(name, scalar(name, item));
    else query.append(name, scalar(name, value));
  }
  const search = query.toString();
  return search === "" ? path : `${path}?${search}`;
}

function text(value: unknown, format: McpTextFormat): string {
  return format === "toon" ? encodeToon(value) : JSON.stringify(value);
}

function parsedBody(res: InjectResponse): { json: true; value: unknown } | { json: false; text: string } {
  const type = res.headers["content-type"];
  if (res.rawBody.length > 0 && isJsonMediaType(typeof type === "string" ? type : undefined)) {
    try {
      return { json: true, value: JSON.parse(res.body) };
    } catch {
      // Declared JSON that is not: shown as it came.
    }
  }
  return { json: false, text: res.body };
}

/** The MCP result for one answer of the route. */
export function toolResult(tool: McpTool, res: InjectResponse, format: McpTextFormat): McpToolResult {
  const body = parsedBody(res);
  const failed = res.status >= 400;
  const content = [{ type: "text" as const, text: body.json ? text(body.value, format) : body.text }];
  if (failed) return { content, isError: true };
  if (tool.hasOutputSchema && body.json && typeof body.value === "object" && body.value !== null && !Array.isArray(body.value)) {
    return { content, structuredContent: body.value as Record<string, unknown> };
  }
  return { content };
}

/** Runs `tool` with `args` through the app's in-process pipeline. */
export async function callTool(app: App, tool: McpTool, args: Readonly<Record<string, unknown>>, origin: McpCallOrigin): Promise<McpToolResult> {
  const url = requestTarget(tool, args);
  const headers: Record<string, string | string[]> = { ...origin.headers, accept: "application/json" };
  const hasBody = tool.bodyType !== null && args["body"] !== undefined;
  if (hasBody) headers["content-type"] = tool.bodyType!;
  const res = await app.inject({
    method: tool.method,
    url,
    headers,
    ...(hasBody ? { body: JSON.stringify(args["body"]) } : {}),
    ...(origin.remoteAddress === undefined ? {} : { remoteAddress: origin.remoteAddress }),
  });
  return toolResult(tool, res, origin.format);
}
