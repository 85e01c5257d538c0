// production(): the production baseline in one call: request ids, per-request spans with W3C
// traceparent, JSON access logs through a buffered logger, and the /live, /ready, /health probes.
// Each part can be switched off or configured on its own.
//
//   const prod = production({ service: "billing", version: "1.4.2" });
//   prod.check("db", (signal) => db.ping({ signal }));
//   const app = new App();
//   app.register(prod);                       // first, so its layer is the outermost
//   app.routes(...);
//
// production() builds the parts in order (logger, checks, layer, probe routes) and returns them
// with register(). Ids, spans and the access line share one layer: the baseline costs one layer.
import type { Writable } from "node:stream";
import type { App, Context, Layer, Logger, LogLevelName, RouteDefinition } from "../index.js";
import { defined, isJsonLogger } from "../plugin.js";
import { requestId, type RequestIdOptions } from "../shared/request-id.js";
import { accessLog, type TraceSampler } from "./observability/access-log.js";
import { createBufferedLogger } from "./observability/json-logger.js";
import { warnUnparsedMethods } from "./unparsed-methods.js";
import type { LogDestination } from "./observability/log-destination.js";
import type { SpanSink } from "./observability/span.js";
import { HealthChecks, type HealthCheck, type HealthCheckOptions } from "./probes/health-checks.js";
import { probeRoutes, type ProbePaths } from "./probes/probe-routes.js";
import { checkProbeToken } from "./probes/probe-access.js";

export interface ProductionSpanOptions {
  /** Let handlers open child spans with span(ctx, ...) / tracer() (default true). */
  childSpans?: boolean;
  /** Level of child-span lines (default info). */
  childSpanLevel?: LogLevelName | number;
  /**
   * Send the traceparent back on every response (default false: W3C Trace Context Level 1
   * defines no response header and OpenTelemetry's HTTP instrumentation sends none). Spans, log
   * lines and outgoing calls carry the trace ids either way.
   */
  responseTraceparent?: boolean;
  /** Receivers of finished spans (an OpenTelemetry exporter, tests). */
  onSpan?: SpanSink | readonly SpanSink[];
  /**
   * Decides per trace whether it is sampled (keel/otel has the OpenTelemetry samplers). The
   * decision sets the sampled flag of the traceparent sent back and of every span record, and
   * unsampled spans never reach `onSpan`. Without a sampler the incoming flags are kept (a new
   * trace is sampled) and every span reaches `onSpan`, as before.
   */
  sampler?: TraceSampler | undefined;
}


export interface ProductionAccessLogOptions {
  /** Level of the per-request line (default info). */
  level?: LogLevelName | number;
  /** Log request headers (secrets redacted): true, or a list of names (default false). */
  headers?: boolean | readonly string[];
  /** Add the raw path as `path` (default false). */
  path?: boolean;
}

export interface ProductionProbeOptions {
  paths?: ProbePaths;
  /** OpenAPI tag (default "health"). */
  tag?: string;
  /** Access-log level of probe requests, or false for none (default "debug"). */
  accessLog?: string | number | false;
  /** Bearer token (16+ characters) that shows why checks fail in /ready and /health; without it: name, status, a generic reason. Or set it later: probeAdminToken(). */
  adminToken?: string;
  /** Or: who else sees why checks fail (e.g. `() => true` on a private network). */
  showDetails?: (ctx: Context) => boolean;
}

export interface ProductionOptions {
  /** Service name: on every log line and in the /health body. */
  service: string;
  version?: string;
  /**
   * The logger for access, span and error lines. Default: a buffered JSON logger on stdout with
   * `service` and `version` on every line (see `level`, `destination`).
   */
  logger?: Logger;
  /** Threshold of the default logger (default "info"). */
  level?: LogLevelName | "silent" | number;
  /** Sink of the default logger: a LogDestination, a file descriptor or a Writable (default stdout). */
  destination?: LogDestination | number | Writable;
  /** Make the logger the app's logger too, so error lines carry the same fields (default true). */
  installLogger?: boolean;
  /** x-request-id handling, or false (default on, incoming ids trusted when well-formed). */
  requestId?: boolean | RequestIdOptions;
  /** Per-request spans and traceparent, or false (default on). */
  spans?: boolean | ProductionSpanOptions;
  /** One JSON line per request, or false (default on). */
  accessLog?: boolean | ProductionAccessLogOptions;
  /** The three probes, or false (default on). */
  probes?: boolean | ProductionProbeOptions;
  /** Readiness/health checks by name (more can be added with `check()`). */
  checks?: Readonly<Record<string, HealthCheck>>;
  /** Default per-check timeout, ms (default 2000). */
  checkTimeoutMs?: number;
  /** How long check results are reused, ms (default 1000). */
  checkCacheMs?: number;
}

/** The part's options when switched on (true or an object), null when switched off. */
function enabled<T extends object>(v: boolean | T | undefined): T | null {
  if (v === false) return null;
  return v === undefined || v === true ? ({} as T) : v;
}

