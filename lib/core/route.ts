// Route declarations: method, path, OpenAPI metadata, a tuple of extractors (up to 16) and a
// handler whose parameter types are inferred from that tuple.
import type { AnyExtractor, ExtractedType } from "./extractor.js";
import type { AnySchema, Static } from "../schema/index.js";
import type { Context } from "./context.js";
import type { Reply, ReplyBody } from "./reply.js";
import type { WebSocketConnection } from "./upgrade.js";

export const MAX_EXTRACTORS = 16;

/** A layer wraps the rest of the chain: `(ctx, next) => next(ctx)` and may change the Reply. */
export type Next = (ctx: Context) => Promise<Reply>;
export type Layer = (ctx: Context, next: Next) => Promise<Reply>;

/** Path-parameter schema overrides (SPEC "Allowed override values"). */
export type ParamOverride = "uuid" | "integer" | "int" | "int64" | "int32" | "string" | "number" | "float" | "boolean" | "bool";

export interface ResponseDoc {
  description?: string;
  /** JSON Schema (`t`), or any Standard Schema: it validates the reply, and its value is what is sent. */
  schema?: AnySchema;
  contentType?: string;
}

/** A declared response: its body's schema, a fuller description, or just a description (no body). */
export type ResponseValue = AnySchema | ResponseDoc | string;
/** status -> declared response. */
export type Responses = Readonly<Record<number, ResponseValue>>;

export interface RouteMeta<R extends Responses = Responses> {
  tag?: string;
  tags?: readonly string[];
  summary?: string;
  description?: string;
  operationId?: string;
  deprecated?: boolean;
  /** Leave this route out of the OpenAPI document. */
  hidden?: boolean;
  /**
   * status -> the body's schema, `{ description, schema?, contentType? }`, or a description
   * string (no body; for an error status, the uniform error body). Declared schemas type the
   * handler's return value and write its JSON: properties they do not list are never sent.
   */
  responses?: R;
  /** Path-parameter schema overrides by name. */
  params?: Readonly<Record<string, ParamOverride>>;
  /** Layers that wrap only this route (inside the app's global layers). */
  layers?: readonly Layer[];
  /** Body size limit for this route, bytes. */
  bodyLimit?: number;
  /**
   * Per-route settings read by layers (like Fastify's route `config`), e.g. `{ csrf: false }`
   * for a webhook with its own authentication. Layers document the keys they read.
   */
  config?: Readonly<Record<string, unknown>>;
  /**
   * Set by `route.ws`: the route answers WebSocket upgrades, with these options for the
   * acceptor (`keel/ws`: subprotocols, origins, message size, compression, heartbeat).
   */
  websocket?: Readonly<Record<string, unknown>>;
}

type ExtractorArgs<E extends readonly AnyExtractor[]> = { -readonly [K in keyof E]: ExtractedType<E[K]> };
type TooMany = { "keel error": "a handler takes at most 16 extractors" };
type BodyNotLast = { "keel error": "a body-consuming extractor must be the handler's last argument" };
type HasBody<E extends readonly unknown[]> = E extends readonly [infer H, ...infer R]
  ? H extends { consumesBody: true } ? true : HasBody<R>
  : false;
/** `unknown` when the tuple is acceptable; an error type the argument cannot match otherwise. */
export type CheckExtractors<E extends readonly AnyExtractor[]> = number extends E["length"]
  ? unknown
  : E["length"] extends 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16
    ? E extends readonly [...infer Init, unknown] ? (HasBody<Init> extends true ? BodyNotLast : unknown) : unknown
    : TooMany;

/** The uniform error body (`{"error": {...}, "error_id"}`), the body of every error status. */
export interface ErrorBodyShape {
  error: { type: string; message: string; fields?: Array<{ field: string; code: string; message: string }> };
  error_id: string;
}

type IsErrorStatus<S extends number> = `${S}` extends `4${string}` | `5${string}` ? true : false;
/** A declared content type that is not JSON: the body is text, bytes or a stream, not a value. */
type IsOtherMedia<V> = V extends { readonly contentType: infer C extends string } ? (C extends "application/json" | `${string}+json` ? false : true) : false;

/** The body type a declared response stands for. */
export type ResponseBody<V, S extends number = 200> = V extends string
  ? IsErrorStatus<S> extends true ? ErrorBodyShape : undefined
  : IsOtherMedia<V> extends true
    ? ReplyBody
  : V extends { readonly schema: infer X }
    ? Static<X>
    : V extends { readonly description: string }
      ? Exclude<keyof V, "description" | "contentType"> extends never
        ? IsErrorStatus<S> extends true ? ErrorBodyShape : undefined
        : Static<V>
      : Static<V>;

