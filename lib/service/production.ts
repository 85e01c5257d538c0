// production(): the production baseline in one call: request ids, per-request spans with W3C
// traceparent, JSON access logs through a buffered logger, and the /live, /ready, /health probes.
// Each part can be switched off or configured on its own.
//
//   const prod = production({ service: "billing", version: "1.4.2" });
//   prod.check("db", (signal) => db.ping({ signal }));
//   const app = new App();
//   prod.register(app);                       // first, so its layer is the outermost
//   app.routes(...);
//
// Ids, spans and the access line share one layer, so the whole baseline costs one layer.
import type { Writable } from "node:stream";
import type { App } from "../core/app.js";
import type { Logger, LogLevelName } from "../util/logger.js";
import type { Layer, RouteDefinition } from "../core/route.js";
import { compileRequestIdPolicy, requestId, type RequestIdOptions } from "../shared/request-id.js";
import { accessLog } from "./observability/access-log.js";
import { createBufferedLogger, isJsonLogger } from "./observability/json-logger.js";
import type { LogDestination } from "./observability/log-destination.js";
import type { SpanSink } from "./observability/span.js";
import { HealthChecks, type HealthCheck, type HealthCheckOptions } from "./probes/health-checks.js";
import { probeRoutes, type ProbePaths } from "./probes/probe-routes.js";

export interface ProductionSpanOptions {
  /** Let handlers open child spans with span(ctx, ...) / tracer() (default true). */
  childSpans?: boolean;
  /** Level of child-span lines (default info). */
  childSpanLevel?: LogLevelName | number;
  /** Receivers of finished spans (an OpenTelemetry exporter, tests). */
  onSpan?: SpanSink | readonly SpanSink[];
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

function enabled<T extends object>(v: boolean | T | undefined): T | null {
  if (v === false) return null;
  return v === undefined || v === true ? ({} as T) : v;
}

export class Production {
  readonly service: string;
  readonly version: string | undefined;
  readonly logger: Logger;
  readonly checks: HealthChecks;
  /** The layers to install, outermost first (at most one). */
  readonly layers: readonly Layer[];
  readonly routes: readonly RouteDefinition[];
  private readonly installLogger: boolean;
  private readonly registered = new WeakSet<App>();

  constructor(options: ProductionOptions) {
    if (typeof options.service !== "string" || options.service === "") throw new TypeError("production(): service must be a non-empty string");
    this.service = options.service;
    this.version = options.version;
    this.installLogger = options.installLogger ?? true;
    this.logger =
      options.logger ??
      createBufferedLogger({
        level: options.level ?? "info",
        ...(options.destination === undefined ? {} : { destination: options.destination }),
        base: options.version === undefined ? { service: options.service } : { service: options.service, version: options.version },
      });
    this.checks = new HealthChecks({
      logger: this.logger,
      ...(options.checkTimeoutMs === undefined ? {} : { timeoutMs: options.checkTimeoutMs }),
      ...(options.checkCacheMs === undefined ? {} : { cacheMs: options.checkCacheMs }),
    });
    for (const [name, fn] of Object.entries(options.checks ?? {})) this.checks.add(name, fn);

    const ids = enabled<RequestIdOptions>(options.requestId);
    const spans = enabled<ProductionSpanOptions>(options.spans);
    const log = enabled<ProductionAccessLogOptions>(options.accessLog);
    const layers: Layer[] = [];
    if (spans !== null || log !== null) {
      layers.push(
        accessLog({
          logger: this.logger,
          log: log !== null,
          requestId: ids ?? false,
          trace: spans !== null,
          ...(spans?.childSpans === undefined ? {} : { childSpans: spans.childSpans }),
          ...(spans?.childSpanLevel === undefined ? {} : { childSpanLevel: spans.childSpanLevel }),
          ...(spans?.onSpan === undefined ? {} : { onSpan: spans.onSpan }),
          ...(log?.level === undefined ? {} : { level: log.level }),
          ...(log?.headers === undefined ? {} : { headers: log.headers }),
          ...(log?.path === undefined ? {} : { path: log.path }),
        }),
      );
    } else if (ids !== null) {
      compileRequestIdPolicy(ids); // validate options now, as the other branch does
      layers.push(requestId(ids));
    }
    this.layers = layers;

    const probes = enabled<ProductionProbeOptions>(options.probes);
    this.routes =
      probes === null
        ? []
        : probeRoutes({
            service: options.service,
            checks: this.checks,
            ...(options.version === undefined ? {} : { version: options.version }),
            ...(probes.paths === undefined ? {} : { paths: probes.paths }),
            ...(probes.tag === undefined ? {} : { tag: probes.tag }),
            ...(probes.accessLog === undefined ? {} : { accessLog: probes.accessLog }),
          });
  }

  /** Add a readiness/health check (run concurrently with the others, with a timeout). */
  check(name: string, fn: HealthCheck, options?: HealthCheckOptions): this {
    this.checks.add(name, fn, options);
    return this;
  }

  /**
   * Install on an app: the layer (appended: register before other global layers so it is the
   * outermost), the probe routes, the logger (unless installLogger is false) and a shutdown
   * hook that flushes the log. Registering twice on the same app throws.
   */
  register(app: App): App {
    if (this.registered.has(app)) throw new Error("production(): already registered on this app");
    this.registered.add(app);
    if (this.installLogger) app.runtime.logger = this.logger;
    for (const layer of this.layers) app.layer(layer);
    if (this.routes.length > 0) app.routes(this.routes);
    app.onShutdown(() => this.flush());
    return app;
  }

  /** True once `register(app)` ran for this app. */
  isRegistered(app: App): boolean {
    return this.registered.has(app);
  }

  /** Wait until every queued log line is written (a no-op for other loggers). */
  flush(): Promise<void> {
    return isJsonLogger(this.logger) ? this.logger.flush() : Promise.resolve();
  }
}

/** The production baseline. See ProductionOptions for what can be switched off or configured. */
export function production(options: ProductionOptions): Production {
  return new Production(options);
}