/** What production() built, and how to install it on an app. */
export interface Production {
  readonly service: string;
  readonly version: string | undefined;
  readonly logger: Logger;
  readonly checks: HealthChecks;
  /** The layers to install, outermost first (at most one: the access-log layer, or the request-id layer). */
  readonly layers: readonly Layer[];
  readonly routes: readonly RouteDefinition[];
  /** Add a readiness/health check (run concurrently with the others, with a timeout). */
  check(name: string, fn: HealthCheck, options?: HealthCheckOptions): Production;
  /** The bearer token that shows why checks fail in the probes (as probes.adminToken; for an app given a ready-made baseline). */
  probeAdminToken(token: string): Production;
  /**
   * Install on an app: the layer (appended: register before other global layers so it is the
   * outermost), the probe routes, the logger (unless installLogger is false) and a shutdown
   * hook that flushes the log. Registering twice on the same app throws.
   */
  register(app: App): App;
  /** True once `register(app)` ran for this app. */
  isRegistered(app: App): boolean;
  /** Wait until every queued log line is written (a no-op for loggers without a buffer). */
  flush(): Promise<void>;
}

/**
 * The production baseline: request ids, per-request spans with W3C traceparent, JSON access
 * logs, and the /live, /ready, /health probes. See ProductionOptions for what can be switched
 * off or configured.
 *
 * @example
 * const prod = production({ service: "billing", version: "1.4.2" });
 * prod.check("db", (signal) => db.ping({ signal }));
 * app.register(prod); // first, so its layer is the outermost
 *
 * @see docs/features/service.md
 */
export function production(options: ProductionOptions): Production {
  const { service, version } = options;
  if (typeof service !== "string" || service === "") throw new TypeError("production(): service must be a non-empty string");

  // 1. The logger every part writes through.
  const logger =
    options.logger ??
    createBufferedLogger({
      level: options.level ?? "info",
      base: version === undefined ? { service } : { service, version },
      ...defined({ destination: options.destination }),
    });

  // 2. The readiness/health checks behind the probes.
  const checks = new HealthChecks({ logger, ...defined({ timeoutMs: options.checkTimeoutMs, cacheMs: options.checkCacheMs }) });
  for (const [name, fn] of Object.entries(options.checks ?? {})) checks.add(name, fn);

  // 3. The layer: ids, spans and the access line in one access-log layer, or the ids alone.
  const ids = enabled<RequestIdOptions>(options.requestId);
  const spans = enabled<ProductionSpanOptions>(options.spans);
  const access = enabled<ProductionAccessLogOptions>(options.accessLog);
  const layers: Layer[] = [];
  if (spans !== null || access !== null) {
    if (spans !== null && (spans.sampler !== undefined || spans.onSpan !== undefined) && spans.childSpans === false) {
      throw new TypeError("production(): spans.sampler and spans.onSpan need the request span on the context (childSpans must not be false)");
    }
    layers.push(
      accessLog({
        logger,
        log: access !== null,
        requestId: ids ?? false,
        trace: spans !== null,
        ...defined({ childSpans: spans?.childSpans, childSpanLevel: spans?.childSpanLevel, responseTraceparent: spans?.responseTraceparent, onSpan: spans?.onSpan, sampler: spans?.sampler }),
        ...defined({ level: access?.level, headers: access?.headers, path: access?.path }),
      }),
    );
  } else if (ids !== null) {
    layers.push(requestId(ids));
  }

  // 4. The probe routes.
  const probes = enabled<ProductionProbeOptions>(options.probes);
  let probeToken = probes?.adminToken === undefined ? undefined : checkProbeToken(probes.adminToken, "production()");
  const routes =
    probes === null
      ? []
      : probeRoutes({ service, checks, adminToken: () => probeToken, ...defined({ version, paths: probes.paths, tag: probes.tag, accessLog: probes.accessLog, showDetails: probes.showDetails }) });

  // 5. Installing it all on an app.
  const installLogger = options.installLogger ?? true;
  const registered = new WeakSet<App>();
  const prod: Production = {
    service,
    version,
    logger,
    checks,
    layers,
    routes,
    check(name, fn, checkOptions) {
      checks.add(name, fn, checkOptions);
      return prod;
    },
    probeAdminToken(token) {
      probeToken = checkProbeToken(token, "production().probeAdminToken");
      return prod;
    },
    register(app) {
      if (registered.has(app)) throw new Error("production(): already registered on this app");
      registered.add(app);
      if (installLogger) app.runtime.logger = logger;
      for (const layer of layers) app.layer(layer);
      if (routes.length > 0) app.routes(routes);
      app.onShutdown(() => prod.flush());
      app.onListen((started) => warnUnparsedMethods(started.routeTable(), started.runtime.logger));
      return app;
    },
    isRegistered: (app) => registered.has(app),
    flush: () => (isJsonLogger(logger) ? logger.flush() : Promise.resolve()),
  };
  return prod;
}