type DeclaredStatus<R> = Extract<keyof R, number>;
/** The replies a handler may return: one per declared status, with that status's body type. */
type DeclaredReply<R> = { [S in DeclaredStatus<R>]: Reply<S, ResponseBody<R[S], S>> }[DeclaredStatus<R>];
/**
 * What a handler of a route that declares `responses` may return: the 200 body as a plain
 * value, nothing (204), or a Reply with a declared status and that status's body
 * (`created(user)` for 201). Without declared responses, anything.
 */
export type HandlerResult<R> = [DeclaredStatus<R>] extends [never]
  ? unknown
  :
      | (200 extends DeclaredStatus<R> ? ResponseBody<R[200 & keyof R]> : never)
      | (204 extends DeclaredStatus<R> ? undefined | void : never)
      | DeclaredReply<R>;

export type Handler<E extends readonly AnyExtractor[], R = {}> = (
  ...args: ExtractorArgs<E>
) => [DeclaredStatus<R>] extends [never] ? unknown : HandlerResult<R> | Promise<HandlerResult<R>>;

/**
 * A route: method, path, metadata, extractors, handler. The type parameters (method and path as
 * declared, the extractor tuple, the declared responses) exist for typed clients; at run time
 * they are the fields below.
 */
export class RouteDefinition<M extends string = string, P extends string = string, E extends readonly AnyExtractor[] = readonly AnyExtractor[], R = unknown> {
  declare readonly __route?: { method: M; path: P; extractors: E; responses: R };
  readonly method: string;
  /** The path as declared (`/users/{id}`, `/users/:id`); the router normalises it. */
  readonly path: string;
  /** Canonical pattern (`{name}` form), set when the route is registered. */
  pattern: string;
  readonly meta: RouteMeta;
  readonly extractors: readonly AnyExtractor[];
  readonly handler: (...args: any[]) => unknown;

  constructor(method: string, path: string, meta: RouteMeta, extractors: readonly AnyExtractor[], handler: (...args: any[]) => unknown) {
    this.method = method.toUpperCase();
    this.path = path;
    this.pattern = path;
    this.meta = meta;
    this.extractors = extractors;
    this.handler = handler;
    checkExtractors(this.method, path, extractors);
  }
}

/** Registration-time checks that mirror the type-level ones, for untyped callers. */
export function checkExtractors(method: string, path: string, extractors: readonly AnyExtractor[]): void {
  const where = `${method} ${path}`;
  if (extractors.length > MAX_EXTRACTORS) {
    throw new TypeError(`${where}: a handler takes at most ${MAX_EXTRACTORS} extractors, got ${extractors.length}`);
  }
  let firstBody: AnyExtractor | undefined;
  for (let i = 0; i < extractors.length; i++) {
    const e = extractors[i];
    if (e === undefined || typeof (e as { extract?: unknown }).extract !== "function") {
      throw new TypeError(`${where}: argument ${i + 1} is not an extractor`);
    }
    if (!e.consumesBody) continue;
    if (firstBody !== undefined) {
      throw new TypeError(`${where}: the body can be read once, but both ${firstBody.label} and ${e.label} read it`);
    }
    firstBody = e;
  }
  const last = extractors.length - 1;
  for (let i = 0; i < last; i++) {
    const e = extractors[i]!;
    if (e.consumesBody) {
      throw new TypeError(`${where}: body extractor ${e.label} must be the last argument (it is argument ${i + 1} of ${extractors.length})`);
    }
  }
}

function declare<M extends string>(method: M) {
  function define<const P extends string, const E extends readonly AnyExtractor[]>(path: P, extractors: E & CheckExtractors<E>, handler: Handler<E>): RouteDefinition<M, P, E, {}>;
  function define<const P extends string, const E extends readonly AnyExtractor[], const R extends Responses = {}>(
    path: P,
    meta: RouteMeta<R>,
    extractors: E & CheckExtractors<E>,
    handler: Handler<E, R>,
  ): RouteDefinition<M, P, E, R>;
  function define(path: string, a: unknown, b: unknown, c?: unknown): RouteDefinition {
    if (Array.isArray(a)) return new RouteDefinition(method, path, {}, a as AnyExtractor[], b as (...args: any[]) => unknown);
    return new RouteDefinition(method, path, (a ?? {}) as RouteMeta, b as AnyExtractor[], c as (...args: any[]) => unknown);
  }
  return define;
}

/** A WebSocket handler: the open connection, then the extracted values. */
export type WebSocketHandler<E extends readonly AnyExtractor[]> = (ws: WebSocketConnection, ...args: ExtractorArgs<E>) => void | Promise<void>;

