// The Streamable HTTP transport (MCP 2025-06-18, also 2025-03-26) as routes on the app, so the
// app's layers (auth, rate limits, access log) apply to it like to any route. POST carries one
// JSON-RPC message and is answered with application/json (no SSE streams: every answer is
// immediate); GET is 405 (no server-initiated stream); DELETE ends the session.
import { type Context, context, type Layer, Reply, route, type RouteDefinition } from "../index.js";
import { acceptQuality } from "../plugin.js";
import { TOON_MEDIA_TYPE } from "../toon/index.js";
import type { McpTextFormat } from "./call.js";
import { INTERNAL_ERROR, INVALID_REQUEST, parseMessage, rpcError, type JsonRpcAnswer } from "./json-rpc.js";
import type { McpServer } from "./mcp-server.js";
import type { SessionTable } from "./sessions.js";

export const DEFAULT_MCP_PATH = "/mcp";
/** Largest MCP request body (a tool call's arguments, a JSON body among them), bytes. */
export const DEFAULT_MCP_BODY_LIMIT = 1024 * 1024;
export const SESSION_HEADER = "mcp-session-id";
export const PROTOCOL_VERSION_HEADER = "mcp-protocol-version";
/** The JSON-RPC code of "no such session" (the MCP SDKs use it with HTTP 404). */
export const SESSION_NOT_FOUND = -32001;

export interface McpHttpOptions {
  readonly path: string;
  readonly layers: readonly Layer[];
  readonly maxBodyBytes: number;
  readonly allowedOrigins: readonly string[];
  readonly negotiatedVersion: (requested: unknown) => string;
}

function answer(status: number, message: JsonRpcAnswer | null, headers: Record<string, string> = {}): Reply {
  if (message === null) return new Reply(status, null, headers);
  return new Reply(status, JSON.stringify(message), { ...headers, "content-type": "application/json" });
}

function refuse(status: number, code: number, message: string): Reply {
  return answer(status, rpcError(null, code, message));
}

/**
 * A browser page on another site must not reach a local MCP server (DNS rebinding): an Origin
 * header, when sent, must be listed or name the host the request was sent to.
 */
function originAllowed(ctx: Context, allowed: readonly string[]): boolean {
  const origin = ctx.header("origin");
  if (origin === undefined || allowed.includes(origin)) return true;
  try {
    return new URL(origin).host === ctx.header("host");
  } catch {
    return false;
  }
}

function textFormat(ctx: Context, fallback: McpTextFormat): McpTextFormat {
  const accept = ctx.header("accept");
  return accept !== undefined && accept.toLowerCase().includes(TOON_MEDIA_TYPE) && acceptQuality(accept, TOON_MEDIA_TYPE) > 0 ? "toon" : fallback;
}

function forwarded(ctx: Context, names: readonly string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of names) {
    const value = ctx.headers[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

export function mcpHttpRoutes(server: McpServer, sessions: SessionTable, options: McpHttpOptions): RouteDefinition[] {
  const meta = { hidden: true, layers: options.layers, bodyLimit: options.maxBodyBytes } as const;
  const supported = (version: string | undefined): boolean => version === undefined || options.negotiatedVersion(version) === version;

  const post = route.post(options.path, meta, [context()], async (ctx) => {
    if (!originAllowed(ctx, options.allowedOrigins)) return refuse(403, INVALID_REQUEST, "Forbidden: this Origin may not call the MCP server");
    if (ctx.contentType.essence !== "application/json") return refuse(415, INVALID_REQUEST, "Unsupported Media Type: send application/json");
    const text = (await ctx.body()).toString("utf8");
    const incoming = parseMessage(text);
    if (incoming.kind === "error") return answer(400, incoming.error);
    if (incoming.kind === "response") return answer(202, null);
    const call = incoming.call;

    let sessionId: string | undefined;
    if (call.method === "initialize") {
      if (call.id === undefined) return answer(400, rpcError(null, INVALID_REQUEST, "Invalid Request: initialize is a request (it needs an id)"));
    } else {
      const id = ctx.header(SESSION_HEADER);
      if (id === undefined) return refuse(400, INVALID_REQUEST, "Bad Request: the Mcp-Session-Id header is required after initialize");
      if (!supported(ctx.header(PROTOCOL_VERSION_HEADER))) return refuse(400, INVALID_REQUEST, `Bad Request: unsupported MCP-Protocol-Version ${ctx.header(PROTOCOL_VERSION_HEADER)}`);
      if (sessions.touch(id) === undefined) return refuse(404, SESSION_NOT_FOUND, "Session not found: initialize again");
      sessionId = id;
    }

    let result: JsonRpcAnswer | undefined;
    try {
      result = await server.handle(call, {
        headers: forwarded(ctx, server.forwardHeaders),
        remoteAddress: ctx.remoteAddress,
        format: textFormat(ctx, server.format),
      });
    } catch (err) {
      ctx.runtime.logger.log(50, "mcp: call failed", { method: call.method, message: err instanceof Error ? err.message : String(err) });
      result = call.id === undefined ? undefined : rpcError(call.id, INTERNAL_ERROR, "Internal error");
    }
    if (result === undefined) return answer(202, null);
    if (call.method === "initialize" && "result" in result) {
      const version = (result.result as { protocolVersion: string }).protocolVersion;
      sessionId = sessions.open(version).id;
    }
    return answer(200, result, sessionId === undefined ? {} : { "mcp-session-id": sessionId });
  });

  const get = route.get(options.path, meta, [], () => new Reply(405, null, { allow: "POST, DELETE" }));

  const del = route.delete(options.path, meta, [context()], (ctx) => {
    const id = ctx.header(SESSION_HEADER);
    if (id === undefined) return refuse(400, INVALID_REQUEST, "Bad Request: the Mcp-Session-Id header names the session to end");
    return sessions.end(id) ? answer(204, null) : refuse(404, SESSION_NOT_FOUND, "Session not found");
  });

  return [post, get, del] as RouteDefinition[];
}

