// The per-request context: one object per request, one stable shape. Everything derived from the
// request (query, cookies, content type, body) is parsed lazily, once, and shared.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { readRequestBody } from "./body.js";
import { parseCookies } from "./cookies.js";
import { parseMediaType, type MediaType } from "./content-type.js";
import { parseQueryString, type ParamMap } from "./query.js";
import type { AppRuntime } from "./runtime.js";
import { LOG_LEVELS } from "../util/logger.js";

/**
 * What a request knows of the route it matched: the registered RouteDefinition, seen through
 * the fields layers read (declared here so the context does not depend on route declarations).
 */
export interface MatchedRoute {
  readonly method: string;
  /** The path as declared. */
  readonly path: string;
  /** Canonical pattern (`/users/{id}`): the label for logs, metrics and keys. */
  readonly pattern: string;
  readonly meta: {
    readonly config?: Readonly<Record<string, unknown>> | undefined;
    /** The route's own layers (functions), for layers that defer to a route-level twin. */
    readonly layers?: readonly unknown[] | undefined;
  };
}

const EMPTY_PARAMS: Record<string, string> = Object.freeze(Object.create(null)) as Record<string, string>;

export class Context {
  readonly req: IncomingMessage;
  /** The Node response, or null when the request came through `app.inject`. */
  readonly res: ServerResponse | null;
  /** Upper-case method as received (HEAD stays HEAD even when a GET route serves it). */
  readonly method: string;
  /** Raw request path without the query string; what the router matched. */
  readonly path: string;
  /** Raw query string without `?` ("" when absent). */
  readonly rawQuery: string;
  /** Decoded path parameters (null-prototype). */
  params: Record<string, string>;
  /** The matched route, or null for 404/405/automatic OPTIONS. */
  route: MatchedRoute | null;
  /** Request id; set by the request-id layer (empty when none runs). */
  requestId: string;
  /** A routing failure (bad path encoding, over-long parameter) for the fallback chain to answer. */
  routingError: unknown;
  /** The request's tracing span, set by the production baseline (see lib/observability/span.ts). */
  span: unknown;
  /** Per-request values set by layers for extractors and handlers (null-prototype, lazy). */
  private localsMap: Record<string, unknown> | null;
  /** Body size limit for this request in bytes. */
  bodyLimit: number;
  readonly runtime: AppRuntime;
  private queryMap: ParamMap | null;
  private cookieMap: Record<string, string> | null;
  private mediaType: MediaType | null;
  private bodyPromise: Promise<Buffer> | null;
  private abort: AbortController | null;
  /** @internal `afterResponse` callbacks of an injected request (no socket to wait for). */
  injectedDone: (() => void | Promise<void>)[] | null;

  constructor(runtime: AppRuntime, req: IncomingMessage, res: ServerResponse | null, path: string, rawQuery: string) {
    this.req = req;
    this.res = res;
    this.method = req.method ?? "GET";
    this.path = path;
    this.rawQuery = rawQuery;
    this.params = EMPTY_PARAMS;
    this.route = null;
    this.requestId = "";
    this.routingError = undefined;
    this.span = null;
    this.localsMap = null;
    this.bodyLimit = runtime.bodyLimit;
    this.runtime = runtime;
    this.queryMap = null;
    this.cookieMap = null;
    this.mediaType = null;
    this.bodyPromise = null;
    this.abort = null;
    this.injectedDone = null;
  }

  /** Request headers (lowercase names, as Node gives them). */
  get headers(): IncomingMessage["headers"] {
    return this.req.headers;
  }

  /** One header as a single string: repeated headers are joined with ", " (set-cookie excepted). */
  header(name: string): string | undefined {
    const v = this.req.headers[name.toLowerCase()];
    if (v === undefined) return undefined;
    return Array.isArray(v) ? v.join(", ") : v;
  }

  /** Parsed query string (null-prototype; repeated keys become arrays). */
  get query(): ParamMap {
    return (this.queryMap ??= parseQueryString(this.rawQuery));
  }

  /** Parsed Cookie header (null-prototype). */
  get cookies(): Record<string, string> {
    return (this.cookieMap ??= parseCookies(this.header("cookie")));
  }

  /** The request's media type, parsed once and shared by every body consumer. */
  get contentType(): MediaType {
    return (this.mediaType ??= parseMediaType(this.req.headers["content-type"]));
  }

  /** The raw body, read once (within `bodyLimit`); later calls share the same promise. */
  body(): Promise<Buffer> {
    return (this.bodyPromise ??= readRequestBody(this.req, this.bodyLimit));
  }

  /** Application state shared by all requests. */
  get state(): Record<string, unknown> {
    return this.runtime.state;
  }

  /** Per-request values set by layers. */
  get locals(): Record<string, unknown> {
    return (this.localsMap ??= Object.create(null) as Record<string, unknown>);
  }

  /** Socket peer address (never taken from X-Forwarded-For here). */
  get remoteAddress(): string {
    return this.req.socket?.remoteAddress ?? "";
  }

  /**
   * True when the request arrived over TLS on this server's own socket (HTTPS or HTTP/2; an
   * HTTP/2 request's socket is its session's). Behind a TLS-terminating proxy this is false:
   * what the proxy says (X-Forwarded-Proto) is not trusted here.
   */
  get secure(): boolean {
    return (this.req.socket as TLSSocket | null | undefined)?.encrypted === true;
  }

  /** Aborts when the client goes away before the response is finished, or when a layer aborts it. */
  get signal(): AbortSignal {
    if (this.abort === null) {
      const controller = new AbortController();
      this.abort = controller;
      const res = this.res;
      if (res !== null) {
        res.once("close", () => {
          if (!res.writableFinished) controller.abort(new Error("client closed the connection"));
        });
      }
    }
    return this.abort.signal;
  }

  /**
   * Run `fn` once the response is over: sent, failed, or cut off by the client (for
   * `app.inject`, once the answer has been collected, and inject waits for a returned promise).
   * For per-request resources such as uploaded temp files.
   */
  afterResponse(fn: () => void | Promise<void>): void {
    const res = this.res;
    if (res === null) (this.injectedDone ??= []).push(fn);
    // An HTTP/2 compatibility response has no `closed`: its stream (or destroyed) tells.
    else if (res.closed || res.destroyed || (res as { stream?: { closed?: boolean } }).stream?.closed === true) this.runCleanup(fn);
    else res.once("close", () => this.runCleanup(fn));
  }

  /** A cleanup that fails is logged (warn), never an unhandled rejection. */
  private runCleanup(fn: () => void | Promise<void>): void {
    const failed = (err: unknown): void => {
      const logger = this.runtime.logger;
      if (LOG_LEVELS.warn >= logger.level) logger.log(LOG_LEVELS.warn, "cleanup after the response failed", { message: err instanceof Error ? err.message : String(err) });
    };
    try {
      const p = fn();
      if (p !== undefined) p.catch(failed);
    } catch (err) {
      failed(err);
    }
  }

  /** Abort the request's signal (used by timeout layers). */
  abortRequest(reason?: unknown): void {
    if (this.abort === null) this.abort = new AbortController();
    this.abort.abort(reason);
  }
}
