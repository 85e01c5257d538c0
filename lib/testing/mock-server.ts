// mockServer(): a loopback node:http server answering declared expectations, for testing the
// calls an app makes (tracedFetch, a JWKS fetch, an OTLP export) without the network. Everything
// it keeps is bounded: the request log (the last `maxRequests`, the rest counted), the
// unmatched list (same), each body (`maxBodyBytes`, then 413).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { errorBodyJson, newErrorId, parseQueryString } from "../plugin.js";
import { ApiError } from "../index.js";
import { Expectation, type MockAnswer, type MockReply } from "./expectation.js";
import { compileMatcher, type RequestMatcher } from "./matchers.js";
import { describeRequest, type ReceivedRequest } from "./received.js";
import { MockVerificationError } from "./verification-error.js";

export const DEFAULT_MOCK_MAX_REQUESTS = 1000;
export const DEFAULT_MOCK_MAX_BODY_BYTES = 1024 * 1024;
/** Expectations one server holds: a test that declares more is likely looping. */
export const MAX_MOCK_EXPECTATIONS = 10_000;

export interface MockServerOptions {
  /** Requests kept in `requests` (and, separately, unmatched ones): the last N (default 1000). */
  maxRequests?: number;
  /** A request body past this is not kept and the request is answered 413 (default 1 MiB). */
  maxBodyBytes?: number;
  /** The loopback address to bind (default "127.0.0.1"). */
  host?: string;
}

/** A bounded log: the last `max` items, and how many older ones were dropped. */
class LastN<T> {
  items: T[] = [];
  dropped = 0;
  constructor(private readonly max: number) {}
  push(item: T): void {
    this.items.push(item);
    if (this.items.length > this.max) {
      this.items.shift();
      this.dropped++;
    }
  }
  clear(): void {
    this.items = [];
    this.dropped = 0;
  }
}

function toNumber(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`mockServer: ${name} must be a whole number of at least 1, got ${value}`);
  return value;
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A loopback server for tests: `const mock = await mockServer()`, `mock.expect({ method: "GET",
 * path: "/jwks.json" }).reply(200, { keys })`, point the code under test at `mock.url`, then
 * `mock.verify()` and `await mock.close()`.
 *
 * @see docs/features/testing.md
 */
export class MockServer {
  private readonly server: Server;
  private readonly expectations: Expectation[] = [];
  private readonly log: LastN<ReceivedRequest>;
  private readonly unmatchedLog: LastN<ReceivedRequest>;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly sockets = new Set<Socket>();
  private readonly maxBodyBytes: number;
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url = "";

  constructor(options: MockServerOptions = {}) {
    const max = toNumber("maxRequests", options.maxRequests, DEFAULT_MOCK_MAX_REQUESTS);
    this.maxBodyBytes = toNumber("maxBodyBytes", options.maxBodyBytes, DEFAULT_MOCK_MAX_BODY_BYTES);
    this.log = new LastN(max);
    this.unmatchedLog = new LastN(max);
    this.server = createServer((req, res) => this.receive(req, res));
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
  }

  /** Bind to a free loopback port. */
  async listen(host = "127.0.0.1"): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(0, host, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    const { port, family } = this.server.address() as AddressInfo;
    this.url = `http://${family === "IPv6" ? `[${host}]` : host}:${port}`;
    return this;
  }

  /** Declare an expectation; requests are matched against open ones in declaration order. */
  expect(matcher: RequestMatcher = {}): Expectation {
    if (this.expectations.length >= MAX_MOCK_EXPECTATIONS) throw new RangeError(`mockServer: more than ${MAX_MOCK_EXPECTATIONS} expectations`);
    const e = new Expectation(compileMatcher(matcher));
    this.expectations.push(e);
    return e;
  }

  /** The last `maxRequests` requests received, oldest first. */
  get requests(): readonly ReceivedRequest[] {
    return this.log.items;
  }

  /** Requests received but no longer in `requests`. */
  get requestsDropped(): number {
    return this.log.dropped;
  }

  /** The last `maxRequests` requests no expectation matched (each was answered 501). */
  get unmatched(): readonly ReceivedRequest[] {
    return this.unmatchedLog.items;
  }

