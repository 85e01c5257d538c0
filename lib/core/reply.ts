// A Reply is what a handler's return value becomes and what layers see and change before it is
// written to the socket once. Headers are a null-prototype object with lowercase names.
import type { Readable } from "node:stream";
import type { ApiError } from "./errors.js";

export type StreamBody = Readable | AsyncIterable<Uint8Array | string>;
export type ReplyBody = string | Uint8Array | StreamBody | null;
export type HeaderValue = string | number | readonly string[];
export type ReplyHeaders = Record<string, HeaderValue>;

export const JSON_TYPE = "application/json";
export const TEXT_TYPE = "text/plain; charset=utf-8";
export const HTML_TYPE = "text/html; charset=utf-8";
export const OCTET_TYPE = "application/octet-stream";

export class Reply {
  status: number;
  headers: ReplyHeaders;
  body: ReplyBody;
  /** The value a JSON or negotiated reply was made from, for layers that re-encode (TOON, cache). */
  value: unknown;
  /** Set on error replies: the error and the error_id sent to the client (for logs and spans). */
  error: ApiError | null;
  errorId: string;

  constructor(status: number, body: ReplyBody, headers?: Record<string, HeaderValue>) {
    this.status = status;
    this.body = body;
    this.value = undefined;
    this.error = null;
    this.errorId = "";
    const h: ReplyHeaders = Object.create(null);
    if (headers !== undefined) {
      for (const name in headers) h[name.toLowerCase()] = headers[name]!;
    }
    this.headers = h;
  }

  /** Set a header (name is lowercased). Returns the reply for chaining. */
  header(name: string, value: HeaderValue): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }

  /** Add a value to a header that may repeat (set-cookie, vary). */
  appendHeader(name: string, value: string): this {
    const key = name.toLowerCase();
    const prev = this.headers[key];
    if (prev === undefined) this.headers[key] = value;
    else if (Array.isArray(prev)) this.headers[key] = [...(prev as readonly string[]), value];
    else this.headers[key] = [String(prev), value];
    return this;
  }
}

/** A JSON reply. `undefined` becomes an empty body. */
export function jsonReply(value: unknown, status = 200, headers?: Record<string, HeaderValue>): Reply {
  const body = value === undefined ? null : JSON.stringify(value);
  const r = new Reply(status, body, headers);
  r.value = value;
  if (body !== null && r.headers["content-type"] === undefined) r.headers["content-type"] = JSON_TYPE;
  return r;
}

/** `reply(status, body?, headers?)`: any status; objects, arrays, numbers and booleans are JSON. */
function replyWith(status: number, body?: unknown, headers?: Record<string, HeaderValue>): Reply {
  if (body === undefined || body === null) return new Reply(status, null, headers);
  if (typeof body === "string") {
    const r = new Reply(status, body, headers);
    if (r.headers["content-type"] === undefined) r.headers["content-type"] = TEXT_TYPE;
    return r;
  }
  if (body instanceof Uint8Array) {
    const r = new Reply(status, body, headers);
    if (r.headers["content-type"] === undefined) r.headers["content-type"] = OCTET_TYPE;
    return r;
  }
  return jsonReply(body, status, headers);
}

/** 201 Created, with an optional JSON body and headers (for example `location`). */
export function created(body?: unknown, headers?: Record<string, HeaderValue>): Reply {
  return body === undefined ? new Reply(201, null, headers) : jsonReply(body, 201, headers);
}

/** 202 Accepted, with an optional JSON body. */
export function accepted(body?: unknown, headers?: Record<string, HeaderValue>): Reply {
  return body === undefined ? new Reply(202, null, headers) : jsonReply(body, 202, headers);
}

/** 204 No Content. */
export function noContent(headers?: Record<string, HeaderValue>): Reply {
  return new Reply(204, null, headers);
}

export function text(body: string, status = 200, headers?: Record<string, HeaderValue>): Reply {
  const r = new Reply(status, body, headers);
  if (r.headers["content-type"] === undefined) r.headers["content-type"] = TEXT_TYPE;
  return r;
}

export function html(body: string, status = 200, headers?: Record<string, HeaderValue>): Reply {
  const r = new Reply(status, body, headers);
  if (r.headers["content-type"] === undefined) r.headers["content-type"] = HTML_TYPE;
  return r;
}

export function bytes(body: Uint8Array, contentType = OCTET_TYPE, status = 200): Reply {
  return new Reply(status, body, { "content-type": contentType });
}

/** A streamed body (a Readable or any async iterable of chunks), written with backpressure. */
export function stream(body: StreamBody, contentType = OCTET_TYPE, status = 200, headers?: Record<string, HeaderValue>): Reply {
  const r = new Reply(status, body, headers);
  if (r.headers["content-type"] === undefined) r.headers["content-type"] = contentType;
  return r;
}

/** 3xx redirect. The target is validated: no CR/LF, so it cannot inject headers. */
export function redirect(location: string, status: 301 | 302 | 303 | 307 | 308 = 302): Reply {
  if (/[\r\n]/.test(location)) throw new TypeError("redirect target must not contain CR or LF");
  return new Reply(status, null, { location });
}

export function isStreamBody(body: ReplyBody): body is StreamBody {
  return body !== null && typeof body === "object" && !(body instanceof Uint8Array);
}

/**
 * Turn a handler's return value into a Reply: a Reply stays, `undefined` (a handler that returns
 * nothing) is 204, anything else is 200 JSON (a string becomes a JSON string, as SPEC `/hello`).
 */
export function toReply(value: unknown): Reply {
  if (value instanceof Reply) return value;
  if (value === undefined) return new Reply(204, null);
  return jsonReply(value);
}

/**
 * `reply(status, body?, headers?)` for any status, plus the helpers as properties:
 * `reply.text`, `reply.html`, `reply.bytes`, `reply.json`, `reply.created`, `reply.noContent`,
 * `reply.stream`, `reply.redirect`.
 */
export const reply = Object.assign(replyWith, {
  json: jsonReply,
  text,
  html,
  bytes,
  created,
  accepted,
  noContent,
  stream,
  redirect,
});
