// The OTel resource (who emits the spans) and the instrumentation scope (what recorded them).
import type { SpanAttributeValue } from "../service/index.js";
import type { OtlpScope } from "./otlp-json.js";

// Keep in step with package.json: the bundle has no package.json to read at run time.
export const KEEL_VERSION = "0.1.0";

export const KEEL_SCOPE: OtlpScope = { name: "keel", version: KEEL_VERSION };

/** The SDK's fallback when no service name is configured anywhere. */
export const UNKNOWN_SERVICE = "unknown_service:node";

/**
 * Resource attributes: the given ones, `service.name` (theirs, else `serviceName`, else
 * unknown_service:node) and the telemetry.sdk.* attributes the SDK spec asks for.
 */
export function resourceAttributes(serviceName: string | undefined, given: Readonly<Record<string, SpanAttributeValue>> = {}): Record<string, SpanAttributeValue> {
  const attrs: Record<string, SpanAttributeValue> = Object.create(null) as Record<string, SpanAttributeValue>;
  attrs["service.name"] = serviceName ?? UNKNOWN_SERVICE;
  attrs["telemetry.sdk.name"] = "keel";
  attrs["telemetry.sdk.language"] = "nodejs";
  attrs["telemetry.sdk.version"] = KEEL_VERSION;
  for (const key of Object.keys(given)) {
    const value = given[key];
    if (value !== undefined) attrs[key] = value;
  }
  return attrs;
}
