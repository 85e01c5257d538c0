// serveMcpStdio in process, over PassThrough streams: one JSON-RPC message per line, answers
// one per line; an over-long line (even split over chunks) is -32700 and the next line still
// works; at most maxInFlight calls run at once however many lines arrive in one chunk; the
// headers option reaches the routes; the promise settles when the input ends.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { App, route, silentLogger } from "../../lib/index.js";
import { mcpServer, serveMcpStdio } from "../../lib/mcp/index.js";
import { API_KEY, mcpTestApp } from "./test-app.js";

function lines(output: PassThrough): () => Record<string, unknown>[] {
  let text = "";
  output.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  return () => text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("MCP over stdio", () => {
  it("answers each line, refuses an over-long one with -32700 and goes on", async () => {
    const { app } = mcpTestApp();
    const mcp = mcpServer(app, { name: "stdio", version: "1", tools: { tags: ["users"] }, path: false });
    const input = new PassThrough();
    const output = new PassThrough();
    const read = lines(output);
    const done = serveMcpStdio(mcp, { input, output, maxLineBytes: 256 });
    input.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18" } }) + "\n");
    // 2 KiB without a newline, in pieces: answered once, dropped up to its newline.
    for (let i = 0; i < 8; i++) input.write("x".repeat(256));
    input.write("tail of the long line\n");
    input.write("{broken\n");
    input.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "getUsersById", arguments: { id: 1 } } }) + "\n");
    input.end(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }));
    await done;
    const answers = read();
    const byId = new Map(answers.filter((a) => a["id"] !== null).map((a) => [a["id"], a]));
    assert.equal((byId.get(1)!["result"] as { serverInfo: { name: string } }).serverInfo.name, "stdio");
    assert.deepEqual((byId.get(2)!["result"] as { structuredContent: unknown }).structuredContent, { id: 1, email: "alice@example.com" });
    assert.deepEqual(byId.get(3)!["result"], {});
    const errors = answers.filter((a) => a["id"] === null).map((a) => (a["error"] as { code: number; message: string }));
    assert.equal(errors.length, 2, JSON.stringify(errors));
    assert.ok(errors.every((e) => e.code === -32700));
    assert.ok(errors.some((e) => /longer than 256 bytes/.test(e.message)));
  });

  it("runs at most maxInFlight calls at once, however many lines one chunk holds", async () => {
    let running = 0;
    let most = 0;
    const app = new App({ logger: silentLogger }).route(
      route.get("/slow", { tag: "slow", operationId: "slow" }, [], async () => {
        most = Math.max(most, ++running);
        for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
        running--;
        return { ok: true };
      }),
    );
    const mcp = mcpServer(app, { name: "slow", version: "1", tools: { tags: ["slow"] }, path: false });
    const input = new PassThrough();
    const output = new PassThrough();
    const read = lines(output);
    const done = serveMcpStdio(mcp, { input, output, maxInFlight: 3 });
    let chunk = "";
    for (let id = 1; id <= 40; id++) chunk += JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "slow" } }) + "\n";
    input.end(chunk);
    await done;
    assert.equal(read().length, 40);
    assert.ok(most <= 3, `at most 3 at once, saw ${most}`);
  });

  it("the headers option is sent with every tool call (the route's auth decides)", async () => {
    const { app } = mcpTestApp();
    const call = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoAmI" } }) + "\n";
    const run = async (headers?: Record<string, string>): Promise<{ isError?: boolean }> => {
      const input = new PassThrough();
      const output = new PassThrough();
      const read = lines(output);
      const done = serveMcpStdio(mcpServer(app, { name: "s", version: "1", tools: { tags: ["users"] }, path: false }), { input, output, ...(headers === undefined ? {} : { headers }) });
      input.end(call);
      await done;
      return read()[0]!["result"] as { isError?: boolean };
    };
    assert.equal((await run()).isError, true);
    assert.equal((await run({ "x-api-key": API_KEY })).isError, undefined);
  });
});
