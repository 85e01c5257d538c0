// A Reply is what a handler's return value becomes and what layers see and change before it is
// written to the socket once. Headers are a map with no inherited names (fastNullProtoMap) and
// lowercase names.
import type { Readable } from "node:stream";
import type { ApiError } from "./errors.js";
import { fastNullProtoMap } from "../util/fast-map.js";
import { serializeSetCookie, type CookieAttributes } from "../util/set-cookie.js";
import { brandedHtml, type BrandedHtml } from "./html-brand.js";

/** Options of `reply.setCookie`: path "/" and SameSite=Lax by default, host-only, session cookie. */
export type CookieOptions = CookieAttributes;

export type StreamBody = Readable | AsyncIterable<Uint8Array | string>;
export type ReplyBody = string | Uint8Array | StreamBody | null;
export type HeaderValue = string | number | readonly string[];
export type ReplyHeaders = Record<string, HeaderValue>;

export const JSON_TYPE = "application/json";
export const TEXT_TYPE = "text/plain; charset=utf-8";
export const HTML_TYPE = "text/html; charset=utf-8";
export const OCTET_TYPE = "application/octet-stream";

/**
 * `S` and `B` are the status and body type a handler's reply is checked against (the route's
 * declared responses); they exist only in types. A JSON reply keeps its value and writes its text
 * when first read (`body`), so a route with a response schema writes it once, with its compiled
 * serializer, and nothing else.
 */
export class Reply<S extends number = number, B = unknown> {
  declare readonly __status?: S;
  declare readonly __body?: B;
  status: number;
  headers: ReplyHeaders;
  /** Set on error replies: the error and the error_id sent to the client (for logs and spans). */
  error: ApiError | null;
  errorId: string;
  /** @internal the body as set; stale while `pendingJson`. */
  rawBody: ReplyBody;
  /** @internal true while the body is still to be written as the JSON text of `rawValue`. */
  pendingJson: boolean;
  /** @internal the value a JSON reply was made from. */
  rawValue: unknown;
  /** @internal JSON text written by a response schema: `value` reads back what was sent. */
  sentJson: string | null;

  constructor(status: number, body: ReplyBody, headers?: Record<string, HeaderValue>) {
    this.status = status;
    this.rawBody = body;
    this.pendingJson = false;
    this.rawValue = undefined;
    this.sentJson = null;
    this.error = null;
    this.errorId = "";
    const h: ReplyHeaders = fastNullProtoMap();
    if (headers !== undefined) {
      for (const name in headers) h[name.toLowerCase()] = headers[name]!;
    }
    this.headers = h;
  }

  /** The body to send; a JSON reply's text is written on first read. */
  get body(): ReplyBody {
    if (this.pendingJson) {
      this.pendingJson = false;
      this.rawBody = JSON.stringify(this.rawValue) ?? null;
    }
    return this.rawBody;
  }

  set body(body: ReplyBody) {
    this.pendingJson = false;
    this.rawBody = body;
  }

  /**
   * The value a JSON or negotiated reply was made from, for layers that re-encode it (TOON, the
   * cache). After a response schema wrote the body, this is what was sent: only the properties
   * the schema lists.
   */
  get value(): unknown {
    if (this.sentJson !== null) {
      this.rawValue = JSON.parse(this.sentJson);
      this.sentJson = null;
    }
    return this.rawValue;
  }

  /** Whether the reply was made from a value (`value` would not be undefined), without reading it back. */
  get hasValue(): boolean {
    return this.sentJson !== null || this.rawValue !== undefined;
  }

  set value(value: unknown) {
    this.sentJson = null;
    this.rawValue = value;
  }

  /** @internal the body written by a response schema's serializer from the value. */
  setSerialized(json: string): void {
    this.pendingJson = false;
    this.rawBody = json;
    this.sentJson = json;
  }

