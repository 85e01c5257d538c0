// The one Accept / Accept-Encoding parser (lib/util/accept.ts) per call, as the features use it on
// the request path: compression() and serveStatic() (selectEncoding), negotiation()
// (negotiateFormat over rankMediaTypes), and the metrics scrape (parseAccept). Median ns per call
// over 7 rounds of 500 000. Run: node --import tsx bench/micro/accept.ts
import { selectEncoding } from "../../lib/plugin.js";
import { negotiateEncoding } from "../../lib/middleware/index.js";
import { negotiateMetricsFormat } from "../../lib/metrics/index.js";
import { negotiateFormat } from "../../lib/toon/index.js";

function bench(name: string, f: () => unknown): void {
  let sink: unknown;
  for (let i = 0; i < 200_000; i++) sink = f();
  const rounds: number[] = [];
  for (let r = 0; r < 7; r++) {
    const n = 500_000;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink = f();
    rounds.push(Number(process.hrtime.bigint() - t0) / n);
  }
  rounds.sort((a, b) => a - b);
  console.log(`${name.padEnd(58)} ${rounds[3]!.toFixed(1).padStart(7)} ns  (${String(sink).slice(0, 16)})`);
}

const STATIC = ["br", "gzip"] as const;
const typical = "gzip, deflate, br";
bench("compression negotiateEncoding 'gzip, deflate, br'", () => negotiateEncoding(typical));
bench("serveStatic selectEncoding 'gzip, deflate, br'", () => selectEncoding(typical, STATIC));
bench("selectEncoding 'gzip' (one token)", () => selectEncoding("gzip", STATIC));
bench("toon negotiateFormat 'application/json'", () => negotiateFormat("application/json")?.format);
bench("toon negotiateFormat browser Accept", () => negotiateFormat("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")?.format);
bench("metrics negotiateMetricsFormat Prometheus' Accept", () =>
  negotiateMetricsFormat("application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.2"));
