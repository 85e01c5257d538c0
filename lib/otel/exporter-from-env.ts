// otlpExporterFromEnv(): the exporter configured the way every OpenTelemetry SDK is, from the
// OTEL_* variables. Options given in code are defaults the environment overrides (the operator
// has the last word), except what the environment cannot say (logger, retry, scope).
import { otlpExporter, type OtlpExporter, type OtlpExporterOptions, type OtlpExporterStats } from "./exporter.js";
import { otlpConfigFromEnv, type Environment } from "./env-config.js";
import type { OtelVariable } from "./env-variables.js";

const NO_STATS: OtlpExporterStats = { exported: 0, dropped: 0, failedBatches: 0, failedSpans: 0, rejected: 0, retries: 0, failedExports: 0, consecutiveFailures: 0, queued: 0, transport: "inline" };

/** The exporter of OTEL_SDK_DISABLED=true: takes spans and sends nothing; no sampler. */
function disabledExporter(): OtlpExporter {
  const sink = ((): void => {}) as unknown as OtlpExporter;
  Object.defineProperties(sink, {
    url: { value: "", enumerable: true },
    protocol: { value: "http/json", enumerable: true },
    sampler: { value: undefined, enumerable: true },
  });
  sink.flush = () => Promise.resolve();
  sink.shutdown = () => Promise.resolve();
  sink.stats = () => NO_STATS;
  sink.healthCheck = () => () => "ok";
  return sink;
}

/**
 * `otlpExporter()` configured from the OTEL_* variables (OTEL_ENV_VARIABLES) over the defaults
 * given in code; OTEL_SDK_DISABLED=true gives an exporter that sends nothing.
 *
 * @example
 * const otel = otlpExporterFromEnv(process.env, { serviceName: "billing" });
 * const prod = production({ service: "billing", spans: { onSpan: otel, sampler: otel.sampler } });
 * @see docs/features/otel.md
 */
export function otlpExporterFromEnv(env: Environment = process.env, defaults: OtlpExporterOptions = {}): OtlpExporter {
  const { disabled, options } = otlpConfigFromEnv(env);
  if (disabled) return disabledExporter();
  const has = (name: OtelVariable): boolean => (env[name] ?? "").trim() !== "";
  const merged: OtlpExporterOptions = { ...defaults };
  if (defaults.url === undefined || has("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") || has("OTEL_EXPORTER_OTLP_ENDPOINT")) merged.url = options.url!;
  merged.headers = { ...defaults.headers, ...options.headers };
  merged.resource = { ...defaults.resource, ...options.resource };
  if (defaults.sampler === undefined || has("OTEL_TRACES_SAMPLER")) merged.sampler = options.sampler;
  if (options.protocol !== undefined) merged.protocol = options.protocol;
  for (const key of ["timeoutMs", "scheduleDelayMs", "maxQueueSize", "maxExportBatchSize", "exportTimeoutMs"] as const) {
    const v = options[key];
    if (v !== undefined) merged[key] = v;
  }
  return otlpExporter(merged);
}
