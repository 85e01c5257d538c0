// The App: route table, global layers, shared state, and the node:http entry point.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { BadPathError, DEFAULT_MAX_PARAM_LENGTH, normalizePattern, Router } from "../router/index.js";
import { isProductionEnv } from "../util/env.js";
import { isPromise } from "../util/is-promise.js";
import { DEFAULT_BODY_LIMIT } from "./body.js";
import { composeLayers, handlerStep, type Chain } from "./chain.js";
import { Context } from "./context.js";
import { errorReply } from "./error-reply.js";
import { ApiError, type ErrorMapper } from "./errors.js";
import { endBodyOnDrain } from "./end-on-drain.js";
import { injectRequest, type InjectOptions, type InjectResponse } from "./inject.js";
import { listenApp, type ListenOptions, type ListeningServer } from "../server/listen.js";
import { DEFAULT_JSON_DEPTH, DEFAULT_JSON_ELEMENTS } from "./json-body.js";
import { createJsonLogger, type Logger } from "../util/logger.js";
import { Reply } from "./reply.js";
import { ResponseContract } from "./response-contract.js";
import { ASTERISK_OPTIONS, readTarget } from "../server/read-target.js";
import type { Layer, RouteDefinition } from "./route.js";
import type { AppRuntime, AsyncValidationAdapters, ResponseValidation } from "./runtime.js";
import { writeReply } from "../server/write.js";
import { admitPipelined } from "../server/pipeline-guard.js";
import { DEFAULT_SERVER_LIMITS } from "../server/server-limits.js";
import type { UpgradeProtocol } from "./upgrade-protocol.js";
import { defined } from "../util/defined.js";
import { requestChannel, routeChannel, traced, tracedReply, traceRequest } from "./tracing.js";

export interface AppOptions {
  /** Request body limit in bytes (default 1 MiB); routes can override it. */
  bodyLimit?: number;
  /** Maximum JSON nesting depth (default 64). */
  jsonDepth?: number;
  /** Maximum number of values in one JSON body (default 50 000; see json-body.ts for the cost). */
  jsonElements?: number;
  /** Maximum length of one path parameter (default 100). */
  maxParamLength?: number;
  /** Shared application state, read by the `state(key)` extractor. */
  state?: Record<string, unknown>;
  /** "production" masks 5xx messages. Default: process.env.KEEL_ENV. */
  env?: string;
  logger?: Logger;
  /** Adapters for async validation rules (asyncUnique, customAsync). */
  validation?: AsyncValidationAdapters;
  /** Timeout of each async validation rule, ms (default 2000). */
  asyncRuleTimeout?: number;
  /**
   * How declared response schemas check what a handler returns (its JSON is always written by
   * the schema's compiled serializer, so unlisted properties are never sent). "shape" (default):
   * types, required properties, enum and const. "full": the validator runs too (formats,
   * lengths, patterns, ranges), which costs about as much as validating a request body.
   */
  responseValidation?: ResponseValidation;
}

/**
 * What `app.register` installs: a function of the app (keel/openapi's `docs()`, keel/ws's
 * `websockets()`...), or an object with a `register(app)` method (keel/service's `production()`).
 */
export type Plugin = ((app: App) => void) | { register(app: App): unknown };

/** What the router stores per route; the chain is filled in when the app compiles. */
interface RouteEntry {
  readonly def: RouteDefinition;
  chain: Chain;
  bodyLimit: number;
  /** The declared response schemas, compiled at registration (null: none declared). */
  readonly contract: ResponseContract | null;
}

const UNCOMPILED: Chain = () => {
  throw new Error("keel: route chain used before the app compiled");
};

/**
 * A path extractor must name a parameter of its route's path: `path("id")` on `/users/{userId}`
 * would otherwise answer every request with a 400, a server bug that looks like a client error.
 */
function checkPathExtractors(def: RouteDefinition, paramNames: readonly string[]): void {
  for (const e of def.extractors) {
    // A schema that is neither JSON Schema nor Standard Schema (the extractor says why).
    if (e.doc.refused) throw new TypeError(`${def.method} ${def.path}: ${e.doc.refused}`);
    for (const p of e.doc.parameters ?? []) {
      if (p.in !== "path" || paramNames.includes(p.name)) continue;
      const has = paramNames.length === 0 ? "no parameters" : `only ${paramNames.map((n) => `{${n}}`).join(", ")}`;
      throw new TypeError(`${def.method} ${def.path}: extractor path(${JSON.stringify(p.name)}) names a parameter the path does not have (it has ${has})`);
    }
  }
}

