// The two text formats a scrape can ask for:
// - Prometheus text 0.0.4: `# HELP` / `# TYPE` per family, then its samples; a counter's family
//   lines use its sample name (`foo_total`), as the Prometheus clients write them.
// - OpenMetrics 1.0: the family is named without `_total` (the samples keep it), `# UNIT` for a
//   metric that declares one, integral bucket bounds written as floats (`le="1.0"`), HELP escaped
//   like a label value, and `# EOF` last.
import type { Counter } from "./counter.js";
import { escapeHelp } from "./escape.js";
import type { Gauge } from "./gauge.js";
import type { Histogram } from "./histogram.js";

export type AnyMetric = Counter | Gauge | Histogram;
export type ExpositionFormat = "prometheus" | "openmetrics";

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
export const OPENMETRICS_CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";

export function contentTypeOf(format: ExpositionFormat): string {
  return format === "openmetrics" ? OPENMETRICS_CONTENT_TYPE : PROMETHEUS_CONTENT_TYPE;
}

/** A sample value: Go's spellings of the infinities and NaN, plain JavaScript numbers otherwise. */
export function formatValue(v: number): string {
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v !== v) return "NaN";
  return String(v);
}

/** A bucket bound; OpenMetrics wants a float's canonical form, so `1` is written `1.0`. */
function formatBound(b: number, openMetrics: boolean): string {
  return openMetrics && Number.isInteger(b) && Math.abs(b) < 1e21 ? b + ".0" : formatValue(b);
}

function sample(name: string, labels: string, value: number): string {
  return (labels === "" ? name : name + "{" + labels + "}") + " " + formatValue(value) + "\n";
}

function histogramSamples(metric: Histogram, openMetrics: boolean): string {
  const name = metric.name;
  const bounds = metric.bounds;
  // The `le` text of each bound, shared by every series of the metric.
  const les: string[] = [];
  for (const b of bounds) les.push('le="' + formatBound(b, openMetrics) + '"');
  les.push('le="+Inf"');
  let out = "";
  for (const s of metric.series()) {
    const prefix = s.labelText === "" ? "" : s.labelText + ",";
    let cumulative = 0;
    for (let i = 0; i < les.length; i++) {
      cumulative += s.counts[i]!;
      out += name + "_bucket{" + prefix + les[i] + "} " + formatValue(cumulative) + "\n";
    }
    out += sample(name + "_sum", s.labelText, s.sum);
    out += sample(name + "_count", s.labelText, s.count);
  }
  return out;
}

function family(metric: AnyMetric, openMetrics: boolean): string {
  const familyName = metric.type === "counter" && !openMetrics ? metric.name + "_total" : metric.name;
  let out = "# HELP " + familyName + " " + escapeHelp(metric.help, openMetrics) + "\n";
  out += "# TYPE " + familyName + " " + metric.type + "\n";
  if (openMetrics && metric.unit !== null) out += "# UNIT " + familyName + " " + metric.unit + "\n";
  if (metric.type === "histogram") return out + histogramSamples(metric, openMetrics);
  const sampleName = metric.type === "counter" ? metric.name + "_total" : metric.name;
  for (const s of metric.series()) out += sample(sampleName, s.labelText, s.value);
  return out;
}

/** The exposition of `metrics`, in order, in the given format. */
export function exposition(metrics: Iterable<AnyMetric>, format: ExpositionFormat): string {
  const openMetrics = format === "openmetrics";
  let out = "";
  for (const m of metrics) out += family(m, openMetrics);
  return openMetrics ? out + "# EOF\n" : out;
}
