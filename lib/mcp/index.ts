// keel/mcp: an app's chosen routes (by tag or by name) as Model Context Protocol tools. The tool
// schemas come from the OpenAPI document (keel/openapi), a call runs the route through
// `app.inject` with every layer, and the server speaks Streamable HTTP at a path of the app
// (behind the app's layers) and stdio (`serveMcpStdio`). Costs nothing when not imported.
// Exported names carry "Mcp"/"MCP" where a generic one could meet another feature's in dist/keel.js.
export { mcpServer, MCP_PROTOCOL_VERSIONS, DEFAULT_FORWARDED_HEADERS as MCP_FORWARDED_HEADERS, type McpServerOptions } from "./server.js";
export type { McpServer } from "./mcp-server.js";
export {
  serveMcpStdio,
  DEFAULT_STDIO_MAX_IN_FLIGHT as DEFAULT_MCP_STDIO_MAX_IN_FLIGHT,
  DEFAULT_STDIO_MAX_LINE_BYTES as DEFAULT_MCP_STDIO_MAX_LINE_BYTES,
  type McpStdioOptions,
} from "./stdio.js";
export { DEFAULT_MCP_PATH, DEFAULT_MCP_BODY_LIMIT } from "./http.js";
export { DEFAULT_MAX_SESSIONS as DEFAULT_MCP_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS as DEFAULT_MCP_SESSION_IDLE_MS, type McpSessionStats } from "./sessions.js";
export type { McpToolSelection, McpToolDescriptor } from "./tools.js";
export type { McpTextFormat, McpToolResult, McpCallOrigin } from "./call.js";
export type { JsonRpcCall as McpJsonRpcCall, JsonRpcAnswer as McpJsonRpcAnswer } from "./json-rpc.js";