/** The last step of a WebSocket route in an app without the protocol (listen refuses such an app first). */
const NO_UPGRADE_PROTOCOL: Chain = () => {
  throw ApiError.internal("WebSocket routes need the keel/ws feature", { detail: "app.register(websockets()) was not called" });
};

/** One immutable 404 error for every unrouted request. */
const NOT_FOUND = ApiError.notFound("Not found");

/**
 * An app: its routes, layers and plugins, served by `listen` or driven by `inject`.
 *
 * @example
 * const app = new App().routes(route.get("/hello", [], () => ({ hello: "world" })));
 * const res = await app.inject({ url: "/hello" });      // a test, no socket
 * const server = await app.listen({ port: 3000 });     // or serve it
 *
 * @see docs/features/keel.md
 */
export class App {
  private readonly router: Router<RouteEntry>;
  private readonly entries: RouteEntry[] = [];
  private readonly globalLayers: Layer[] = [];
  private readonly shutdownHooks: Array<() => unknown> = [];
  private readonly startHooks: Array<(app: App) => void> = [];
  private fallback: Chain = UNCOMPILED;
  private compiled = false;
  private upgrades: UpgradeProtocol | null = null;
  readonly runtime: AppRuntime;
  /** `(req, res) => void` for `http.createServer(app.handler)`. */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;

  constructor(options: AppOptions = {}) {
    this.router = new Router<RouteEntry>(defined({ maxParamLength: options.maxParamLength }));
    this.runtime = {
      bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
      jsonDepth: options.jsonDepth ?? DEFAULT_JSON_DEPTH,
      jsonElements: options.jsonElements ?? DEFAULT_JSON_ELEMENTS,
      production: isProductionEnv(options.env ?? process.env["KEEL_ENV"]),
      logger: options.logger ?? createJsonLogger({ level: "warn" }),
      state: options.state ?? Object.create(null),
      validation: options.validation ?? {},
      asyncRuleTimeout: options.asyncRuleTimeout ?? 2000,
      responseValidation: options.responseValidation ?? "shape",
      maxParamLength: options.maxParamLength ?? DEFAULT_MAX_PARAM_LENGTH,
      draining: false,
      liveStreams: new Set(),
      errorMappers: [],
      limits: DEFAULT_SERVER_LIMITS,
      localize: null,
    };
    this.handler = (req, res) => this.handle(req, res);
  }

  /** Register one route. Conflicts and malformed paths throw here, at startup. */
  route(def: RouteDefinition): this {
    const normalized = normalizePattern(def.path);
    checkPathExtractors(def, normalized.paramNames);
    const where = `${def.method} ${normalized.pattern}`;
    const contract = ResponseContract.for(where, def.meta.responses, this.runtime.responseValidation);
    const entry: RouteEntry = { def, chain: UNCOMPILED, bodyLimit: def.meta.bodyLimit ?? this.runtime.bodyLimit, contract };
    this.router.add(def.method, def.path, entry);
    def.pattern = normalized.pattern;
    this.entries.push(entry);
    if (routeChannel.hasSubscribers) routeChannel.publish({ app: this, route: def, method: def.method, pattern: def.pattern });
    this.compiled = false;
    return this;
  }

  /** Register several routes (arrays are flattened). */
  routes(...defs: Array<RouteDefinition | readonly RouteDefinition[]>): this {
    for (const d of defs) {
      if (Array.isArray(d)) for (const x of d as readonly RouteDefinition[]) this.route(x);
      else this.route(d as RouteDefinition);
    }
    return this;
  }

  /** Add a global layer; the first added is the outermost. */
  layer(layer: Layer): this {
    this.globalLayers.push(layer);
    this.compiled = false;
    return this;
  }

  /** Set a value in the shared state. */
  setState(key: string, value: unknown): this {
    this.runtime.state[key] = value;
    return this;
  }

  /**
   * Map errors of a library this app uses (a database driver: keel/db-errors' mapDatabaseError)
   * to the uniform error: tried in order for any thrown value that is neither an ApiError nor
   * an error that knows its own answer (keel/plugin's asApiError). Adding the same function
   * again is a no-op.
   */
  mapErrors(mapper: ErrorMapper): this {
    if (!this.runtime.errorMappers.includes(mapper)) this.runtime.errorMappers.push(mapper);
    return this;
  }

