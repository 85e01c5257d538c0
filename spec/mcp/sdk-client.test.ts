// keel/mcp against the official MCP TypeScript SDK (test peer @modelcontextprotocol/sdk, installed
// on demand into .tmp/test-peers; skipped visibly without it): its Client over the Streamable HTTP
// transport against a listening app (initialize, tools/list by tag, tools/call with a path
// parameter and with a body, route errors as isError results, an unknown tool as an MCP error,
// the route's and the endpoint's auth), and over stdio against the sample as a process.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import type { ListeningServer } from "../../lib/index.js";
import { testPeer } from "../support/test-peers.js";
import { API_KEY, mcpTestApp } from "./test-app.js";

const SDK_VERSION = "1.32.2";
const peerDir = await testPeer("@modelcontextprotocol/sdk", SDK_VERSION);
const skip = peerDir === null ? `@modelcontextprotocol/sdk@${SDK_VERSION} could not be installed into .tmp/test-peers (offline?)` : false;
const root = fileURLToPath(new URL("../..", import.meta.url));

interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}
interface SdkClient {
  connect(transport: unknown): Promise<void>;
  close(): Promise<void>;
  getServerVersion(): { name: string; version: string } | undefined;
  listTools(): Promise<{ tools: { name: string; description?: string; inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown> }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<ToolResult>;
}
type ClientClass = new (info: { name: string; version: string }) => SdkClient;
type HttpTransportClass = new (url: URL, options?: { requestInit?: { headers?: Record<string, string> } }) => { sessionId?: string; terminateSession(): Promise<void> };
type StdioTransportClass = new (options: { command: string; args: string[]; cwd?: string; env?: Record<string, string>; stderr?: "pipe" | "inherit" | "ignore" }) => unknown;

async function sdk(): Promise<{ Client: ClientClass; StreamableHTTPClientTransport: HttpTransportClass; StdioClientTransport: StdioTransportClass }> {
  const load = (file: string): Promise<Record<string, unknown>> => import(pathToFileURL(join(peerDir!, "dist", "esm", "client", file)).href) as Promise<Record<string, unknown>>;
  const [client, http, stdio] = await Promise.all([load("index.js"), load("streamableHttp.js"), load("stdio.js")]);
  return { Client: client["Client"] as ClientClass, StreamableHTTPClientTransport: http["StreamableHTTPClientTransport"] as HttpTransportClass, StdioClientTransport: stdio["StdioClientTransport"] as StdioTransportClass };
}

describe("the MCP SDK client over Streamable HTTP", { skip }, () => {
  let server: ListeningServer;
  let lib: Awaited<ReturnType<typeof sdk>>;
  const clients: SdkClient[] = [];

  async function connect(path: string, headers?: Record<string, string>): Promise<SdkClient> {
    const client = new lib.Client({ name: "keel-spec", version: "0.0.1" });
    await client.connect(new lib.StreamableHTTPClientTransport(new URL(path, server.url), headers === undefined ? {} : { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  before(async () => {
    lib = await sdk();
    server = await mcpTestApp().app.listen({ port: 0, host: "127.0.0.1" });
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await server?.close();
  });

  it("initializes and lists the tools of the chosen tag only", async () => {
    const client = await connect("/mcp");
    assert.deepEqual(client.getServerVersion(), { name: "keel-test", version: "1.2.3" });
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["createUser", "getUsersById", "whoAmI"]);
    const get = tools.find((t) => t.name === "getUsersById")!;
    assert.equal(get.description, "Get a user");
    assert.deepEqual(get.inputSchema["required"], ["id"]);
    assert.equal((get.outputSchema?.["properties"] as Record<string, unknown>)["email"] !== undefined, true);
    const create = tools.find((t) => t.name === "createUser")!;
    assert.deepEqual(create.inputSchema["required"], ["body"]);
    assert.ok((create.inputSchema["$defs"] as Record<string, unknown>)["McpNewUser"], "the body's named schema comes along under $defs");
  });

  it("calls a tool with a path parameter: the route's answer as structured content and JSON text", async () => {
    const client = await connect("/mcp");
    const result = await client.callTool({ name: "getUsersById", arguments: { id: 1 } });
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent, { id: 1, email: "alice@example.com" });
    assert.deepEqual(JSON.parse(result.content[0]!.text), { id: 1, email: "alice@example.com" });
  });

  it("calls a tool with a body (the route answers 201)", async () => {
    const client = await connect("/mcp");
    const result = await client.callTool({ name: "createUser", arguments: { body: { email: "zoe@example.com" } } });
    assert.equal(result.isError, undefined);
    assert.equal(result.structuredContent?.["email"], "zoe@example.com");
    const again = await client.callTool({ name: "getUsersById", arguments: { id: result.structuredContent?.["id"] as number } });
    assert.equal(again.structuredContent?.["email"], "zoe@example.com");
  });

  it("a 404 and a 422 of the route are tool results with isError and the uniform error body", async () => {
    const client = await connect("/mcp");
    const missing = await client.callTool({ name: "getUsersById", arguments: { id: 999 } });
    assert.equal(missing.isError, true);
    assert.equal((JSON.parse(missing.content[0]!.text) as { error: { type: string } }).error.type, "not_found");
    const invalid = await client.callTool({ name: "createUser", arguments: { body: { email: "not an email" } } });
    assert.equal(invalid.isError, true);
    const body = JSON.parse(invalid.content[0]!.text) as { error: { type: string; fields: { field: string }[] } };
    assert.equal(body.error.type, "validation_error");
    assert.ok(body.error.fields.some((f) => f.field.includes("email")));
  });

  it("an unknown tool is an MCP (JSON-RPC) error, not a result", async () => {
    const client = await connect("/mcp");
    await assert.rejects(client.callTool({ name: "getAdminStats" }), (err: Error & { code?: number }) => {
      assert.equal(err.code, -32602);
      assert.match(err.message, /Unknown tool/);
      return true;
    });
  });

  it("a tool's route decides auth: without the key the call is a 401 result, with it the call succeeds", async () => {
    const anonymous = await connect("/mcp");
    const refused = await anonymous.callTool({ name: "whoAmI" });
    assert.equal(refused.isError, true);
    assert.equal((JSON.parse(refused.content[0]!.text) as { error: { type: string } }).error.type, "unauthorized");
    const keyed = await connect("/mcp", { "x-api-key": API_KEY });
    const ok = await keyed.callTool({ name: "whoAmI" });
    assert.equal(ok.isError, undefined);
    assert.deepEqual(ok.structuredContent, { sub: "tester" });
  });

  it("an MCP endpoint behind the key: no key, no connection; with it, tools", async () => {
    await assert.rejects(connect("/secure-mcp"), /401|Unauthorized/i);
    const client = await connect("/secure-mcp", { "x-api-key": API_KEY });
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["getUsersById"]);
    assert.equal((await client.callTool({ name: "getUsersById", arguments: { id: 1 } })).structuredContent?.["id"], 1);
  });
});

describe("the MCP SDK client over stdio (`main.ts mcp`, the sample as a process)", { skip }, () => {
  it("initializes, lists the sample's user tools and calls one", { timeout: 60_000 }, async () => {
    const lib = await sdk();
    const client = new lib.Client({ name: "keel-spec", version: "0.0.1" });
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    await client.connect(new lib.StdioClientTransport({ command: process.execPath, args: ["--import", "tsx", "lib/sample/main.ts", "mcp"], cwd: root, env, stderr: "pipe" }));
    try {
      assert.equal(client.getServerVersion()?.name, "keel-sample");
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      assert.ok(names.includes("getUsersById") && names.includes("postUsers"), names.join(", "));
      assert.ok(!names.some((n) => n.toLowerCase().includes("ping")), "a route of another tag is not a tool");
      const result = await client.callTool({ name: "getUsersById", arguments: { id: 2 } });
      assert.deepEqual(result.structuredContent, { id: 2, email: "bob@example.com" });
    } finally {
      await client.close();
    }
  });
});
