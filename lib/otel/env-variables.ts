// The OTEL_* variables keel/otel reads, with what each does: the one list that the readers in
// env-config.ts are typed against (a variable read but not listed does not compile) and that a
// service's --help prints (runService's `environment` option), so the two cannot drift.

/** Every variable otlpConfigFromEnv() and otlpExporterFromEnv() read, with its help text. */
export const OTEL_ENV_VARIABLES = {
  OTEL_SDK_DISABLED: "true: export no spans, no sampler (spans still go to the log) [default false]",
  OTEL_EXPORTER_OTLP_ENDPOINT: "OTLP/HTTP collector base URL; /v1/traces is appended [default http://localhost:4318]",
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "Full traces URL, used as is; wins over OTEL_EXPORTER_OTLP_ENDPOINT",
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json or http/protobuf (grpc is refused) [default http/json]",
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "The same for traces only; wins over OTEL_EXPORTER_OTLP_PROTOCOL",
  OTEL_EXPORTER_OTLP_HEADERS: "Request headers for the collector, key=value,key=value (URL-encoded values)",
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: "The same for traces only; added over OTEL_EXPORTER_OTLP_HEADERS",
  OTEL_EXPORTER_OTLP_TIMEOUT: "Per-request timeout, ms [default 10000]",
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "The same for traces only; wins over OTEL_EXPORTER_OTLP_TIMEOUT",
  OTEL_SERVICE_NAME: "service.name of the spans; wins over OTEL_RESOURCE_ATTRIBUTES",
  OTEL_RESOURCE_ATTRIBUTES: "Resource attributes, key=value,key=value",
  OTEL_BSP_SCHEDULE_DELAY: "Longest wait before queued spans are sent, ms [default 5000]",
  OTEL_BSP_MAX_QUEUE_SIZE: "Spans that may wait; more are dropped and counted [default 2048]",
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "Spans per request, at most OTEL_BSP_MAX_QUEUE_SIZE [default 512]",
  OTEL_BSP_EXPORT_TIMEOUT: "How long a flush or the shutdown may take, ms [default 30000]",
  OTEL_TRACES_SAMPLER: "always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio [default parentbased_always_on]",
  OTEL_TRACES_SAMPLER_ARG: "The ratio in [0, 1] of the traceidratio samplers [default 1]",
} as const;

/** The name of a variable keel/otel reads. */
export type OtelVariable = keyof typeof OTEL_ENV_VARIABLES;
