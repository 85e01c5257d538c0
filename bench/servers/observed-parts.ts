// keel's /hello with observability added part by part (issue 34, goal 4: "production() +
// metrics() + OTLP export sampling 1% of spans ≤ +5% of keel's /hello instructions; with export
// off ≤ +3%"). Each keel-obs-*.ts entry is one cumulative step, so `bench/instructions.mjs` shows
// what each part adds:
//   keel-obs-production  production(): the request span (trace context in, span on the context)
//   keel-obs-metrics     + metrics() (HTTP histograms, active requests, body sizes, process collector)
//   keel-obs-export-off  + tracing wired to an OTLP exporter whose sampler samples nothing (ratio 0)
//   keel-obs-export-1pct + the same exporter sampling 1% of traces (parent-based trace-id ratio),
//                        exporting OTLP/HTTP JSON to a sink on loopback that discards what it gets
//   keel-obs-export-1pct-batched  the same, a batch every 50 spans (one POST per 5,000 requests,
//                        as the 5 s schedule at 1,000 req/s) instead of every 5 s (see batchSpans)
// production() runs with what is not tracing off (no access line, no request id, no probes: they
// are the baseline's, measured in the `stack` scenario) and its defaults otherwise (so no
// response traceparent since issue 34). At exit the exporter's counts go to stderr.
import { spawn } from "node:child_process";
import { App, silentLogger } from "../../lib/index.js";
import { metrics } from "../../lib/metrics/index.js";
import { namedSampler, otlpExporter, type OtlpExporter } from "../../lib/otel/index.js";
import { production } from "../../lib/service/index.js";
import { announceReady, exitOnSignal } from "./common.js";
import { scenarioRoutes } from "./keel-routes.js";

// The OTLP sink: a node:http server in a child process (not measured) that reads and discards.
const SINK = `
const http = require("node:http");
const server = http.createServer((req, res) => { req.resume(); req.on("end", () => { res.writeHead(200, { "content-type": "application/json" }); res.end("{}"); }); });
server.listen(0, "127.0.0.1", () => process.stdout.write(server.address().port + "\\n"));
setInterval(() => { if (process.ppid === 1) process.exit(0); }, 1000).unref();
`;

function startSink(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ["-e", SINK], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.stdout.once("data", (d: Buffer) => resolve({ url: `http://127.0.0.1:${String(d).trim()}/v1/traces`, stop: () => child.kill() }));
  });
}

export interface ObservedParts {
  metrics: boolean;
  /** Sampled fraction of the exporter's traces; undefined: no exporter (spans only). */
  exportRatio?: number;
  /**
   * Send a batch every `batchSpans` spans instead of every 5 s. Under callgrind a request takes
   * ~50x its real time, so the 5 s schedule posts ~50x more often per request than in service;
   * by count, the POST rate per request is that of the 5 s schedule at `batchSpans / ratio / 5` req/s.
   */
  batchSpans?: number;
}

export async function serveObserved(parts: ObservedParts): Promise<void> {
  let exporter: OtlpExporter | undefined;
  let stopSink = (): void => undefined;
  if (parts.exportRatio !== undefined) {
    const sink = await startSink();
    stopSink = sink.stop;
    const batching = parts.batchSpans === undefined ? {} : { scheduleDelayMs: 3_600_000, maxExportBatchSize: parts.batchSpans };
    exporter = otlpExporter({ url: sink.url, serviceName: "bench", sampler: namedSampler("parentbased_traceidratio", parts.exportRatio), ...batching });
  }
  const stop = (): void => {
    if (exporter !== undefined) {
      const s = exporter.stats();
      process.stderr.write(`keel-obs: spans exported ${s.exported}, dropped ${s.dropped}, failed ${s.failedSpans}\n`);
    }
    stopSink();
    process.exit(0);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  exitOnSignal();
  const app = new App({ logger: silentLogger });
  // Metrics first, as its docs ask (it then times every other layer).
  if (parts.metrics) app.register(metrics());
  const spans = exporter === undefined ? {} : { onSpan: exporter, sampler: exporter.sampler };
  production({ service: "bench", logger: silentLogger, probes: false, accessLog: false, requestId: false, spans }).register(app);
  app.routes(scenarioRoutes(false));
  const server = await app.listen({ port: 0, host: "127.0.0.1" });
  announceReady(server.port);
}
