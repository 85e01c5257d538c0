// Samplers as the OpenTelemetry SDK names them (OTEL_TRACES_SAMPLER): always_on, always_off,
// traceidratio and the parent-based forms. A sampler decides once per trace, when the server span
// starts; `production({ spans: { sampler } })` (or `accessLog({ sampler })`) applies the decision (TraceSampler in access-log.ts).

/** The incoming parent, as far as sampling cares: was it sampled? */
export interface SamplingParent {
  readonly sampled: boolean;
}

export interface Sampler {
  /** `parent` is null for a new trace. */
  shouldSample(traceId: string, parent: SamplingParent | null): boolean;
  /** The SDK's description, e.g. "ParentBased{root=TraceIdRatioBased{0.25}}". */
  readonly description: string;
  /**
   * False when a new trace's decision does not depend on its id (always on/off, ratio 0 or 1):
   * the server span then draws its id only when something reads it (issue 34: drawing a random
   * id is ~60% of what an exporter with sampling off adds to a request). Absent means true.
   */
  readonly readsTraceId?: boolean;
  /**
   * Optional, for a sampler that decides a new trace by the last 13 hex digits of its id: the
   * same decision from those digits read as a number (0 <= low52 < 2^52). It must equal
   * `shouldSample(traceId, null)` for every id. For a trace that starts here keel calls this
   * instead of `shouldSample`: it draws the id's last 52 bits first and makes the id (ending with
   * them) only when something reads it (issue 34: drawing the id and reading 13 digits of its text
   * cost ~1,100 instructions a request); an incoming traceparent's id still goes to
   * `shouldSample`. Samplers without it are called as before.
   */
  shouldSampleLow52?(low52: number): boolean;
}

export const alwaysOnSampler: Sampler = { shouldSample: () => true, description: "AlwaysOnSampler", readsTraceId: false };
export const alwaysOffSampler: Sampler = { shouldSample: () => false, description: "AlwaysOffSampler", readsTraceId: false };

// The last 13 hex digits of the trace id (52 bits, exact in a double) read as a fraction of 2^52.
// They are among the random part of a W3C trace id, so the decision is uniform and the same for
// every service that sees the trace with the same ratio.
const RATIO_DIGITS = 13;
const RATIO_SPAN = 2 ** 52;

/**
 * The last RATIO_DIGITS hex digits of a trace id as a number; Infinity (never sampled) when one is
 * not a hex digit or the id is too short. A loop rather than slice + parseInt: this runs for every
 * request at any ratio between 0 and 1, and should allocate nothing.
 */
function ratioDigits(traceId: string): number {
  const end = traceId.length;
  if (end < RATIO_DIGITS) return Infinity;
  let value = 0;
  for (let i = end - RATIO_DIGITS; i < end; i++) {
    const c = traceId.charCodeAt(i);
    let digit: number;
    if (c >= 48 && c <= 57) digit = c - 48;
    else if (c >= 97 && c <= 102) digit = c - 87;
    else if (c >= 65 && c <= 70) digit = c - 55;
    else return Infinity;
    value = value * 16 + digit;
  }
  return value;
}

/** Samples `ratio` of traces (0..1), decided by the trace id alone. */
export function traceIdRatioSampler(ratio: number): Sampler {
  if (typeof ratio !== "number" || !(ratio >= 0 && ratio <= 1)) throw new TypeError(`traceIdRatioSampler(): ratio must be a number in [0, 1], got ${String(ratio)}`);
  const threshold = ratio * RATIO_SPAN;
  return {
    shouldSample(traceId) {
      if (ratio === 0) return false;
      if (ratio === 1) return true;
      return ratioDigits(traceId) < threshold;
    },
    // The same comparison on the same 52 bits (ratio 0: threshold 0; ratio 1: 2^52, above any).
    shouldSampleLow52(low52) {
      return low52 < threshold;
    },
    description: `TraceIdRatioBased{${ratio}}`,
    readsTraceId: ratio > 0 && ratio < 1,
  };
}

export interface ParentBasedOptions {
  /** Decides traces that start here (no parent). */
  root: Sampler;
  /** Used when the parent was sampled (default: always on). */
  sampledParent?: Sampler;
  /** Used when the parent was not sampled (default: always off). */
  unsampledParent?: Sampler;
}

/** Follows the parent's decision when there is one; `root` decides new traces. */
export function parentBasedSampler(options: ParentBasedOptions): Sampler {
  const { root } = options;
  const sampled = options.sampledParent ?? alwaysOnSampler;
  const unsampled = options.unsampledParent ?? alwaysOffSampler;
  const parentBased: Sampler = {
    shouldSample(traceId, parent) {
      if (parent === null) return root.shouldSample(traceId, null);
      return (parent.sampled ? sampled : unsampled).shouldSample(traceId, parent);
    },
    description: `ParentBased{root=${root.description}}`,
    // A new trace is the root's decision; a child's follows its parent's flag, not its id.
    readsTraceId: root.readsTraceId !== false,
  };
  // shouldSampleLow52 only decides new traces, which are the root's: forwarded when it has one.
  if (root.shouldSampleLow52 !== undefined) parentBased.shouldSampleLow52 = (low52) => root.shouldSampleLow52!(low52);
  return parentBased;
}

export const SAMPLER_NAMES = ["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"] as const;
export type SamplerName = (typeof SAMPLER_NAMES)[number];

/** The sampler an OTEL_TRACES_SAMPLER name stands for; `ratio` is for the traceidratio forms. */
export function namedSampler(name: SamplerName, ratio = 1): Sampler {
  switch (name) {
    case "always_on":
      return alwaysOnSampler;
    case "always_off":
      return alwaysOffSampler;
    case "traceidratio":
      return traceIdRatioSampler(ratio);
    case "parentbased_always_on":
      return parentBasedSampler({ root: alwaysOnSampler });
    case "parentbased_always_off":
      return parentBasedSampler({ root: alwaysOffSampler });
    case "parentbased_traceidratio":
      return parentBasedSampler({ root: traceIdRatioSampler(ratio) });
  }
}
