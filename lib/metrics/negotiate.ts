// Which format a scrape gets, from its Accept header. OpenMetrics 1.0 only when asked for by name
// (`application/openmetrics-text`, no version or 1.0.0) with a quality at least that of the
// Prometheus text format (`text/plain` with no version or 0.0.4, `text/*`, `*/*`); everything
// else, a missing or unusable header included, gets the Prometheus text format, which every
// scraper reads. Prometheus itself sends
// `application/openmetrics-text;version=1.0.0;q=0.5,...,text/plain;version=0.0.4;q=0.3,*/*;q=0.2`.
// The header is read by the one Accept parser (keel/plugin `parseAccept`: invalid elements are
// ignored); for each format the most specific range that covers it decides its quality, and a
// range naming another version covers nothing.
import { parseAccept } from "../plugin.js";
import type { ExpositionFormat } from "./exposition.js";

export function negotiateFormat(accept: string | undefined): ExpositionFormat {
  let openMetricsQ = 0;
  let openMetricsSpec = -1;
  let textQ = 0;
  let textSpec = -1;
  for (const range of parseAccept(accept)) {
    const { type, subtype, specificity, q } = range;
    const version = range.parameters["version"];
    const coversOpenMetrics = specificity === 0 || (type === "application" && (subtype === "*" || (subtype === "openmetrics-text" && (version === undefined || version === "1.0.0"))));
    const coversText = specificity === 0 || (type === "text" && (subtype === "*" || (subtype === "plain" && (version === undefined || version === "0.0.4"))));
    if (coversOpenMetrics && specificity > openMetricsSpec) {
      openMetricsSpec = specificity;
      openMetricsQ = q;
    }
    if (coversText && specificity > textSpec) {
      textSpec = specificity;
      textQ = q;
    }
  }
  return openMetricsSpec >= 2 && openMetricsQ > 0 && openMetricsQ >= textQ ? "openmetrics" : "prometheus";
}
