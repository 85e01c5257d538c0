/**
 * The cost of each traffic layer on `GET /hello`, as a ratio to the same app without layers.
 *   node --import tsx bench/layers.bench.ts [--quick] [--json]
 *
 * Each case is an App with `/hello` (the SPEC route: a JSON string) and one layer, driven
 * in-process by `app.inject` in a loop (the whole pipeline, no socket). Cases are interleaved
 * round by round so machine drift hits all of them; the figure is the median ns per request over
 * the rounds (the order rotates each round), and the ratio is median(case) / median(no layers). inject itself costs a few µs,
 * which is in both numerator and denominator: the ratios are those of the in-process pipeline,
 * and a layer's absolute cost is (case - baseline) ns.
 * Layer settings: rate limit with a bucket that never empties (one client), idempotency on a
 * GET (passes through: it only acts on unsafe methods) and on a POST replaying a stored answer,
 * cache hits, compression on a body under the threshold (the /hello case) and on a 4 KiB JSON
 * body (gzip), timeout 5 s, retry (first attempt succeeds), breaker closed.
 * Observability (issue 19): Prometheus HTTP metrics, traffic insight, replay recording (every
 * request, memory store), the audit layer (nothing to record on a 200), the production baseline
 * (request id, span, access log to a discarding writer) with and without OTLP export (to a
 * loopback receiver), and metrics + tracing together.
 */
import { performance } from "node:perf_hooks";
import { App, reply, route, silentLogger, type Layer } from "../lib/index.js";
import { responseCache } from "../lib/middleware/cache/cache.js";
import { circuitBreaker } from "../lib/middleware/circuit-breaker/circuit-breaker.js";
import { compression } from "../lib/middleware/compression/compression.js";
import { idempotency } from "../lib/middleware/idempotency/idempotency.js";
import { rateLimit } from "../lib/middleware/rate-limit/rate-limit.js";
import { retry } from "../lib/middleware/retry/retry.js";
import { timeout } from "../lib/middleware/timeout/timeout.js";
import { audit, auditLog, memoryAuditSink } from "../lib/audit/index.js";
import { insight } from "../lib/insight/index.js";
import { metrics, MetricsRegistry } from "../lib/metrics/index.js";
import { MemoryReplayStore, replay } from "../lib/replay/index.js";
import { otlpExporter } from "../lib/otel/index.js";
import { production } from "../lib/service/index.js";
import { createServer } from "node:http";
import { Writable } from "node:stream";

const quick = process.argv.includes("--quick");
const asJson = process.argv.includes("--json");
const ROUNDS = quick ? 5 : 15;
const PER_ROUND = quick ? 2000 : 10_000;

const BIG = JSON.stringify({ items: Array.from({ length: 60 }, (_, i) => ({ id: i, name: `item ${i}`, email: `user${i}@example.com` })) });

interface Case {
  name: string;
  app: App;
  request: Parameters<App["inject"]>[0];
}

function helloApp(layers: Layer[], plugins: Array<(app: App) => void> = []): App {
  const app = new App({ logger: silentLogger });
  for (const p of plugins) app.register(p);
  for (const l of layers) app.layer(l);
  return app.routes(
    route.get("/hello", [], () => "Hello, World!"),
    route.post("/hello", [], () => "Hello, World!"),
    route.get("/big", [], () => reply(200, BIG, { "content-type": "application/json" })),
  );
}

