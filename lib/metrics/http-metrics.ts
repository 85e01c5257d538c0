// The HTTP server layer: OpenTelemetry's HTTP server metrics under Prometheus names.
// - http_server_request_duration_seconds: from the layer's entry to the reply it returns (the
//   time spent writing the body to the socket is not in it), measured with performance.now().
// - http_server_active_requests: requests inside the layer now, by method.
// - http_server_request_body_size_bytes / http_server_response_body_size_bytes: see body-size.ts;
//   a size that cannot be known without reading a stream is not observed.
// Labels: http_request_method (unknown methods are `_OTHER`), http_route (the matched route's
// pattern, never the raw path: every unmatched request, 404 or 405, has the empty route) and
// http_response_status_code. The three series of a (route, method, status) are looked up once
// and kept in a per-route table under a numeric key; a request allocates no closure or array.
import { performance } from "node:perf_hooks";
import type { Context, Layer, MatchedRoute, Reply } from "../index.js";
import { type Chain, directLayer, isPromise, settledReply } from "../plugin.js";
import { responseBodySize, requestBodySize } from "./body-size.js";
import { DEFAULT_SECONDS_BUCKETS, type Histogram } from "./histogram.js";
import type { Gauge } from "./gauge.js";
import { HTTP_METHODS, methodIndex } from "./http-methods.js";
import { defaultMetricsRegistry, type MetricsRegistry } from "./registry.js";
import type { GaugeSeries, HistogramSeries } from "./series.js";

/** Body-size buckets in bytes: powers of 4 from 128 B to 8 MiB. */
export const DEFAULT_BODY_SIZE_BUCKETS: readonly number[] = Object.freeze([128, 512, 2048, 8192, 32768, 131072, 524288, 2097152, 8388608]);

export interface HttpMetricsOptions {
  /** Duration buckets in seconds (default: OpenTelemetry's, 5 ms to 10 s). */
  durationBuckets?: readonly number[];
  /** Body-size buckets in bytes (default DEFAULT_BODY_SIZE_BUCKETS). */
  sizeBuckets?: readonly number[];
}

const LABELS = ["http_request_method", "http_route", "http_response_status_code"];

/** The series one (route, method, status) records into. */
interface HttpSeries {
  readonly duration: HistogramSeries;
  readonly requestSize: HistogramSeries;
  readonly responseSize: HistogramSeries;
}

class HttpInstruments {
  readonly duration: Histogram;
  readonly requestSize: Histogram;
  readonly responseSize: Histogram;
  readonly active: Gauge;
  /** Active-request series by method index, looked up on first use. */
  private readonly activeByMethod: Array<GaugeSeries | null> = HTTP_METHODS.map(() => null);
  /** Per matched route (the null key: unmatched requests), series by `status * 16 + method`. */
  private readonly byRoute = new Map<MatchedRoute | null, Map<number, HttpSeries>>();

  constructor(registry: MetricsRegistry, options: HttpMetricsOptions) {
    const sizeBuckets = options.sizeBuckets ?? DEFAULT_BODY_SIZE_BUCKETS;
    this.duration = registry.histogram({
      name: "http_server_request_duration_seconds",
      help: "Duration of HTTP server requests.",
      unit: "seconds",
      labelNames: LABELS,
      buckets: options.durationBuckets ?? DEFAULT_SECONDS_BUCKETS,
    });
    this.active = registry.gauge({ name: "http_server_active_requests", help: "Number of active HTTP server requests.", labelNames: ["http_request_method"] });
    this.requestSize = registry.histogram({ name: "http_server_request_body_size_bytes", help: "Size of HTTP server request bodies.", unit: "bytes", labelNames: LABELS, buckets: sizeBuckets });
    this.responseSize = registry.histogram({ name: "http_server_response_body_size_bytes", help: "Size of HTTP server response bodies.", unit: "bytes", labelNames: LABELS, buckets: sizeBuckets });
  }

  activeSeries(method: number): GaugeSeries {
    return (this.activeByMethod[method] ??= this.active.labels({ http_request_method: HTTP_METHODS[method]! }));
  }

  /**
   * The series of the last request recorded, and its route and key: a service answering one
   * route many times in a row skips both map lookups (~100 instructions of a `/hello`, issue 34).
   */
  private lastRoute: MatchedRoute | null | undefined = undefined;
  private lastKey = -1;
  private lastSeries: HttpSeries | null = null;

  series(route: MatchedRoute | null, method: number, status: number): HttpSeries {
    const key = status * 16 + method;
    if (route === this.lastRoute && key === this.lastKey) return this.lastSeries!;
    const found = this.lookup(route, key, method, status);
    // Only a kept series is remembered: a refused one is looked up (and its refusal counted) each time.
    if (found.duration.attached && found.requestSize.attached && found.responseSize.attached) {
      this.lastRoute = route;
      this.lastKey = key;
      this.lastSeries = found;
    }
    return found;
  }

  private lookup(route: MatchedRoute | null, key: number, method: number, status: number): HttpSeries {
    let table = this.byRoute.get(route);
    if (table === undefined) {
      table = new Map();
      this.byRoute.set(route, table);
    }
    const found = table.get(key);
    if (found !== undefined) return found;
    const labels = { http_request_method: HTTP_METHODS[method]!, http_route: route?.pattern ?? "", http_response_status_code: status };
    const series: HttpSeries = {
      duration: this.duration.labels(labels),
      requestSize: this.requestSize.labels(labels),
      responseSize: this.responseSize.labels(labels),
    };
    // A refused label set (series limit) is looked up again next time, so each refusal is counted.
    if (series.duration.attached && series.requestSize.attached && series.responseSize.attached) table.set(key, series);
    return series;
  }
}

/** The HTTP server metrics layer; register it first (`app.layer(...)`) so it times every other layer. */
export function httpMetrics(registry: MetricsRegistry = defaultMetricsRegistry(), options: HttpMetricsOptions = {}): Layer {
  const instruments = new HttpInstruments(registry, options);

  const finish = (ctx: Context, method: number, start: number, answer: Reply): Reply => {
    instruments.activeSeries(method).dec();
    // Settled here (a layer's JSON text written, a failure turned into the error reply) so the
    // status and size recorded are those sent; the writer then finds nothing left to do.
    const reply = settledReply(ctx, answer);
    const seconds = (performance.now() - start) / 1000;
    const series = instruments.series(ctx.route, method, reply.status);
    series.duration.observe(seconds);
    const requestSize = requestBodySize(ctx.req.headers);
    if (requestSize >= 0) series.requestSize.observe(requestSize);
    const responseSize = responseBodySize(ctx.method, reply);
    if (responseSize >= 0) series.responseSize.observe(responseSize);
    return reply;
  };

  // A direct layer: a route that answers synchronously is measured without a promise.
  return directLayer(function httpMetricsLayer(ctx: Context, next: Chain): Reply | Promise<Reply> {
    const method = methodIndex(ctx.method);
    instruments.activeSeries(method).inc();
    const start = performance.now();
    // The inner chain is guarded: it neither throws nor rejects, so `finish` always runs.
    const answer = next(ctx);
    return isPromise(answer) ? answer.then((r) => finish(ctx, method, start, r)) : finish(ctx, method, start, answer);
  });
}
