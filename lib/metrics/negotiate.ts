// Which format a scrape gets, from its Accept header. OpenMetrics 1.0 only when asked for by name
// (`application/openmetrics-text`, no version or 1.0.0) with a quality at least that of the
// Prometheus text format (`text/plain` with no version or 0.0.4, `text/*`, `*/*`); everything
// else, a missing or unusable header included, gets the Prometheus text format, which every
// scraper reads. Prometheus itself sends
// `application/openmetrics-text;version=1.0.0;q=0.5,...,text/plain;version=0.0.4;q=0.3,*/*;q=0.2`.
import type { ExpositionFormat } from "./exposition.js";

/** Longer Accept headers are not parsed (the answer is then the Prometheus text format). */
const MAX_ACCEPT_LENGTH = 4096;

/** The q parameter (RFC 9110 §12.4.2): 0 to 1 with up to three decimals; anything else counts as absent. */
function quality(value: string): number | null {
  const q = Number(value);
  return value !== "" && q >= 0 && q <= 1 ? q : null;
}

export function negotiateFormat(accept: string | undefined): ExpositionFormat {
  if (accept === undefined || accept.length > MAX_ACCEPT_LENGTH) return "prometheus";
  let openMetricsQ = 0;
  let textQ = 0;
  for (const range of accept.split(",")) {
    const parts = range.split(";");
    const type = parts[0]!.trim().toLowerCase();
    let q = 1;
    let version: string | null = null;
    for (let i = 1; i < parts.length; i++) {
      const p = parts[i]!;
      const eq = p.indexOf("=");
      if (eq === -1) continue;
      const name = p.slice(0, eq).trim().toLowerCase();
      const value = p.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
      if (name === "q") q = quality(value) ?? q;
      else if (name === "version") version = value;
    }
    if (type === "application/openmetrics-text") {
      if (version === null || version === "1.0.0") openMetricsQ = Math.max(openMetricsQ, q);
    } else if (type === "text/plain") {
      if (version === null || version === "0.0.4") textQ = Math.max(textQ, q);
    } else if (type === "text/*" || type === "*/*") {
      textQ = Math.max(textQ, q);
    }
  }
  return openMetricsQ > 0 && openMetricsQ >= textQ ? "openmetrics" : "prometheus";
}
