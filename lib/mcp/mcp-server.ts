// What a transport needs of an MCP server (mcpServer() makes one): answer a call, list the
// tools, count the sessions.
import type { App } from "../index.js";
import type { McpCallOrigin, McpTextFormat } from "./call.js";
import type { JsonRpcAnswer, JsonRpcCall } from "./json-rpc.js";
import type { McpSessionStats } from "./sessions.js";
import type { McpToolDescriptor } from "./tools.js";

export interface McpServer {
  /** Answers one call (undefined for a notification). */
  handle(call: JsonRpcCall, origin: McpCallOrigin): Promise<JsonRpcAnswer | undefined>;
  /** The tools, built from the app's OpenAPI document on first use. */
  tools(): readonly McpToolDescriptor[];
  /** Why chosen routes are not tools (non-JSON bodies, name clashes, names that match no route). */
  skipped(): readonly string[];
  /** Session counters of the HTTP transport. */
  stats(): McpSessionStats;
  readonly app: App;
  readonly format: McpTextFormat;
  readonly forwardHeaders: readonly string[];
}
