// app.inject(): the full pipeline (routing, layers, extractors, handler, error mapping) for one
// request without a socket. The response is what the socket would have carried.
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import type { Context } from "./context.js";
import { isStreamBody, type Reply } from "./reply.js";
import { finalizeHeaders, isBodyless, settledReply } from "../server/write.js";

export interface InjectOptions {
  method?: string;
  url: string;
  headers?: Record<string, string | string[]>;
  /** A string or bytes are sent as they are; any other value is sent as JSON (content-type set). */
  body?: unknown;
  remoteAddress?: string;
}

export interface InjectResponse {
  status: number;
  /** Lowercase names; numbers as strings, as a client would see them. */
  headers: Record<string, string | string[]>;
  body: string;
  rawBody: Buffer;
  json<T = unknown>(): T;
}

function bodyBytes(body: unknown, headers: Record<string, string | string[]>): Buffer | null {
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (headers["content-type"] === undefined) headers["content-type"] = "application/json";
  return Buffer.from(JSON.stringify(body), "utf8");
}

/** A stand-in IncomingMessage: a readable body plus the fields keel reads. */
function fakeRequest(options: InjectOptions): IncomingMessage {
  const headers: Record<string, string | string[]> = Object.create(null);
  for (const [k, v] of Object.entries(options.headers ?? {})) headers[k.toLowerCase()] = v;
  // An HTTP/1.1 request as a client sends it: with a Host (which the front door checks like any
  // other; an invalid one is the same 400 as on the wire).
  if (headers["host"] === undefined) headers["host"] = "localhost";
  const payload = bodyBytes(options.body, headers);
  if (payload !== null && headers["content-length"] === undefined && headers["transfer-encoding"] === undefined) {
    headers["content-length"] = String(payload.length);
  }
  let sent = false;
  const req = new Readable({
    read() {
      if (!sent && payload !== null && payload.length > 0) this.push(payload);
      sent = true;
      this.push(null);
    },
  }) as unknown as IncomingMessage & Record<string, unknown>;
  req.method = (options.method ?? "GET").toUpperCase();
  req.url = options.url;
  req.headers = headers;
  req.httpVersion = "1.1";
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  Object.defineProperty(req, "socket", { value: { remoteAddress: options.remoteAddress ?? "127.0.0.1" } });
  return req;
}

async function collect(body: Reply["body"]): Promise<Buffer> {
  if (body === null) return Buffer.alloc(0);
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

export async function injectRequest(
  options: InjectOptions,
  run: (req: IncomingMessage) => { ctx: Context; reply: Promise<Reply> },
): Promise<InjectResponse> {
  const { ctx, reply: pending } = run(fakeRequest(options));
  try {
    return await injectedResponse(ctx, await pending);
  } finally {
    const done = ctx.injectedDone;
    if (done !== null) await Promise.allSettled(done.map((fn) => fn()));
  }
}

async function injectedResponse(ctx: Context, value: Reply): Promise<InjectResponse> {
  const reply = settledReply(ctx, value);
  finalizeHeaders(ctx, reply);
  const bodyless = isBodyless(ctx.method, reply.status);
  let raw: Buffer;
  if (bodyless) {
    raw = Buffer.alloc(0);
    if (isStreamBody(reply.body) && reply.body instanceof Readable) reply.body.destroy();
  } else {
    raw = await collect(reply.body);
  }
  const headers: Record<string, string | string[]> = Object.create(null);
  for (const name in reply.headers) {
    const v = reply.headers[name]!;
    headers[name] = Array.isArray(v) ? [...(v as readonly string[])] : String(v);
  }
  if (!bodyless && headers["content-length"] === undefined && reply.status !== 204) {
    headers["transfer-encoding"] = "chunked";
  }
  const text = raw.toString("utf8");
  return {
    status: reply.status,
    headers,
    body: text,
    rawBody: raw,
    json<T>() {
      return JSON.parse(text) as T;
    },
  };
}
