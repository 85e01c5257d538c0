// versions(): serve several versions of a route group, chosen by path prefix, header, query or
// an Accept media-type parameter. Path versions are plain prefixed routes. The other strategies
// register one dispatch route per method and path; each version's routes live in an App of their
// own (never listened on) whose chainFor() picks the version's route, layers and extractors, so
// the kernel carries nothing for versions and an app without them is unchanged.
import { App, ApiError, group, route, RouteDefinition, type Context, type Layer, type Reply } from "../index.js";
import { directLayer, errorReply, isPromise, normalizePattern } from "../plugin.js";
import { addDeprecation, appendHeader, deprecationHeaders, type DeprecationHeaders } from "./deprecation.js";
import { fromAccept, fromHeader, fromQuery, MISSING, type Requested } from "./select.js";
import type { VersionGroup } from "./version.js";

export type VersionStrategy = "path" | "header" | "query" | "accept";

export interface VersionsOptions {
  /** How a request names its version; the app picks one. */
  by: VersionStrategy;
  /**
   * The header (`by: "header"`, default "Api-Version"), query parameter (`by: "query"`, default
   * "version") or Accept media-type parameter (`by: "accept"`, default "version").
   */
  name?: string;
  /** `by: "path"`: the prefix of a version (default `v => "/v" + v`: `/v1/users`). */
  prefix?: (version: string) => string;
  /**
   * The version that answers a request naming none (for `by: "path"`: its routes are also
   * served without a prefix). Without it such a request is a 404 (406 for `by: "accept"`).
   */
  default?: string;
  /**
   * A request naming a version that does not exist: "reject" (default: 404, or 406 for
   * `by: "accept"`; a client asking for v9 learns it does not exist) or "default" (the default
   * version answers). Path versions always reject: `/v9/users` is a path no route has.
   */
  unknown?: "reject" | "default";
}

const DEFAULT_NAMES: Record<Exclude<VersionStrategy, "path">, string> = { header: "Api-Version", query: "version", accept: "version" };

/** What one version needs at request time, built at startup. */
interface Served {
  readonly version: string;
  /** The version's own routes, layers and extractors (an App that is never listened on). */
  readonly app: App;
  /** Adds Vary and the deprecation headers to the version's answer. */
  readonly finish: (reply: Reply) => Reply;
}

function deprecatedCopy(def: RouteDefinition): RouteDefinition {
  return new RouteDefinition(def.method, def.path, { ...def.meta, deprecated: true }, def.extractors, def.handler);
}

/**
 * Versions of an API as one plugin: `app.register(versions({ by: "header", default: "2" },
 * [version("1", v1Routes, { deprecated: { date, sunset } }), version("2", v2Routes)]))`.
 * `versionDocument(app, api, "1")` (this entry) is the OpenAPI document of one version.
 *
 * @see docs/features/versions.md
 */
export class ApiVersions {
  readonly by: VersionStrategy;
  /** The header, query or Accept parameter name (lower-cased header name for `by: "header"`). */
  readonly name: string;
  readonly defaultVersion: string | undefined;
  readonly groups: readonly VersionGroup[];
  private readonly prefix: (version: string) => string;
  private readonly unknownToDefault: boolean;
  private readonly deprecations = new Map<string, DeprecationHeaders>();
  private readonly served = new Map<string, Served>();
  private fallbackVersion: Served | undefined;
  private readonly read: (ctx: Context, name: string) => Requested;
  private readonly vary: string | null;
  private readonly missingError: ApiError;
  private readonly unknownError: ApiError;
  private registered = false;

  constructor(options: VersionsOptions, groups: readonly VersionGroup[]) {
    this.by = options.by;
    if (!["path", "header", "query", "accept"].includes(this.by)) throw new TypeError(`versions: by must be "path", "header", "query" or "accept", got ${JSON.stringify(this.by)}`);
    const name = this.by === "path" ? "" : (options.name ?? DEFAULT_NAMES[this.by]);
    this.name = this.by === "header" ? name.toLowerCase() : name;
    this.prefix = options.prefix ?? ((v) => `/v${v}`);
    this.defaultVersion = options.default;
    this.unknownToDefault = options.unknown === "default";
    if (groups.length === 0) throw new TypeError("versions: give at least one version(...)");
    const names = new Set<string>();
    for (const g of groups) {
      if (names.has(g.version)) throw new TypeError(`versions: version ${JSON.stringify(g.version)} is given twice`);
      names.add(g.version);
    }
    if (this.defaultVersion !== undefined && !names.has(this.defaultVersion)) throw new TypeError(`versions: the default ${JSON.stringify(this.defaultVersion)} is not one of ${[...names].join(", ")}`);
    this.groups = groups.map((g) => (g.deprecated === undefined ? g : { ...g, routes: g.routes.map(deprecatedCopy) }));
    for (const g of groups) if (g.deprecated !== undefined) this.deprecations.set(g.version, deprecationHeaders(g.version, g.deprecated));
    this.read = this.by === "header" ? fromHeader : this.by === "query" ? fromQuery : fromAccept;
    this.vary = this.by === "header" ? this.name : this.by === "accept" ? "accept" : null;
    const where = this.by === "header" ? `the ${name} header` : this.by === "query" ? `the ${name} query parameter` : `the ${name} parameter of Accept`;
    const choices = [...names].join(", ");
    this.missingError = this.by === "accept"
      ? new ApiError(406, "not_acceptable", `Not acceptable: name an API version in ${where} (one of ${choices})`)
      : ApiError.notFound(`Not found: name an API version in ${where} (one of ${choices})`);
    this.unknownError = this.by === "accept"
      ? new ApiError(406, "not_acceptable", `Not acceptable: unknown API version in ${where} (one of ${choices})`)
      : ApiError.notFound(`Not found: unknown API version in ${where} (one of ${choices})`);
  }

