// Route declarations: method, path, OpenAPI metadata, a tuple of extractors (up to 16) and a
// handler whose parameter types are inferred from that tuple.
import type { AnyExtractor, ExtractedType } from "./extractor.js";
import type { JsonSchema } from "../schema/index.js";
import type { Context } from "./context.js";
import type { Reply } from "./reply.js";

export const MAX_EXTRACTORS = 16;

/** A layer wraps the rest of the chain: `(ctx, next) => next(ctx)` and may change the Reply. */
export type Next = (ctx: Context) => Promise<Reply>;
export type Layer = (ctx: Context, next: Next) => Promise<Reply>;

/** Path-parameter schema overrides (SPEC "Allowed override values"). */
export type ParamOverride = "uuid" | "integer" | "int" | "int64" | "int32" | "string" | "number" | "float" | "boolean" | "bool";

export interface ResponseDoc {
  description?: string;
  schema?: JsonSchema;
  contentType?: string;
}

export interface RouteMeta {
  tag?: string;
  tags?: readonly string[];
  summary?: string;
  description?: string;
  operationId?: string;
  deprecated?: boolean;
  /** Leave this route out of the OpenAPI document. */
  hidden?: boolean;
  /** status -> schema (or a fuller description). */
  responses?: Readonly<Record<number, JsonSchema | ResponseDoc>>;
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

export type Handler<E extends readonly AnyExtractor[]> = (...args: ExtractorArgs<E>) => unknown;

export class RouteDefinition {
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

function declare(method: string) {
  function define<const E extends readonly AnyExtractor[]>(path: string, extractors: E & CheckExtractors<E>, handler: Handler<E>): RouteDefinition;
  function define<const E extends readonly AnyExtractor[]>(path: string, meta: RouteMeta, extractors: E & CheckExtractors<E>, handler: Handler<E>): RouteDefinition;
  function define(path: string, a: unknown, b: unknown, c?: unknown): RouteDefinition {
    if (Array.isArray(a)) return new RouteDefinition(method, path, {}, a as AnyExtractor[], b as (...args: any[]) => unknown);
    return new RouteDefinition(method, path, (a ?? {}) as RouteMeta, b as AnyExtractor[], c as (...args: any[]) => unknown);
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
  /** Any other method token. */
  method: (method: string) => declare(method),
};

export interface GroupOptions {
  /** Path prefix for every route of the group (`/api/v1`). */
  prefix?: string;
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
export function group(options: GroupOptions, routes: readonly RouteDefinition[]): RouteDefinition[] {
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
  });
}
