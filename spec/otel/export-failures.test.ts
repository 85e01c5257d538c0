// A collector that misbehaves (a black hole that accepts and never answers, a closed port, one
// slower than the POST timeout): the failure is logged once and then at most once per interval
// with the count since, counted in the exporter's stats and in keel_otlp_* metrics, and shown in
// /health as a non-critical check that is degraded while exports fail and ok again after a
// success. shutdown()/flush() take a deadline (the rest of the shutdown budget) and give up what
// they cannot send by then: counted as dropped, sockets let go.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, silentLogger, type ListeningServer } from "../../lib/index.js";
import { production } from "../../lib/service/index.js";
import { MetricsRegistry, otlpExportMetrics } from "../../lib/metrics/index.js";
import { otlpExporter, type OtlpExporter, type OtlpExporterOptions } from "../../lib/otel/index.js";
import type { SpanRecord } from "../../lib/service/index.js";
import { captureLogger, type CapturedRecord } from "../support/capture-logger.js";
import { refusingUrl, startBlackHole, startSlowCollector } from "./hostile-collectors.js";
import { startReceiver } from "./otlp-receiver.js";

let seq = 0;
function record(): SpanRecord {
  seq++;
  return {
    name: `op ${seq}`,
    kind: "internal",
    traceId: seq.toString(16).padStart(32, "c"),
    spanId: seq.toString(16).padStart(16, "d"),
    parentSpanId: "",
    traceFlags: "01",
    startTime: Date.now(),
    durationMs: 1,
    status: "ok",
    requestId: "",
    attributes: {},
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves true when `p` settles before `ms` (a bound on completion, not a measure of speed). */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const won = await Promise.race([p.then(() => true as const), late]);
  clearTimeout(timer);
  return won;
}

const failureLines = (records: CapturedRecord[]): CapturedRecord[] => records.filter((r) => r.msg === "OTLP export failed");

/** An app with the production probes and the exporter's check, listening; and a metrics registry reading the exporter. */
async function observe(e: OtlpExporter): Promise<{ server: ListeningServer; health(): Promise<{ status: number; body: any }>; ready(): Promise<number>; metrics(): Promise<string> }> {
  const prod = production({ service: "otlp-test", logger: silentLogger, spans: false, accessLog: false, checkCacheMs: 0 });
  prod.check("otlp", e.healthCheck(), { critical: false });
  const app = new App({ logger: silentLogger });
  prod.register(app);
  const server = await app.listen({ port: 0 });
  const registry = new MetricsRegistry();
  registry.addCollector(otlpExportMetrics(e));
  return {
    server,
    health: async () => {
      const r = await fetch(server.url + "/health");
      return { status: r.status, body: await r.json() };
    },
    ready: async () => (await fetch(server.url + "/ready")).status,
    metrics: () => registry.expose(),
  };
}

type Kind = "black hole" | "refusing" | "slow";

async function collectorFor(kind: Kind): Promise<{ url: string; close(): Promise<void> }> {
  if (kind === "black hole") return startBlackHole();
  if (kind === "refusing") return { url: await refusingUrl(), close: () => Promise.resolve() };
  return startSlowCollector(5_000);
}

describe("OTLP export failures: logged (rate-limited), counted, visible in /health", () => {
  for (const kind of ["black hole", "refusing", "slow"] as const) {
    for (const transport of ["worker", "inline"] as const) {
      it(`${kind} collector (${transport}): one log line for three failures, the metric counts three, /health degraded, /ready unaffected`, { timeout: 30_000 }, async () => {
        const collector = await collectorFor(kind);
        const logger = captureLogger();
        const e = otlpExporter({ url: collector.url + "/v1/traces", transport, timeoutMs: 300, retry: { maxAttempts: 1 }, scheduleDelayMs: 60_000, logger });
        const probe = await observe(e);
        try {
          const fresh = await probe.health();
          assert.equal(fresh.body.checks.otlp.status, "ok", "no export yet: nothing to complain about");
          for (let i = 0; i < 3; i++) {
            e(record());
            await e.flush();
          }
          const lines = failureLines(logger.records);
          assert.equal(lines.length, 1, `one line, then rate-limited: ${JSON.stringify(lines)}`);
          assert.equal(lines[0]!.level, 40);
          assert.equal(lines[0]!.fields["failures"], 1);
          assert.equal(e.stats().failedExports, 3);
          assert.equal(e.stats().failedSpans, 3);
          const text = await probe.metrics();
          assert.match(text, /^keel_otlp_export_failures_total 3$/m);
          assert.match(text, /^keel_otlp_failed_spans_total 3$/m);
          assert.match(text, /^keel_otlp_exported_spans_total 0$/m);
          const h = await probe.health();
          assert.equal(h.status, 200, "non-critical: degraded, still 200");
          assert.equal(h.body.status, "degraded");
          assert.equal(h.body.checks.otlp.status, "degraded");
          assert.ok(!String(h.body.checks.otlp.error).includes("127.0.0.1"), `no internal address in the probe: ${h.body.checks.otlp.error}`);
          assert.equal(await probe.ready(), 200);
        } finally {
          await e.shutdown({ timeoutMs: 1000 });
          await probe.server.close();
          await collector.close();
        }
      });
    }
  }

  it("recovers after a success: /health ok again, one 'recovered' line at info", async () => {
    const receiver = await startReceiver();
    receiver.script({ status: 503 }, { status: 503 });
    const logger = captureLogger();
    const e = otlpExporter({ url: receiver.url + "/v1/traces", retry: { maxAttempts: 1 }, scheduleDelayMs: 60_000, logger });
    const probe = await observe(e);
    try {
      e(record());
      await e.flush();
      e(record());
      await e.flush();
      assert.equal((await probe.health()).body.checks.otlp.status, "degraded");
      e(record());
      await e.flush();
      assert.equal(e.stats().exported, 1);
      const h = await probe.health();
      assert.equal(h.body.checks.otlp.status, "ok");
      assert.equal(h.body.status, "ok");
      assert.equal(failureLines(logger.records).length, 1);
      const recovered = logger.records.filter((r) => r.msg === "OTLP export recovered");
      assert.equal(recovered.length, 1);
      assert.equal(recovered[0]!.level, 30);
      assert.equal(recovered[0]!.fields["failures"], 2);
    } finally {
      await e.shutdown();
      await probe.server.close();
      await receiver.close();
    }
  });

  it("after the interval, the next failure logs again with the count of failures since the last line", async () => {
    const url = await refusingUrl();
    const logger = captureLogger();
    const e = otlpExporter({ url: url + "/v1/traces", transport: "inline", retry: { maxAttempts: 1 }, scheduleDelayMs: 60_000, logger, failureLogIntervalMs: 200 });
    for (let i = 0; i < 3; i++) {
      e(record());
      await e.flush();
    }
    await sleep(300);
    e(record());
    await e.flush();
    const lines = failureLines(logger.records);
    assert.ok(lines.length >= 2, "a line again once the interval has passed");
    assert.equal(lines[0]!.fields["failures"], 1);
    // Every failure is in exactly one line's count: none lost to the rate limit.
    assert.equal(lines.reduce((n, l) => n + Number(l.fields["failures"]), 0), 4);
    await e.shutdown();
  });

  it("refuses a negative failureLogIntervalMs", () => {
    assert.throws(() => otlpExporter({ failureLogIntervalMs: -1 }), /failureLogIntervalMs must be an integer >= 0/);
  });
});

describe("OTLP shutdown and flush with a deadline", () => {
  let hole: Awaited<ReturnType<typeof startBlackHole>>;
  before(async () => {
    hole = await startBlackHole();
  });
  after(() => hole.close());

  for (const transport of ["worker", "inline"] as const) {
    it(`shutdown({ timeoutMs }) against a black hole (${transport}): returns by the deadline, what was not sent counts as dropped, the socket is let go`, { timeout: 30_000 }, async () => {
      const accepted = hole.accepted;
      // The export timeouts are long (a POST may take a minute, a flush 30 s): only the deadline given to shutdown() bounds it.
      const options: OtlpExporterOptions = { url: hole.url + "/v1/traces", transport, timeoutMs: 60_000, scheduleDelayMs: 60_000, maxExportBatchSize: 2 };
      const e = otlpExporter(options);
      for (let i = 0; i < 5; i++) e(record());
      // Wait until the first batch is on the wire (in flight) before shutting down.
      for (let i = 0; i < 200 && hole.accepted === accepted; i++) await sleep(25);
      assert.ok(hole.accepted > accepted, "a POST reached the black hole");
      assert.ok(await settlesWithin(e.shutdown({ timeoutMs: 300 }), 10_000), "shutdown() returned by its deadline (well before the 30 s export timeout)");
      const s = e.stats();
      assert.deepEqual({ exported: s.exported, dropped: s.dropped, queued: s.queued }, { exported: 0, dropped: 5, queued: 0 });
      for (let i = 0; i < 200 && hole.open > 0; i++) await sleep(25);
      assert.equal(hole.open, 0, "the abandoned POST's connection was closed");
    });
  }

  it("flush({ timeoutMs }) returns by its deadline; the exporter keeps working", { timeout: 30_000 }, async () => {
    const e = otlpExporter({ url: hole.url + "/v1/traces", transport: "inline", timeoutMs: 60_000, scheduleDelayMs: 60_000 });
    e(record());
    assert.ok(await settlesWithin(e.flush({ timeoutMs: 200 }), 10_000), "flush() returned by its deadline");
    assert.ok(await settlesWithin(e.shutdown({ timeoutMs: 200 }), 10_000));
    assert.equal(e.stats().dropped, 1);
  });

  it("refuses a timeoutMs that is not a number >= 0", () => {
    const e = otlpExporter({ url: hole.url + "/v1/traces", transport: "inline" });
    assert.throws(() => void e.flush({ timeoutMs: -5 }), /timeoutMs must be a number >= 0/);
    void e.shutdown();
  });
});