  /** The deprecation headers of `version` (null when it is not deprecated). */
  deprecation(version: string): DeprecationHeaders | null {
    return this.deprecations.get(version) ?? null;
  }

  /** The prefix of `version` (`by: "path"`). */
  prefixOf(version: string): string {
    return this.prefix(version);
  }

  /** Install the versions' routes on `app` (`app.register(api)`); once per ApiVersions. */
  register(app: App): void {
    if (this.registered) throw new Error("versions: this ApiVersions is already registered on an app");
    this.registered = true;
    if (this.by === "path") this.registerPaths(app);
    else this.registerDispatch(app);
  }

  private finisher(version: string): (reply: Reply) => Reply {
    const dep = this.deprecations.get(version);
    const vary = this.vary;
    if (dep === undefined) return vary === null ? (r) => r : (r) => (appendHeader(r, "vary", vary), r);
    return vary === null ? (r) => addDeprecation(r, dep) : (r) => (appendHeader(r, "vary", vary), addDeprecation(r, dep));
  }

  private registerPaths(app: App): void {
    for (const g of this.groups) {
      const finish = this.finisher(g.version);
      const layers: Layer[] = this.deprecations.has(g.version)
        ? [directLayer(function deprecated(ctx, next) {
            const r = next(ctx);
            return isPromise(r) ? r.then(finish) : finish(r);
          })]
        : [];
      app.routes(group({ prefix: this.prefix(g.version), layers }, g.routes));
      // The default version also answers without a prefix: `/users` is `/v2/users`. Hidden, so
      // the document lists each operation once, under its version's prefix.
      if (g.version === this.defaultVersion) {
        app.routes(group({ layers }, g.routes).map((d) => new RouteDefinition(d.method, d.path, { ...d.meta, hidden: true }, d.extractors, d.handler)));
      }
    }
  }

  private registerDispatch(app: App): void {
    const rt = app.runtime;
    const dispatchers = new Map<string, RouteDefinition>();
    for (const g of this.groups) {
      const own = new App({ bodyLimit: rt.bodyLimit, jsonDepth: rt.jsonDepth, jsonElements: rt.jsonElements, maxParamLength: rt.maxParamLength, responseValidation: rt.responseValidation, logger: rt.logger, env: rt.production ? "production" : "development" });
      for (const def of g.routes) {
        if (def.meta.websocket !== undefined) throw new TypeError(`versions: ${def.method} ${def.path} is a WebSocket route; by: "${this.by}" versions only HTTP routes (use by: "path")`);
        own.route(def);
        const key = `${def.method} ${normalizePattern(def.path).pattern}`;
        if (!dispatchers.has(key)) dispatchers.set(key, this.dispatchRoute(def));
      }
      own.compile();
      const served: Served = { version: g.version, app: own, finish: this.finisher(g.version) };
      this.served.set(g.version, served);
      if (g.version === this.defaultVersion) this.fallbackVersion = served;
    }
    app.routes([...dispatchers.values()]);
  }

  /** The one route of a method and path that every version's route of that path shares. */
  private dispatchRoute(def: RouteDefinition): RouteDefinition {
    const dispatch = directLayer((ctx) => this.dispatch(ctx));
    return route.method(def.method)(def.path, { hidden: true, layers: [dispatch], config: { apiVersions: this.by } }, [], () => {
      throw new Error("keel/versions: the dispatch layer answers");
    });
  }

  private dispatch(ctx: Context): Reply | Promise<Reply> {
    const asked = this.read(ctx, this.name);
    let served: Served | undefined;
    if (typeof asked === "string") served = this.served.get(asked) ?? (this.unknownToDefault ? this.fallbackVersion : undefined);
    else if (asked === MISSING) served = this.fallbackVersion;
    else if (this.unknownToDefault) served = this.fallbackVersion;
    if (served === undefined) {
      const refused = errorReply(ctx, asked === MISSING ? this.missingError : this.unknownError);
      if (this.vary !== null) appendHeader(refused, "vary", this.vary);
      return refused;
    }
    // The version's App routes the same method and path: its route's layers, extractors and handler.
    const r = served.app.chainFor(ctx)(ctx);
    return isPromise(r) ? r.then(served.finish) : served.finish(r);
  }
}

/** Serve `groups` (made by `version(...)`) by one strategy: `app.register(versions(options, groups))`. */
export function versions(options: VersionsOptions, groups: readonly VersionGroup[]): ApiVersions {
  return new ApiVersions(options, groups);
}