function declareWebSocket() {
  function define<const P extends string, const E extends readonly AnyExtractor[]>(path: P, extractors: E & CheckExtractors<E>, handler: WebSocketHandler<E>): RouteDefinition<"GET", P, E, {}>;
  function define<const P extends string, const E extends readonly AnyExtractor[]>(
    path: P,
    meta: RouteMeta<{}>,
    extractors: E & CheckExtractors<E>,
    handler: WebSocketHandler<E>,
  ): RouteDefinition<"GET", P, E, {}>;
  function define(path: string, a: unknown, b: unknown, c?: unknown): RouteDefinition {
    const [meta, extractors, handler] = Array.isArray(a) ? [{} as RouteMeta, a as AnyExtractor[], b] : [(a ?? {}) as RouteMeta, b as AnyExtractor[], c];
    if ((extractors as AnyExtractor[]).some((e) => e.consumesBody)) throw new TypeError(`WS ${path}: an upgrade request has no body to extract`);
    // OpenAPI has no WebSocket operations: left out of the document unless `hidden: false`.
    return new RouteDefinition("GET", path, { hidden: true, ...meta, websocket: meta.websocket ?? {} }, extractors, handler as (...args: any[]) => unknown);
  }
  return define;
}

/** Route declarations: `route.get("/users/{id}", { tag: "users" }, [path("id", t.u64())], async (id) => ...)`. */
export const route = {
  get: declare("GET"),
  post: declare("POST"),
  put: declare("PUT"),
  patch: declare("PATCH"),
  delete: declare("DELETE"),
  head: declare("HEAD"),
  options: declare("OPTIONS"),
  /**
   * QUERY (draft-ietf-httpbis-safe-method-w-body): safe and idempotent like GET, with a request
   * body like POST, so `json(...)`/`form(...)` read it. OpenAPI 3.2 documents it (`openapi: "3.2.0"`).
   */
  query: declare("QUERY"),
  /**
   * Any other RFC 9110 method token (`route.method("PURGE")("/cache/{key}", ...)`), upper-cased.
   * node:http's HTTP/1.1 parser delivers only the methods in `http.METHODS`; others reach the
   * app over HTTP/2, `inject` and `fetch` (keel/service's production() warns at listen).
   */
  method: <M extends string>(method: M) => declare(method),
  /**
   * A WebSocket route: `route.ws("/chat", { layers: [jwt(...)] }, [query(...)], (ws, q) => ...)`.
   * Layers and extractors run on the upgrade request; a refusal is the uniform HTTP error. Needs
   * the protocol: `app.register(websockets())` from `keel/ws`.
   */
  ws: declareWebSocket(),
};

export interface GroupOptions<Prefix extends string = string> {
  /** Path prefix for every route of the group (`/api/v1`). */
  prefix?: Prefix;
  /** Layers for every route of the group, outside each route's own layers. */
  layers?: readonly Layer[];
  /** Tag added to routes that have none. */
  tag?: string;
  /** Settings merged under each route's own `config`. */
  config?: Readonly<Record<string, unknown>>;
}

/**
 * A group of routes sharing a prefix, layers, a tag or config: `group({ prefix: "/admin",
 * layers: [jwt(...)] }, [a, b])`. Returns new route definitions; the originals are unchanged.
 * Layers are attached to the routes themselves, never matched by path prefix at request time.
 */
/** A route's type after a group prefixed its path. */
export type Prefixed<D, Prefix extends string> = D extends RouteDefinition<infer M, infer P, infer E, infer R>
  ? RouteDefinition<M, Prefix extends "" ? P : P extends "/" ? Prefix : `${Prefix}${P}`, E, R>
  : D;

export function group<const T extends readonly RouteDefinition<any, any, any, any>[], const Prefix extends string = "">(
  options: GroupOptions<Prefix>,
  routes: T,
): { -readonly [K in keyof T]: Prefixed<T[K], Prefix> } {
  const prefix = options.prefix ?? "";
  if (prefix !== "" && (!prefix.startsWith("/") || prefix.endsWith("/"))) {
    throw new TypeError(`group prefix must start with "/" and not end with "/", got ${JSON.stringify(prefix)}`);
  }
  return routes.map((r) => {
    const meta: RouteMeta = { ...r.meta };
    if (options.layers !== undefined && options.layers.length > 0) meta.layers = [...options.layers, ...(r.meta.layers ?? [])];
    if (options.tag !== undefined && r.meta.tag === undefined && r.meta.tags === undefined) meta.tag = options.tag;
    if (options.config !== undefined) meta.config = { ...options.config, ...r.meta.config };
    const path = prefix === "" ? r.path : r.path === "/" ? prefix : prefix + r.path;
    return new RouteDefinition(r.method, path, meta, r.extractors, r.handler);
  }) as unknown as { -readonly [K in keyof T]: Prefixed<T[K], Prefix> };
}
