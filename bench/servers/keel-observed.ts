// keel's /hello with metrics and tracing on (issue 19's budget: "metrics + tracing together under
// 10% of the hello scenario's throughput"). Compare with servers/keel.ts on the hello scenario:
//   node bench/run.mjs --quick --only hello --impls keel,keel-observed
// Metrics: the metrics() plugin (http_server_* histogram, active requests, body sizes; process
// collector). Tracing: production()'s request span (traceparent in and out, child-span support,
// semantic-convention attributes), sampled always-on, exported as OTLP/HTTP JSON to a collector
// in another process (a child that answers 200 and discards), with the exporter's defaults
// (queue 2048, batches of 512). No access log and no request id: those are the baseline's, not
// tracing. At exit the exporter's counts go to stderr so a run can see spans were not dropped.
// KEEL_BENCH_RESPONSE_TRACEPARENT=1 sends the traceparent back on the responses (spans.responseTraceparent; off by default).
import { spawn } from "node:child_process";
import { App, silentLogger } from "../../lib/index.js";
import { metrics } from "../../lib/metrics/index.js";
import { namedSampler, otlpExporter } from "../../lib/otel/index.js";
import { production } from "../../lib/service/index.js";
import { announceReady, exitOnSignal } from "./common.js";
import { scenarioRoutes } from "./keel-routes.js";

const COLLECTOR = `
const http = require("node:http");
const server = http.createServer((req, res) => { req.resume(); req.on("end", () => { res.writeHead(200, { "content-type": "application/json" }); res.end("{}"); }); });
server.listen(0, "127.0.0.1", () => process.stdout.write(server.address().port + "\\n"));
setInterval(() => { if (process.ppid === 1) process.exit(0); }, 1000).unref();
`;

/** Start the collector process; resolves with its traces URL. */
function startCollector(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ["-e", COLLECTOR], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.stdout.once("data", (d: Buffer) => resolve({ url: `http://127.0.0.1:${String(d).trim()}/v1/traces`, stop: () => child.kill() }));
  });
}

async function main(): Promise<void> {
  const collector = await startCollector();
  // KEEL_BENCH_SAMPLE_RATIO: a parent-based trace-id ratio sampler (default: every trace).
  const ratio = Number(process.env["KEEL_BENCH_SAMPLE_RATIO"] ?? "1");
  // KEEL_BENCH_OTLP_PROTOCOL: http/json (default) or http/protobuf.
  const protocol = process.env["KEEL_BENCH_OTLP_PROTOCOL"] === "http/protobuf" ? "http/protobuf" : "http/json";
  const exporter = otlpExporter({ url: collector.url, serviceName: "bench", protocol, sampler: namedSampler("parentbased_traceidratio", ratio) });
  const stop = () => {
    const s = exporter.stats();
    process.stderr.write(`keel-observed: spans exported ${s.exported}, dropped ${s.dropped}, failed ${s.failedSpans}\n`);
    collector.stop();
    process.exit(0);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  exitOnSignal();
  const app = new App({ logger: silentLogger });
  const parts = process.env["KEEL_BENCH_OBSERVE"] ?? "metrics,tracing";
  // Metrics first, as its docs ask (it then times every other layer).
  if (parts.includes("metrics")) app.register(metrics());
  const responseTraceparent = process.env["KEEL_BENCH_RESPONSE_TRACEPARENT"] === "1";
  if (parts.includes("spans")) production({ service: "bench", logger: silentLogger, probes: false, accessLog: false, requestId: false, spans: { responseTraceparent } }).register(app);
  if (parts.includes("tracing")) production({ service: "bench", logger: silentLogger, probes: false, accessLog: false, requestId: false, spans: { onSpan: exporter, sampler: exporter.sampler, responseTraceparent } }).register(app);
  app.routes(scenarioRoutes(false));
  const server = await app.listen({ port: 0, host: "127.0.0.1" });
  announceReady(server.port);
}

void main();
