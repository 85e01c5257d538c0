// keel/service: running in production. The baseline layer (request ids, spans, access logs,
// probes), the buffered JSON logger, health checks, and runService() for the process around it
// (flags and environment, cluster workers, signal handling, graceful drain).
export { production, type Production, type ProductionOptions, type ProductionSpanOptions, type ProductionAccessLogOptions, type ProductionProbeOptions } from "./production.js";
export { routesOutsideHttp1 } from "./unparsed-methods.js";
export { accessLog, type AccessLogOptions, type TraceSampler } from "./observability/access-log.js";
export { createBufferedLogger, isJsonLogger, parseLogLevel, type JsonLogger, type BufferedLogger, type BufferedLoggerOptions } from "./observability/json-logger.js";
export { createLogDestination, type LogDestination, type LogDestinationOptions } from "./observability/log-destination.js";
export { redactHeaders, SECRET_HEADERS, REDACTED } from "./observability/redact.js";
export { span, tracer, Tracer, ActiveSpan, getRequestSpan, type SpanRecord, type SpanSink, type SpanAttributeValue } from "./observability/span.js";
export { isKeelServerSpan } from "./observability/server-span-record.js";
export { parseTraceParent, formatTraceParent, isSampledFlags, type TraceParent } from "./observability/traceparent.js";
export { HealthChecks, type HealthCheck, type HealthCheckOptions, type HealthChecksOptions, type HealthReport, type CheckOutcome, type CheckStatus } from "./probes/health-checks.js";
export { probeRoutes, DEFAULT_PROBE_PATHS, type ProbeOptions, type ProbePaths } from "./probes/probe-routes.js";
export { probeTokenAccess, type ProbeDetailAccess, type ProbeToken } from "./probes/probe-access.js";
export { runService, type RunServiceOptions, type ServiceCommand } from "./cli/run-service.js";
export type { ServiceShutdown } from "./cli/shutdown-deadline.js";
export { ConfigurationError, describeStartupError, type StartupFailure } from "./cli/startup-error.js";
export { defaultMaxConnections, openFileLimit } from "./cli/fd-limit.js";
export { installProcessHandlers, shutdownSignal, type ProcessHandlerOptions } from "./cli/process-handlers.js";
export { runClusterPrimary, type ClusterOptions } from "./cli/cluster.js";
export { parseServiceConfig, serviceHelp, type ServiceConfig } from "./cli/service-config.js";
export { CliUsageError, booleanValue, integerIn, nonEmptyText, oneOf, type CliOption, type CliSpec, type CliValues } from "./cli/cli-options.js";
