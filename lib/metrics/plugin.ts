// The metrics() plugin: the HTTP layer on every route, the process collector, and a GET route
// that answers a scrape in the format its Accept header asks for. The route is hidden from the
// OpenAPI document; protect it with `layers` (an auth layer, an IP allow-list) when the port is
// public, since metrics reveal routes, traffic and memory figures.
import { type App, context, type Layer, Reply, route } from "../index.js";
import { contentTypeOf } from "./exposition.js";
import { httpMetrics, type HttpMetricsOptions } from "./http-metrics.js";
import { negotiateFormat } from "./negotiate.js";
import { processMetrics } from "./process-metrics.js";
import { defaultMetricsRegistry, type MetricsRegistry } from "./registry.js";
import { defined } from "../plugin.js";

export interface MetricsPluginOptions {
  /** Where the scrape route answers (default "/metrics"). */
  path?: string;
  /** Default: the process-wide registry (defaultMetricsRegistry()). */
  registry?: MetricsRegistry;
  /** Add the process collector (default true); it is detached when the app shuts down. */
  process?: boolean;
  /** Add the HTTP layer as a global layer (default true). */
  http?: boolean | HttpMetricsOptions;
  /** Layers for the scrape route only (authentication, an allow-list). */
  layers?: readonly Layer[];
}

/**
 * `app.register(metrics())`: GET /metrics in the Prometheus or OpenMetrics format, the HTTP
 * layer and the process collector. Register it before other global layers: the HTTP layer is
 * added where the plugin runs, and only layers inside it are timed.
 *
 * @example
 * const signups = defaultMetricsRegistry().counter({ name: "app_signups_total", help: "Accounts created" });
 * app.register(metrics({ layers: [adminOnly] }));
 * signups.inc();
 *
 * @see docs/features/metrics.md
 */
export function metrics(options: MetricsPluginOptions = {}): (app: App) => void {
  const registry = options.registry ?? defaultMetricsRegistry();
  const path = options.path ?? "/metrics";
  return (app) => {
    if (options.http !== false) app.layer(httpMetrics(registry, options.http === true || options.http === undefined ? {} : options.http));
    if (options.process !== false) app.onShutdown(registry.addCollector(processMetrics()));
    app.route(
      route.get(path, { hidden: true, summary: "Prometheus metrics", ...defined({ layers: options.layers }) }, [context()], async (ctx) => {
        const format = negotiateFormat(ctx.header("accept"));
        const body = await registry.expose(format);
        return new Reply(200, body, { "content-type": contentTypeOf(format), vary: "accept", "cache-control": "no-store" });
      }),
    );
  };
}