  /** Run `fn` after the server drained on shutdown (before `listen`'s `closed` resolves). */
  onShutdown(fn: () => unknown): this {
    this.shutdownHooks.push(fn);
    return this;
  }

  /**
   * Apply a plugin: a function that registers routes, layers and hooks on this app (how feature
   * entry points such as `keel/openapi`'s `docs()` attach themselves). Returns the app.
   */
  register(plugin: Plugin): this {
    if (typeof plugin === "function") plugin(this);
    else plugin.register(this);
    return this;
  }

  /**
   * Provide the protocol of upgrade routes (`route.ws`): keel/plugin's `useWebSockets(app,
   * acceptor)`, which `keel/ws`'s `websockets()` plugin calls, builds it (lib/server/upgrade.ts).
   * Without it, listening fails when the app has a WebSocket route.
   */
  useUpgrades(protocol: UpgradeProtocol): this {
    this.upgrades = protocol;
    this.compiled = false;
    return this;
  }

  /** Whether any route answers WebSocket upgrades (listen then takes the server's 'upgrade' event). */
  get hasWebSocketRoutes(): boolean {
    return this.entries.some((e) => e.def.meta.websocket !== undefined);
  }

  /** The server's 'upgrade' listener: null unless the app has upgrade routes and their protocol. */
  get upgradeListener(): ((req: IncomingMessage, socket: Duplex, head: Buffer) => void) | null {
    return this.upgrades !== null && this.hasWebSocketRoutes ? this.upgrades.listener : null;
  }

  /**
   * Run `fn` when `listen()` starts, after the chains are composed and before the port is bound;
   * a throw fails `listen()` (startup checks such as the OpenAPI document's integrity).
   */
  onListen(fn: (app: App) => void): this {
    this.startHooks.push(fn);
    return this;
  }

  /** The global layers, outermost first (the OpenAPI document reads what each one declares). */
  layerTable(): readonly Layer[] {
    return this.globalLayers.slice();
  }

  /** Every registered route, in registration order. */
  routeTable(): readonly RouteDefinition[] {
    return this.entries.map((e) => e.def);
  }

  /** Compose every route's chain. Runs on the first request if not called; cheap to call again. */
  compile(): this {
    if (this.compiled) return this;
    for (const entry of this.entries) {
      const def = entry.def;
      const last = def.meta.websocket === undefined ? handlerStep(def.extractors, def.handler, entry.contract) : (this.upgrades?.step(def) ?? NO_UPGRADE_PROTOCOL);
      const inner = composeLayers(def.meta.layers ?? [], last);
      entry.chain = composeLayers(this.globalLayers, inner);
    }
    this.fallback = composeLayers(this.globalLayers, (ctx) => this.answerUnrouted(ctx));
    this.compiled = true;
    return this;
  }

  /** 404, 405 with Allow, automatic OPTIONS, or the routing error (bad encoding, long parameter). */
  private answerUnrouted(ctx: Context): Reply {
    if (ctx.routingError !== undefined) {
      const e = ctx.routingError;
      // `OPTIONS *` asks about the server as a whole: nothing to add beyond "it answers".
      if (e === ASTERISK_OPTIONS) return new Reply(204, null, {});
      if (e instanceof BadPathError) {
        throw ApiError.badRequest(
          e.reason === "bad_encoding"
            ? `Invalid percent-encoding in path parameter ${e.param}`
            : `Path parameter ${e.param} is too long`,
        );
      }
      throw e;
    }
    const allowed = this.router.allowedMethods(ctx.path);
    // The common miss: answer without a throw (cheaper under a 404 flood); the error is shared.
    if (allowed.length === 0) return errorReply(ctx, NOT_FOUND);
    if (allowed.includes("GET") && !allowed.includes("HEAD")) allowed.push("HEAD");
    if (!allowed.includes("OPTIONS")) allowed.push("OPTIONS");
    allowed.sort();
    const allow = allowed.join(", ");
    if (ctx.method === "OPTIONS") return new Reply(204, null, { allow });
    throw new ApiError(405, "method_not_allowed", "Method not allowed", { headers: { allow } });
  }