// Tracing: the production baseline writes its access lines to a sink that drops them; the OTLP
// exporter posts its batches to a loopback receiver in this process that answers 200.
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => res.end("{}"));
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
receiver.unref();
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/v1/traces`;
const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });
const baseline = (export_: boolean) => {
  const exporter = export_ ? otlpExporter({ url: receiverUrl, serviceName: "bench" }) : null;
  const prod = production({ service: "bench", destination: discard(), probes: false, ...(exporter === null ? {} : { spans: { onSpan: exporter, sampler: exporter.sampler } }) });
  return (app: App) => prod.register(app);
};

const generous = () => rateLimit({ capacity: 1e9, refillPerSecond: 1e9 });
const all = (): Layer[] => [compression(), generous(), timeout(5000), idempotency(), circuitBreaker(), retry(), responseCache()];

const cases: Case[] = [
  { name: "no layers", app: helloApp([]), request: { url: "/hello" } },
  { name: "rateLimit", app: helloApp([generous()]), request: { url: "/hello" } },
  { name: "idempotency (GET, passes through)", app: helloApp([idempotency()]), request: { url: "/hello" } },
  { name: "idempotency (POST, replay)", app: helloApp([idempotency()]), request: { method: "POST", url: "/hello", headers: { "idempotency-key": "bench-key" } } },
  { name: "responseCache (hit)", app: helloApp([responseCache()]), request: { url: "/hello" } },
  { name: "compression (under threshold)", app: helloApp([compression()]), request: { url: "/hello", headers: { "accept-encoding": "gzip, br" } } },
  { name: "timeout", app: helloApp([timeout(5000)]), request: { url: "/hello" } },
  { name: "retry", app: helloApp([retry()]), request: { url: "/hello" } },
  { name: "circuitBreaker", app: helloApp([circuitBreaker()]), request: { url: "/hello" } },
  { name: "all seven", app: helloApp(all()), request: { url: "/hello", headers: { "accept-encoding": "gzip, br" } } },
  { name: "metrics (HTTP)", app: helloApp([], [metrics({ registry: new MetricsRegistry(), process: false })]), request: { url: "/hello" } },
  { name: "insight", app: helloApp([], [insight()]), request: { url: "/hello" } },
  { name: "replay (every request)", app: helloApp([], [replay({ sampleRate: 1, store: new MemoryReplayStore() })]), request: { url: "/hello" } },
  { name: "audit (auto, nothing to record)", app: helloApp([], [audit({ log: auditLog({ sink: memoryAuditSink() }) })]), request: { url: "/hello" } },
  { name: "production baseline (request id, span, access line)", app: helloApp([], [baseline(false)]), request: { url: "/hello" } },
  { name: "production baseline + OTLP export", app: helloApp([], [baseline(true)]), request: { url: "/hello" } },
  { name: "production + OTLP export + metrics", app: helloApp([], [baseline(true), metrics({ registry: new MetricsRegistry(), process: false })]), request: { url: "/hello" } },
  { name: "no layers, 4 KiB JSON", app: helloApp([]), request: { url: "/big", headers: { "accept-encoding": "gzip" } } },
  { name: "compression gzip, 4 KiB JSON", app: helloApp([compression({ encodings: ["gzip"] })]), request: { url: "/big", headers: { "accept-encoding": "gzip" } } },
];

async function runCase(c: Case, n: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await c.app.inject(c.request);
  return ((performance.now() - start) * 1e6) / n;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function main(): Promise<void> {
  for (const c of cases) {
    const r = await c.app.inject(c.request);
    if (r.status >= 400) throw new Error(`${c.name}: status ${r.status} ${r.body}`);
    await runCase(c, 2000); // warm-up
  }
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order each round: the case after an allocation-heavy one pays for its GC.
    for (let i = 0; i < cases.length; i++) {
      const c = cases[(i + round) % cases.length]!;
      samples.get(c.name)!.push(await runCase(c, PER_ROUND));
    }
  }
  const base = median(samples.get("no layers")!);
  const baseBig = median(samples.get("no layers, 4 KiB JSON")!);
  const rows = cases.map((c) => {
    const ns = median(samples.get(c.name)!);
    const ref = c.name.endsWith("4 KiB JSON") ? baseBig : base;
    return { layer: c.name, ns_per_request: Math.round(ns), ratio: Number((ns / ref).toFixed(3)), added_ns: Math.round(ns - ref) };
  });
  if (asJson) {
    process.stdout.write(JSON.stringify({ node: process.version, rounds: ROUNDS, perRound: PER_ROUND, rows }, null, 2) + "\n");
    return;
  }
  process.stdout.write(`keel layers on GET /hello via app.inject (node ${process.version}, ${ROUNDS} rounds x ${PER_ROUND}, medians)\n\n`);
  process.stdout.write("| layer | ns/request | ratio to no layers | added ns |\n|---|---:|---:|---:|\n");
  for (const r of rows) process.stdout.write(`| ${r.layer} | ${r.ns_per_request} | ${r.ratio.toFixed(3)} | ${r.added_ns} |\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(String((err as Error)?.stack ?? err) + "\n");
  process.exit(1);
});
