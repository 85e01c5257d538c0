// keel/otel: OpenTelemetry trace export. An OTLP/HTTP exporter (JSON by default, protobuf with
// `protocol: "http/protobuf"` or OTEL_EXPORTER_OTLP_PROTOCOL) that plugs into the spans of
// the production baseline (keel/service), samplers with the SDK's names, configuration from the
// OTEL_* variables, and tracedFetch() for calls to other services.
//
//   const otel = otlpExporterFromEnv(process.env, { serviceName: "billing" });
//   const prod = production({ service: "billing", spans: { onSpan: otel, sampler: otel.sampler } });
//   prod.register(app);
//   app.onShutdown(() => otel.shutdown());
export { otlpExporter, type OtlpExporter, type OtlpExporterOptions, type OtlpExporterStats } from "./exporter.js";
export { otlpExporterFromEnv } from "./exporter-from-env.js";
export { otlpConfigFromEnv, type OtlpEnvConfig, type Environment } from "./env-config.js";
export { OTEL_ENV_VARIABLES, type OtelVariable } from "./env-variables.js";
export {
  alwaysOnSampler,
  alwaysOffSampler,
  traceIdRatioSampler,
  parentBasedSampler,
  namedSampler,
  SAMPLER_NAMES,
  type Sampler,
  type SamplerName,
  type SamplingParent,
  type ParentBasedOptions,
} from "./sampler.js";
export { tracedFetch } from "./traced-fetch.js";
export { forwardableTraceState, TRACESTATE_HEADER } from "./trace-state.js";
export { otlpTracesRequest, otlpTracesRequestJson, otlpSpanJson, otlpSpan, otlpAttributes, unixNanos, SPAN_KIND, STATUS_CODE, type OtlpTracesRequest, type OtlpSpan, type OtlpKeyValue, type OtlpAnyValue, type OtlpScope } from "./otlp-json.js";
export { otlpTracesRequestProtobuf } from "./otlp-protobuf.js";
export type { OtlpProtocol } from "./export-response.js";
export { RETRYABLE_STATUSES, parseRetryAfter, type RetryOptions as OtlpRetryOptions } from "./retry-policy.js";
export { KEEL_SCOPE, UNKNOWN_SERVICE } from "./resource.js";