  /**
   * Route `ctx`: the chain (layers, extractors, handler) that answers it, `chainFor(ctx)(ctx)` the
   * reply. Routing errors are recorded for the fallback chain. The app must be compiled
   * (`compile()`, which listen and inject call).
   */
  chainFor(ctx: Context): Chain {
    if (ctx.routingError !== undefined) return this.fallback;
    try {
      let m = this.router.find(ctx.method, ctx.path);
      if (m === null && ctx.method === "HEAD") m = this.router.find("GET", ctx.path);
      if (m === null) return this.fallback;
      ctx.params = m.params;
      ctx.route = m.value.def;
      ctx.bodyLimit = m.value.bodyLimit;
      return m.value.chain;
    } catch (err) {
      ctx.routingError = err;
      return this.fallback;
    }
  }

  /**
   * The front door, shared by every way a request comes in (node:http's request and upgrade
   * events, HTTP/2 streams, inject, a feature's own transport): the context for a raw request,
   * with readTarget()'s verdict recorded. A request that may not be routed (an invalid target,
   * version or Host) gets the fallback chain, which answers it with the uniform 400.
   */
  contextFor(req: IncomingMessage, res: ServerResponse | null): Context {
    const target = readTarget(req);
    if (typeof target === "string") {
      const q = target.indexOf("?");
      return q === -1
        ? new Context(this.runtime, req, res, target, "")
        : new Context(this.runtime, req, res, target.slice(0, q), target.slice(q + 1));
    }
    const ctx = new Context(this.runtime, req, res, target === ASTERISK_OPTIONS ? "*" : "/", "");
    ctx.routingError = target;
    return ctx;
  }



  /** The node:http request listener. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    if (!this.compiled) this.compile();
    // No socket yet: the response waits behind an unanswered one (pipelining), which is bounded.
    if (res.socket === null && !admitPipelined(req, res, this.runtime.limits.maxPipelinedRequests, this.runtime.logger)) return;
    const ctx = this.contextFor(req, res);
    const chain = this.chainFor(ctx);
    if (traced(requestChannel)) return traceRequest(ctx, chain, writeReply);
    const r = chain(ctx);
    if (isPromise(r)) r.then((reply) => writeReply(ctx, reply));
    else writeReply(ctx, r);
  }

  /** Run one request through the whole pipeline without a socket (tests, tools). */
  inject(options: InjectOptions): Promise<InjectResponse> {
    if (!this.compiled) this.compile();
    return injectRequest(options, (req) => {
      const ctx = this.contextFor(req, null);
      const chain = this.chainFor(ctx);
      if (traced(requestChannel)) return { ctx, reply: tracedReply(ctx, chain) };
      const r = chain(ctx);
      return { ctx, reply: isPromise(r) ? r : Promise.resolve(r) };
    });
  }

  /** Listen on `port`/`host`; when `signal` aborts (or `shutdown` settles) drain and close. */
  listen(options: ListenOptions = {}): Promise<ListeningServer> {
    try {
      this.compile();
      if (this.upgrades === null && this.hasWebSocketRoutes) {
        const ws = this.entries.find((e) => e.def.meta.websocket !== undefined)!.def;
        throw new TypeError(`keel: ${ws.pattern} is a WebSocket route: register the protocol with app.register(websockets()) from keel/ws`);
      }
      for (const fn of this.startHooks) fn(this);
    } catch (err) {
      return Promise.reject(err);
    }
    return listenApp(this, options);
  }

  /**
   * Internal: when the listener stops accepting, long-lived answers end so their clients go
   * elsewhere: stream bodies that asked for it (`endOnDrain`, event streams) end after what was
   * sent, WebSocket connections close with 1001.
   */
  closeLongLived(timeoutMs: number): Promise<void> {
    const streams = this.runtime.liveStreams;
    this.runtime.liveStreams = null;
    if (streams !== null) for (const s of streams) endBodyOnDrain(s, this.runtime.logger);
    return this.upgrades === null ? Promise.resolve() : this.upgrades.closeAll(timeoutMs);
  }

  /** Internal: run the shutdown hooks (used by listen's drain). */
  async runShutdownHooks(): Promise<void> {
    for (const fn of this.shutdownHooks) {
      try {
        await fn();
      } catch (err) {
        this.runtime.logger.log(50, "shutdown hook failed", { message: (err as Error)?.message ?? String(err) });
      }
    }
  }
}

