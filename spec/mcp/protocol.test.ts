// keel/mcp's Streamable HTTP transport driven through app.inject: JSON-RPC errors (-32700,
// -32600 for batches and non-messages, -32601, -32602), the session rules (issued at initialize,
// required after, 404 once ended or evicted, MCP-Protocol-Version checked), the bounds (body
// size, the sessions map under a flood of initializes), the Origin check, and TOON text when the
// client asks for it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { App, InjectResponse } from "../../lib/index.js";
import { decodeToon } from "../../lib/toon/index.js";
import { mcpTestApp } from "./test-app.js";

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function post(app: App, body: unknown, headers: Record<string, string> = {}, path = "/mcp"): Promise<InjectResponse> {
  return app.inject({ method: "POST", url: path, headers: { ...JSON_HEADERS, ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
}

async function initialize(app: App, headers: Record<string, string> = {}): Promise<string> {
  const res = await post(app, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "0" } } }, headers);
  assert.equal(res.status, 200, res.body);
  const id = res.headers["mcp-session-id"];
  assert.equal(typeof id, "string");
  return id as string;
}

function rpc(res: InjectResponse): { id: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } } {
  return res.json();
}

describe("MCP over Streamable HTTP: protocol errors", () => {
  const { app } = mcpTestApp();

  it("a body that is not JSON is -32700 (HTTP 400)", async () => {
    const res = await post(app, "{not json");
    assert.equal(res.status, 400);
    assert.deepEqual(rpc(res).error?.code, -32700);
    assert.equal(rpc(res).id, null);
  });

  it("JSON that is not a JSON-RPC 2.0 message is -32600; a batch is refused with -32600, naming batches", async () => {
    for (const body of [{ id: 1, method: "ping" }, { jsonrpc: "1.0", id: 1, method: "ping" }, 42, { jsonrpc: "2.0", id: { x: 1 }, method: "ping" }]) {
      const res = await post(app, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(rpc(res).error?.code, -32600);
    }
    const batch = await post(app, [{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", id: 2, method: "ping" }]);
    assert.equal(batch.status, 400);
    assert.equal(rpc(batch).error?.code, -32600);
    assert.match(rpc(batch).error!.message, /batch/);
  });

  it("an unknown method is -32601; tools/call with a bad name, arguments or a missing path parameter is -32602", async () => {
    const session = { "mcp-session-id": await initialize(app) };
    const unknown = await post(app, { jsonrpc: "2.0", id: 7, method: "resources/list" }, session);
    assert.equal(unknown.status, 200);
    assert.deepEqual(rpc(unknown).error?.code, -32601);
    assert.equal(rpc(unknown).id, 7);
    const cases: [unknown, RegExp][] = [
      [{ name: "nope" }, /Unknown tool/],
      [{ name: 5 }, /name/],
      [{ name: "getUsersById", arguments: [1] }, /arguments/],
      [{ name: "getUsersById", arguments: {} }, /missing argument "id"/],
      [{ name: "getUsersById", arguments: { id: 1, extra: true } }, /unknown argument "extra"/],
      [{ name: "getUsersById", arguments: { id: { nested: 1 } } }, /"id"/],
    ];
    for (const [params, message] of cases) {
      const res = await post(app, { jsonrpc: "2.0", id: "c", method: "tools/call", params }, session);
      assert.equal(rpc(res).error?.code, -32602, JSON.stringify(params));
      assert.match(rpc(res).error!.message, message);
    }
  });

  it("a path parameter of the wrong type reaches the route, whose 422 is an isError result", async () => {
    const session = { "mcp-session-id": await initialize(app) };
    const res = await post(app, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "getUsersById", arguments: { id: "abc" } } }, session);
    const result = rpc(res).result as { isError?: boolean; content: { text: string }[] };
    assert.equal(result.isError, true);
    assert.equal((JSON.parse(result.content[0]!.text) as { error: { type: string } }).error.type, "validation_error");
  });

  it("notifications and client responses are accepted with 202 and no body", async () => {
    const session = { "mcp-session-id": await initialize(app) };
    const note = await post(app, { jsonrpc: "2.0", method: "notifications/initialized" }, session);
    assert.equal(note.status, 202);
    assert.equal(note.body, "");
    const response = await post(app, { jsonrpc: "2.0", id: 3, result: {} }, session);
    assert.equal(response.status, 202);
  });

  it("GET is 405 (no server-initiated stream); another content type is 415", async () => {
    const get = await app.inject({ method: "GET", url: "/mcp" });
    assert.equal(get.status, 405);
    assert.equal(get.headers["allow"], "POST, DELETE");
    const text = await app.inject({ method: "POST", url: "/mcp", headers: { "content-type": "text/plain" }, body: "{}" });
    assert.equal(text.status, 415);
  });

  it("an Origin of another site is 403 (DNS rebinding); the server's own origin passes", async () => {
    const foreign = await post(app, { jsonrpc: "2.0", id: 1, method: "ping" }, { origin: "https://evil.example" });
    assert.equal(foreign.status, 403);
    const own = await post(app, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18" } }, { origin: "http://localhost" });
    assert.equal(own.status, 200);
  });

  it("initialize answers the client's version when it is supported, else the newest", async () => {
    const old = await post(app, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26" } });
    assert.equal(rpc(old).result?.["protocolVersion"], "2025-03-26");
    const future = await post(app, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2099-01-01" } });
    assert.equal(rpc(future).result?.["protocolVersion"], "2025-06-18");
  });
});

describe("MCP over Streamable HTTP: sessions", () => {
  it("a request after initialize needs Mcp-Session-Id (400), an unknown one is 404, DELETE ends it", async () => {
    const { app } = mcpTestApp();
    const missing = await post(app, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    assert.equal(missing.status, 400);
    const unknown = await post(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-session-id": "no-such-session" });
    assert.equal(unknown.status, 404);
    assert.equal(rpc(unknown).error?.code, -32001);
    const id = await initialize(app);
    const listed = await post(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-session-id": id });
    assert.equal(listed.status, 200);
    const ended = await app.inject({ method: "DELETE", url: "/mcp", headers: { "mcp-session-id": id } });
    assert.equal(ended.status, 204);
    const after = await post(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-session-id": id });
    assert.equal(after.status, 404);
    assert.equal((await app.inject({ method: "DELETE", url: "/mcp", headers: { "mcp-session-id": id } })).status, 404);
    assert.equal((await app.inject({ method: "DELETE", url: "/mcp" })).status, 400);
  });

  it("an unsupported MCP-Protocol-Version header is 400; a supported one or none passes", async () => {
    const { app } = mcpTestApp();
    const id = await initialize(app);
    const bad = await post(app, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": id, "mcp-protocol-version": "1999-01-01" });
    assert.equal(bad.status, 400);
    assert.match(rpc(bad).error!.message, /MCP-Protocol-Version/);
    for (const version of ["2025-06-18", "2025-03-26"]) {
      const ok = await post(app, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": id, "mcp-protocol-version": version });
      assert.equal(ok.status, 200);
    }
  });

  it("a flood of initializes keeps at most maxSessions: the least recently used are evicted (404, initialize again) and counted", async () => {
    const { app, mcp } = mcpTestApp({ maxSessions: 8 });
    const first = await initialize(app);
    const kept = await initialize(app);
    for (let i = 0; i < 500; i++) {
      await initialize(app);
      // `kept` stays in use, so it is never the least recently used one.
      if (i % 4 === 0) assert.equal((await post(app, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": kept })).status, 200);
    }
    const stats = mcp.stats();
    assert.equal(stats.sessions, 8);
    assert.equal(stats.created, 502);
    assert.equal(stats.evicted, 494);
    assert.equal((await post(app, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": first })).status, 404);
    assert.equal((await post(app, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": kept })).status, 200);
  });

  it("a body over maxBodyBytes is 413 before it is parsed", async () => {
    const { app } = mcpTestApp({ maxBodyBytes: 1024 });
    const id = await initialize(app);
    const big = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "createUser", arguments: { body: { email: "a@example.com", name: "x".repeat(4096) } } } };
    const res = await post(app, big, { "mcp-session-id": id });
    assert.equal(res.status, 413);
  });
});

describe("MCP tool results as TOON", () => {
  it("Accept: application/toon on the MCP request makes the text content TOON (structuredContent stays JSON)", async () => {
    const { app } = mcpTestApp();
    const id = await initialize(app);
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "getUsersById", arguments: { id: 1 } } };
    const res = await post(app, call, { "mcp-session-id": id, accept: "application/json, text/event-stream, application/toon" });
    const result = rpc(res).result as { content: { text: string }[]; structuredContent: unknown };
    assert.equal(result.content[0]!.text, "id: 1\nemail: alice@example.com");
    assert.deepEqual({ ...(decodeToon(result.content[0]!.text) as object) }, { id: 1, email: "alice@example.com" });
    assert.deepEqual(result.structuredContent, { id: 1, email: "alice@example.com" });
  });

  it("format: \"toon\" makes TOON the default", async () => {
    const { app } = mcpTestApp({ format: "toon" });
    const id = await initialize(app);
    const res = await post(app, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "getUsersById", arguments: { id: 404 } } }, { "mcp-session-id": id });
    const result = rpc(res).result as { content: { text: string }[]; isError: boolean };
    assert.equal(result.isError, true);
    assert.equal((decodeToon(result.content[0]!.text) as { error: { type: string } }).error.type, "not_found");
  });
});
