// The stdio transport: newline-delimited JSON-RPC, one message per line, on an input stream
// (stdin), answers on an output stream (stdout); logs belong on stderr, never stdout. Bounded: a
// line longer than `maxLineBytes` is answered -32700 and dropped without being kept; at most
// `maxInFlight` calls run at once (the input is paused until one finishes: backpressure).
import type { Readable, Writable } from "node:stream";
import { PARSE_ERROR, parseMessage, rpcError, INTERNAL_ERROR, type JsonRpcAnswer } from "./json-rpc.js";
import type { McpServer } from "./mcp-server.js";

export const DEFAULT_STDIO_MAX_LINE_BYTES = 1024 * 1024;
export const DEFAULT_STDIO_MAX_IN_FLIGHT = 16;

export interface McpStdioOptions {
  readonly input?: Readable;
  readonly output?: Writable;
  /** Longest message line, bytes (default 1 MiB). */
  readonly maxLineBytes?: number;
  /** Calls running at once (default 16). */
  readonly maxInFlight?: number;
  /** Headers every tool call carries (there is no HTTP request to take them from), e.g. an authorization. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Serves `server` over stdio until the input ends; resolves once every call has been answered.
 *
 * @example
 * ```ts
 * await serveMcpStdio(mcpServer(app, { name: "app", version: "1.0.0", tools: { tags: ["users"] }, path: false }));
 * ```
 * @see docs/features/mcp.md
 */
export function serveMcpStdio(server: McpServer, options: McpStdioOptions = {}): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const maxLine = options.maxLineBytes ?? DEFAULT_STDIO_MAX_LINE_BYTES;
  const maxInFlight = options.maxInFlight ?? DEFAULT_STDIO_MAX_IN_FLIGHT;
  const origin = { headers: { ...options.headers }, format: server.format };
  /** Received bytes not yet split into lines: at most one chunk more than `maxLineBytes`, as input pauses while calls are at the limit. */
  let backlog: Buffer = Buffer.alloc(0);
  /** Dropping the rest of an over-long line, up to its newline. */
  let discarding = false;
  let inFlight = 0;
  let ended = false;

  return new Promise<void>((resolve) => {
    const send = (message: JsonRpcAnswer): void => void output.write(JSON.stringify(message) + "\n");
    const settle = (): void => {
      if (ended && inFlight === 0 && backlog.indexOf(10) === -1 && backlog.length === 0) resolve();
    };
    const run = (line: string): void => {
      if (line.trim() === "") return;
      const incoming = parseMessage(line);
      if (incoming.kind === "error") return send(incoming.error);
      if (incoming.kind === "response") return;
      const call = incoming.call;
      inFlight++;
      server
        .handle(call, origin)
        .catch((err: unknown) => {
          server.app.runtime.logger.log(50, "mcp: call failed", { method: call.method, message: err instanceof Error ? err.message : String(err) });
          return call.id === undefined ? undefined : rpcError(call.id, INTERNAL_ERROR, "Internal error");
        })
        .then((result) => {
          if (result !== undefined) send(result);
          inFlight--;
          drain();
        });
    };
    const tooLong = (): void => send(rpcError(null, PARSE_ERROR, `Parse error: a message is longer than ${maxLine} bytes`));
    // Runs the complete lines of the backlog while calls are under the limit; the rest waits (input paused).
    const drain = (): void => {
      while (inFlight < maxInFlight) {
        const nl = backlog.indexOf(10);
        if (nl === -1) break;
        const line = backlog.subarray(0, nl);
        backlog = backlog.subarray(nl + 1);
        if (discarding) discarding = false;
        else if (line.length > maxLine) tooLong();
        else run(line.toString("utf8"));
      }
      if (backlog.indexOf(10) === -1) {
        if (discarding) backlog = Buffer.alloc(0);
        else if (backlog.length > maxLine) {
          // Over the limit before its end: answered now, the rest of the line dropped as it comes.
          tooLong();
          discarding = true;
          backlog = Buffer.alloc(0);
        }
      }
      if (inFlight >= maxInFlight) input.pause();
      else if (!ended) input.resume();
      if (ended && inFlight === 0 && backlog.length > 0 && backlog.indexOf(10) === -1) {
        // The last line without its newline.
        const last = backlog;
        backlog = Buffer.alloc(0);
        if (!discarding) run(last.toString("utf8"));
      }
      settle();
    };
    input.on("data", (chunk: Buffer | string) => {
      const data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      backlog = backlog.length === 0 ? data : Buffer.concat([backlog, data]);
      drain();
    });
    input.on("end", () => {
      ended = true;
      drain();
    });
    input.on("error", () => {
      ended = true;
      settle();
    });
  });
}
