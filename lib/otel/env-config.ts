// The exporter's configuration from the environment, with the names and defaults of the
// OpenTelemetry SDK configuration spec. An empty variable counts as unset (as the spec says);
// a value that cannot be used is a TypeError naming the variable, at startup, not a silent
// default at 3 a.m.
import type { SpanAttributeValue } from "../service/index.js";
import type { OtlpExporterOptions } from "./exporter.js";
import type { OtlpProtocol } from "./export-response.js";
import { parseKeyValueList } from "./key-value-list.js";
import { namedSampler, SAMPLER_NAMES, type Sampler, type SamplerName } from "./sampler.js";
import type { OtelVariable } from "./env-variables.js";

export type Environment = Readonly<Record<string, string | undefined>>;

export interface OtlpEnvConfig {
  /** OTEL_SDK_DISABLED=true: no exporter, no sampler (spans still flow to the log). */
  readonly disabled: boolean;
  readonly options: OtlpExporterOptions;
}

const DEFAULT_ENDPOINT = "http://localhost:4318";

function read(env: Environment, name: OtelVariable): string | undefined {
  const v = env[name];
  if (v === undefined) return undefined;
  const t = v.trim();
  return t === "" ? undefined : t;
}

function integerVar(env: Environment, name: OtelVariable, min: number): number | undefined {
  const v = read(env, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min || !Number.isSafeInteger(Number(v))) {
    throw new TypeError(`${name} must be an integer >= ${min}, got "${v}"`);
  }
  return Number(v);
}

function booleanVar(env: Environment, name: OtelVariable): boolean {
  const v = read(env, name);
  if (v === undefined) return false;
  const lower = v.toLowerCase();
  if (lower === "true") return true;
  if (lower === "false") return false;
  throw new TypeError(`${name} must be "true" or "false", got "${v}"`);
}

function urlVar(name: OtelVariable, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${name} must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError(`${name} must be an http or https URL, got "${value}"`);
  return url;
}

/** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, else OTEL_EXPORTER_OTLP_ENDPOINT + "/v1/traces". */
function tracesUrl(env: Environment): string {
  const traces = read(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  if (traces !== undefined) return urlVar("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", traces).href;
  const base = read(env, "OTEL_EXPORTER_OTLP_ENDPOINT") ?? DEFAULT_ENDPOINT;
  const url = urlVar("OTEL_EXPORTER_OTLP_ENDPOINT", base);
  url.pathname = url.pathname.replace(/\/+$/, "") + "/v1/traces";
  return url.href;
}

/**
 * keel exports OTLP over HTTP, protobuf or JSON bodies; "grpc" (or anything else) is an error.
 * The traces-specific variable wins; undefined when neither is set.
 */
function protocolVar(env: Environment): OtlpProtocol | undefined {
  for (const name of ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"] as const) {
    const v = read(env, name);
    if (v === undefined) continue;
    if (v === "http/protobuf" || v === "http/json") return v;
    if (v === "grpc") throw new TypeError(`${name}: keel exports OTLP over HTTP only ("http/protobuf" or "http/json"), not "grpc"`);
    throw new TypeError(`${name} must be "http/protobuf" or "http/json", got "${v}"`);
  }
  return undefined;
}

function headersVar(env: Environment): Record<string, string> {
  const general = read(env, "OTEL_EXPORTER_OTLP_HEADERS");
  const traces = read(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS");
  const out = Object.create(null) as Record<string, string>;
  if (general !== undefined) Object.assign(out, parseKeyValueList(general, "OTEL_EXPORTER_OTLP_HEADERS"));
  if (traces !== undefined) Object.assign(out, parseKeyValueList(traces, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"));
  return out;
}

function samplerVar(env: Environment): Sampler {
  const name = read(env, "OTEL_TRACES_SAMPLER")?.toLowerCase() ?? "parentbased_always_on";
  if (!(SAMPLER_NAMES as readonly string[]).includes(name)) {
    throw new TypeError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLER_NAMES.join(", ")}, got "${name}"`);
  }
  const arg = read(env, "OTEL_TRACES_SAMPLER_ARG");
  let ratio = 1;
  if (arg !== undefined && name.endsWith("traceidratio")) {
    ratio = Number(arg);
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(arg) || !(ratio >= 0 && ratio <= 1)) {
      throw new TypeError(`OTEL_TRACES_SAMPLER_ARG must be a number in [0, 1] for ${name}, got "${arg}"`);
    }
  }
  return namedSampler(name as SamplerName, ratio);
}

/** Read the OTEL_* variables; throws a TypeError naming the first unusable one. */
export function otlpConfigFromEnv(env: Environment = process.env): OtlpEnvConfig {
  const disabled = booleanVar(env, "OTEL_SDK_DISABLED");
  const protocol = protocolVar(env);
  const url = tracesUrl(env);
  const headers = headersVar(env);
  const timeoutMs = integerVar(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", 1) ?? integerVar(env, "OTEL_EXPORTER_OTLP_TIMEOUT", 1);
  const resourceText = read(env, "OTEL_RESOURCE_ATTRIBUTES");
  const resource: Record<string, SpanAttributeValue> =
    resourceText === undefined ? (Object.create(null) as Record<string, SpanAttributeValue>) : parseKeyValueList(resourceText, "OTEL_RESOURCE_ATTRIBUTES");
  const serviceName = read(env, "OTEL_SERVICE_NAME");
  if (serviceName !== undefined) resource["service.name"] = serviceName; // wins over OTEL_RESOURCE_ATTRIBUTES
  const scheduleDelayMs = integerVar(env, "OTEL_BSP_SCHEDULE_DELAY", 0);
  const maxQueueSize = integerVar(env, "OTEL_BSP_MAX_QUEUE_SIZE", 1);
  const maxExportBatchSize = integerVar(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 1);
  if ((maxExportBatchSize ?? 512) > (maxQueueSize ?? 2048)) {
    throw new TypeError(`OTEL_BSP_MAX_EXPORT_BATCH_SIZE (${maxExportBatchSize ?? 512}) must not exceed OTEL_BSP_MAX_QUEUE_SIZE (${maxQueueSize ?? 2048})`);
  }
  const exportTimeoutMs = integerVar(env, "OTEL_BSP_EXPORT_TIMEOUT", 1);
  const sampler = samplerVar(env);

  const options: OtlpExporterOptions = { url, headers, resource, sampler };
  if (protocol !== undefined) options.protocol = protocol;
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  if (scheduleDelayMs !== undefined) options.scheduleDelayMs = scheduleDelayMs;
  if (maxQueueSize !== undefined) options.maxQueueSize = maxQueueSize;
  if (maxExportBatchSize !== undefined) options.maxExportBatchSize = maxExportBatchSize;
  if (exportTimeoutMs !== undefined) options.exportTimeoutMs = exportTimeoutMs;
  return { disabled, options };
}