  /** Throws a MockVerificationError (an AssertionError) listing unmet expectations and unmatched requests. */
  verify(): void {
    const unmet = this.expectations
      .filter((e) => !e.met)
      .map((e) => `${e.description}: expected ${e.limit === Infinity ? "at least 1 call" : `${e.limit} call${e.limit === 1 ? "" : "s"}`}, got ${e.calls}`);
    const unmatched = this.unmatchedLog.items.map(describeRequest);
    if (unmet.length > 0 || unmatched.length > 0 || this.unmatchedLog.dropped > 0) throw new MockVerificationError(unmet, unmatched, this.unmatchedLog.dropped);
  }

  /** Forget the expectations and what was received. */
  reset(): void {
    this.expectations.length = 0;
    this.log.clear();
    this.unmatchedLog.clear();
  }

  /** Stop: pending delayed answers are dropped and open connections closed. */
  close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      for (const s of this.sockets) s.destroy();
    });
  }

  private receive(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > this.maxBodyBytes) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => this.answer(req, res, tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge));
  }

  private answer(req: IncomingMessage, res: ServerResponse, body: Buffer, tooLarge: boolean): void {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const text = body.toString("utf8");
    const base = {
      method: (req.method ?? "GET").toUpperCase(),
      path: q === -1 ? url : url.slice(0, q),
      url,
      query: q === -1 ? {} : { ...parseQueryString(url.slice(q + 1)) },
      headers: req.headers,
      body,
      text,
      json: parseJson(text),
      tooLarge,
    };
    const match = tooLarge ? undefined : this.expectations.find((e) => e.open && e.matcher.matches({ ...base, matchedBy: null }));
    const received: ReceivedRequest = { ...base, matchedBy: match?.description ?? null };
    this.log.push(received);
    if (tooLarge) {
      this.unmatchedLog.push(received);
      return void this.sendError(res, ApiError.payloadTooLarge(`mockServer: the body is over ${this.maxBodyBytes} bytes`));
    }
    if (match === undefined || match.answer === null) {
      this.unmatchedLog.push(received);
      const why = match === undefined ? "no expectation matches" : `the expectation ${match.description} has no reply or fault`;
      if (match !== undefined) match.calls++;
      return void this.sendError(res, new ApiError(501, "not_implemented", `mockServer: ${why} ${describeRequest(received)}`));
    }
    match.calls++;
    this.later(match.answer, received, req, res);
  }

  private later(answer: MockAnswer, received: ReceivedRequest, req: IncomingMessage, res: ServerResponse): void {
    if (answer.delayMs === 0) return this.perform(answer, received, req, res);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.perform(answer, received, req, res);
    }, answer.delayMs);
    this.timers.add(timer);
  }

  private perform(answer: MockAnswer, received: ReceivedRequest, req: IncomingMessage, res: ServerResponse): void {
    if (answer.kind === "fault") {
      if (answer.fault === "reset") req.socket.resetAndDestroy();
      else req.socket.destroy();
      return;
    }
    let reply: MockReply;
    try {
      reply = typeof answer.reply === "function" ? answer.reply(received) : answer.reply;
    } catch (err) {
      return void this.sendError(res, ApiError.internal(`mockServer: the reply function threw: ${(err as Error)?.message ?? String(err)}`));
    }
    const headers: Record<string, string | number | readonly string[]> = { ...reply.headers };
    let payload: string | Uint8Array | null = null;
    if (typeof reply.body === "string" || reply.body instanceof Uint8Array) payload = reply.body;
    else if (reply.body !== undefined) {
      payload = JSON.stringify(reply.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json";
    }
    res.writeHead(reply.status ?? 200, headers as Record<string, string>);
    res.end(payload ?? undefined);
  }

  private sendError(res: ServerResponse, error: ApiError): void {
    res.writeHead(error.status, { "content-type": "application/json" });
    res.end(errorBodyJson(error, newErrorId(), false));
  }
}

/** Start a mock server on a free loopback port: `const mock = await mockServer()`. */
export async function mockServer(options: MockServerOptions = {}): Promise<MockServer> {
  return new MockServer(options).listen(options.host);
}
