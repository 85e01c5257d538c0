// keel/metrics: Prometheus metrics. A registry of counters, gauges and histograms with bounded
// label sets, collectors read at scrape time, the Prometheus text and OpenMetrics formats, the
// HTTP server layer, process, job-queue and OTLP-exporter collectors, and the metrics() plugin.
export { MetricsRegistry, defaultMetricsRegistry, type Collector, type AttachedCollector, type MetricsRegistryOptions } from "./registry.js";
export { Counter } from "./counter.js";
export { Gauge } from "./gauge.js";
export { Histogram, DEFAULT_SECONDS_BUCKETS, type HistogramOptions } from "./histogram.js";
export { DEFAULT_MAX_SERIES, type LabelValues, type MetricOptions, type MetricType } from "./metric.js";
export type { CounterSeries, GaugeSeries, HistogramSeries, Series } from "./series.js";
export { exposition, formatValue, PROMETHEUS_CONTENT_TYPE, OPENMETRICS_CONTENT_TYPE, type AnyMetric, type ExpositionFormat } from "./exposition.js";
export { negotiateFormat as negotiateMetricsFormat } from "./negotiate.js";
export { httpMetrics, DEFAULT_BODY_SIZE_BUCKETS, type HttpMetricsOptions } from "./http-metrics.js";
export { processMetrics, type ProcessMetricsOptions } from "./process-metrics.js";
export { jobQueueMetrics, type JobQueueMetricsOptions, type JobQueueStatsSource } from "./job-queue-metrics.js";
export { otlpExportMetrics, type OtlpExportStatsSource } from "./otlp-export-metrics.js";
export { metrics, type MetricsPluginOptions } from "./plugin.js";