  /** Set a header (name is lowercased). Returns the reply for chaining. */
  header(name: string, value: HeaderValue): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }

  /**
   * Add a Set-Cookie header (several per reply). The value is percent-encoded; the name and
   * options are validated (a TypeError for a bad one: never a broken header).
   */
  setCookie(name: string, value: string, options?: CookieOptions): this {
    return this.appendHeader("set-cookie", serializeSetCookie(name, value, options));
  }

  /** Tell the client to drop a cookie (empty value, Max-Age=0); pass the path and domain it was set with. */
  clearCookie(name: string, options?: Pick<CookieOptions, "path" | "domain" | "secure" | "sameSite" | "httpOnly" | "partitioned">): this {
    return this.appendHeader("set-cookie", serializeSetCookie(name, "", { ...options, maxAge: 0 }));
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

/** A JSON reply. `undefined` becomes an empty body. The text is written when first needed. */
export function jsonReply<B, const S extends number = 200>(value: B, status: S = 200 as S, headers?: Record<string, HeaderValue>): Reply<S, B> {
  const r = new Reply<S, B>(status, null, headers);
  if (value === undefined) return r;
  r.rawValue = value;
  r.pendingJson = true;
  if (r.headers["content-type"] === undefined) r.headers["content-type"] = JSON_TYPE;
  return r;
}

/** `reply(status, body?, headers?)`: any status; objects, arrays, numbers and booleans are JSON. */
function replyWith<const S extends number, B = undefined>(status: S, body?: B, headers?: Record<string, HeaderValue>): Reply<S, B> {
  if (body === undefined || body === null) return new Reply(status, null, headers);
  if (typeof body === "string") {
    const r = new Reply<S, B>(status, body, headers);
    if (r.headers["content-type"] === undefined) r.headers["content-type"] = TEXT_TYPE;
    return r;
  }
  if (body instanceof Uint8Array) {
    const r = new Reply<S, B>(status, body, headers);
    if (r.headers["content-type"] === undefined) r.headers["content-type"] = OCTET_TYPE;
    return r;
  }
  return jsonReply(body, status, headers);
}

/** 201 Created, with an optional JSON body and headers (for example `location`). */
export function created<B = undefined>(body?: B, headers?: Record<string, HeaderValue>): Reply<201, B> {
  return body === undefined ? new Reply(201, null, headers) : jsonReply(body, 201, headers);
}

/** 202 Accepted, with an optional JSON body. */
export function accepted<B = undefined>(body?: B, headers?: Record<string, HeaderValue>): Reply<202, B> {
  return body === undefined ? new Reply(202, null, headers) : jsonReply(body, 202, headers);
}

/** 204 No Content. */
export function noContent(headers?: Record<string, HeaderValue>): Reply<204, undefined> {
  return new Reply(204, null, headers);
}

export function text<const S extends number = 200>(body: string, status: S = 200 as S, headers?: Record<string, HeaderValue>): Reply<S, string> {
  const r = new Reply<S, string>(status, body, headers);
  if (r.headers["content-type"] === undefined) r.headers["content-type"] = TEXT_TYPE;
  return r;
}

/**
 * An HTML reply (text/html): a string is sent as written (the caller vouches for it), and so is
 * branded HTML (keel/web's markup`` and raw(), see html-brand.ts). Anything else is a TypeError.
 */
export function html<const S extends number = 200>(body: string | BrandedHtml, status: S = 200 as S, headers?: Record<string, HeaderValue>): Reply<S, string> {
  const text = typeof body === "string" ? body : brandedHtml(body);
  if (text === undefined) {
    throw new TypeError("html() takes a string or SafeHtml (keel/web: markup``, raw())");
  }
  const r = new Reply<S, string>(status, text, headers);
  if (r.headers["content-type"] === undefined) r.headers["content-type"] = HTML_TYPE;
  return r;
}

export function bytes<const S extends number = 200>(body: Uint8Array, contentType = OCTET_TYPE, status: S = 200 as S): Reply<S, Uint8Array> {
  return new Reply(status, body, { "content-type": contentType });
}

/** A streamed body (a Readable or any async iterable of chunks), written with backpressure. */
export function stream<const S extends number = 200>(body: StreamBody, contentType = OCTET_TYPE, status: S = 200 as S, headers?: Record<string, HeaderValue>): Reply<S, StreamBody> {
  const r = new Reply<S, StreamBody>(status, body, headers);
  if (r.headers["content-type"] === undefined) r.headers["content-type"] = contentType;
  return r;
}

/** 3xx redirect. The target is validated: no CR/LF, so it cannot inject headers. */
export function redirect<const S extends 301 | 302 | 303 | 307 | 308 = 302>(location: string, status: S = 302 as S): Reply<S, undefined> {
  if (/[\r\n]/.test(location)) throw new TypeError("redirect target must not contain CR or LF");
  return new Reply(status, null, { location });
}

export function isStreamBody(body: ReplyBody): body is StreamBody {
  return body !== null && typeof body === "object" && !(body instanceof Uint8Array);
}

/**
 * Turn a handler's return value into a Reply: a Reply stays, `undefined` (a handler that returns
 * nothing) is 204, branded HTML (keel/web's markup`...`) is 200 text/html, anything else is 200 JSON (a string becomes a JSON string, as SPEC `/hello`).
 * JSON text is written here, so a value JSON cannot represent fails inside the route's guard.
 */
export function toReply(value: unknown): Reply {
  if (value instanceof Reply) {
    if (value.pendingJson) void value.body;
    return value;
  }
  if (value === undefined) return new Reply(204, null);
  const markup = brandedHtml(value);
  if (markup !== undefined) return html(markup);
  const r = jsonReply(value);
  void r.body;
  return r;
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
