// mcpServer(app, options): the MCP server of an app. It answers the protocol's methods
// (initialize, ping, tools/list, tools/call) for both transports; the Streamable HTTP one is a
// route on the app (./http.ts), the stdio one a loop over a process's stdin (./stdio.ts).
import type { App } from "../index.js";
import { callTool, McpArgumentError, type McpTextFormat } from "./call.js";
import { INVALID_PARAMS, METHOD_NOT_FOUND, rpcError, rpcResult } from "./json-rpc.js";
import { buildTools, type McpTool, type McpToolSelection } from "./tools.js";
import { mcpHttpRoutes, DEFAULT_MCP_BODY_LIMIT, DEFAULT_MCP_PATH } from "./http.js";
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, SessionTable } from "./sessions.js";
import type { McpServer } from "./mcp-server.js";
import type { Layer } from "../index.js";

/** The protocol versions this server speaks, newest first (initialize answers the client's when listed, else the first). */
export const MCP_PROTOCOL_VERSIONS = ["2025-06-18", "2025-03-26"] as const;
/** Headers passed from the MCP request to the route a tool runs, so the route's own auth decides. */
export const DEFAULT_FORWARDED_HEADERS = ["authorization", "cookie", "x-api-key"] as const;

export interface McpServerOptions {
  /** serverInfo.name. */
  readonly name: string;
  /** serverInfo.version. */
  readonly version: string;
  /** The routes that become tools. */
  readonly tools: McpToolSelection;
  /** Where the Streamable HTTP transport is served (default "/mcp"); false: no HTTP transport (stdio only). */
  readonly path?: string | false;
  /** Layers around the MCP route only (inside the app's global layers), e.g. `[jwt(...)]`. */
  readonly layers?: readonly Layer[];
  /** Text of tool results: "json" (default), or "toon". Over HTTP, `Accept: application/toon` on the MCP request asks for TOON too. */
  readonly format?: McpTextFormat;
  /** Headers passed on to the routes (default authorization, cookie, x-api-key). */
  readonly forwardHeaders?: readonly string[];
  /** Sessions kept at once (default 1000); a new one evicts the least recently used. */
  readonly maxSessions?: number;
  /** A session unused this long is gone, ms (default 30 minutes). */
  readonly sessionIdleMs?: number;
  /** Largest MCP request body, bytes (default 1 MiB): more is a 413. */
  readonly maxBodyBytes?: number;
  /** Origins allowed to call the HTTP transport from a browser (default: none but the server's own host); requests without Origin pass. */
  readonly allowedOrigins?: readonly string[];
  /** Text for the client's model about the tools (initialize's `instructions`). */
  readonly instructions?: string;
}


function negotiatedVersion(requested: unknown): string {
  return typeof requested === "string" && (MCP_PROTOCOL_VERSIONS as readonly string[]).includes(requested) ? requested : MCP_PROTOCOL_VERSIONS[0];
}

/**
 * The app's chosen routes as MCP tools, served over Streamable HTTP at `path` (a route of the app,
 * behind its layers) and, with `serveMcpStdio`, over stdio.
 *
 * @example
 * ```ts
 * const mcp = mcpServer(app, { name: "users", version: "1.0.0", tools: { tags: ["users"] } });
 * // POST /mcp: JSON-RPC; tools/call runs the route through app.inject, layers included
 * ```
 * @see docs/features/mcp.md
 */
export function mcpServer(app: App, options: McpServerOptions): McpServer {
  let built: { tools: Map<string, McpTool>; skipped: string[] } | null = null;
  // Built once, when first needed: by then every route is registered (the document is the app's whole table).
  const table = (): { tools: Map<string, McpTool>; skipped: string[] } => {
    if (built === null) {
      built = buildTools(app, options.tools);
      for (const reason of built.skipped) app.runtime.logger.log(40, "mcp: route not made a tool", { reason });
    }
    return built;
  };
  const sessions = new SessionTable(options.maxSessions ?? DEFAULT_MAX_SESSIONS, options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS);
  const server: McpServer = {
    app,
    format: options.format ?? "json",
    forwardHeaders: (options.forwardHeaders ?? DEFAULT_FORWARDED_HEADERS).map((h) => h.toLowerCase()),
    tools: () => [...table().tools.values()].map((t) => t.descriptor),
    skipped: () => table().skipped,
    stats: () => sessions.stats(),
    async handle(call, origin) {
      const id = call.id;
      if (id === undefined) return undefined; // notifications (initialized, cancelled, ...) need no answer
      const params = call.params ?? {};
      switch (call.method) {
        case "initialize":
          return rpcResult(id, {
            protocolVersion: negotiatedVersion(params["protocolVersion"]),
            capabilities: { tools: { listChanged: false } },
            serverInfo: { name: options.name, version: options.version },
            ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
          });
        case "ping":
          return rpcResult(id, {});
        case "tools/list":
          return rpcResult(id, { tools: server.tools() });
        case "tools/call": {
          const name = params["name"];
          if (typeof name !== "string") return rpcError(id, INVALID_PARAMS, "Invalid params: name must be a string");
          const tool = table().tools.get(name);
          if (tool === undefined) return rpcError(id, INVALID_PARAMS, `Unknown tool: ${name}`);
          const args = params["arguments"] ?? {};
          if (typeof args !== "object" || args === null || Array.isArray(args)) return rpcError(id, INVALID_PARAMS, "Invalid params: arguments must be an object");
          try {
            return rpcResult(id, await callTool(app, tool, args as Record<string, unknown>, origin));
          } catch (err) {
            if (err instanceof McpArgumentError) return rpcError(id, INVALID_PARAMS, `Invalid params: ${err.message}`);
            throw err;
          }
        }
        default:
          return rpcError(id, METHOD_NOT_FOUND, `Method not found: ${call.method}`);
      }
    },
  };
  if (options.path !== false) {
    app.routes(
      mcpHttpRoutes(server, sessions, {
        path: options.path ?? DEFAULT_MCP_PATH,
        layers: options.layers ?? [],
        maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MCP_BODY_LIMIT,
        allowedOrigins: options.allowedOrigins ?? [],
        negotiatedVersion,
      }),
    );
  }
  return server;
}
