// The sample as a process exporting spans to a collector that misbehaves. A black hole (accepts,
// never answers): SIGTERM still ends the process within SHUTDOWN_TIMEOUT_MS (plus a generous
// margin: this bounds the exit, it does not time it), where the flush used to wait out
// OTEL_BSP_EXPORT_TIMEOUT (30 s). And while exports fail: one warning line, the failure counted
// on /metrics, /health degraded (200), /ready still 200.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { startSample, sendWithin, type SampleProcess } from "../../support/sample-process.js";
import { startBlackHole, type BlackHole } from "../../otel/hostile-collectors.js";

const SHUTDOWN_TIMEOUT_MS = 2000;
/** The bound on exit after SIGTERM: the shutdown timeout plus a margin for a loaded machine. */
const EXIT_BOUND_MS = SHUTDOWN_TIMEOUT_MS + 5000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const started: SampleProcess[] = [];
const holes: BlackHole[] = [];
after(async () => {
  for (const s of started) await s.kill();
  for (const h of holes) await h.close();
});

async function sampleAgainstBlackHole(env: Record<string, string>): Promise<{ sample: SampleProcess; hole: BlackHole }> {
  const hole = await startBlackHole();
  holes.push(hole);
  const sample = await startSample({ OTEL_EXPORTER_OTLP_ENDPOINT: hole.url, OTEL_BSP_SCHEDULE_DELAY: "50", SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS), ...env });
  started.push(sample);
  return { sample, hole };
}

/** Send requests (each makes a sampled span) until an export reaches the black hole. */
async function exportInFlight(sample: SampleProcess, hole: BlackHole): Promise<void> {
  for (let i = 0; i < 200 && hole.accepted === 0; i++) {
    assert.equal((await sendWithin(sample.url + "/hello")).status, 200);
    await sleep(25);
  }
  assert.ok(hole.accepted > 0, "an export reached the black hole");
}

describe("hostile OTLP collector: the sample process", () => {
  it("SIGTERM with an export stuck in a black hole: the process exits within the shutdown timeout (+5 s margin), exit 0, the spans counted as dropped", { timeout: 60_000 }, async () => {
    // Default export timeouts: a POST may wait 10 s, a flush 30 s.
    const { sample, hole } = await sampleAgainstBlackHole({});
    await exportInFlight(sample, hole);
    for (let i = 0; i < 5; i++) assert.equal((await sendWithin(sample.url + "/hello")).status, 200);
    process.kill(sample.pid, "SIGTERM");
    for (let waited = 0; waited < EXIT_BOUND_MS && !sample.exited; waited += 50) await sleep(50);
    assert.ok(sample.exited, `still running ${EXIT_BOUND_MS} ms after SIGTERM (shutdown timeout ${SHUTDOWN_TIMEOUT_MS} ms):\n${sample.output().slice(-3000)}`);
    assert.equal(await sample.stop(), 0, sample.output().slice(-3000));
    const out = sample.output();
    const abandoned = out.split("\n").find((l) => l.includes('"msg":"OTLP export abandoned at shutdown"'));
    assert.ok(abandoned, `the dropped spans are reported:\n${out.slice(-3000)}`);
    assert.match(abandoned, /"dropped":[1-9]/);
  });

  it("while exports fail: one warning line, keel_otlp_export_failures_total on /metrics, /health degraded, /ready 200", { timeout: 60_000 }, async () => {
    const { sample, hole } = await sampleAgainstBlackHole({ OTEL_EXPORTER_OTLP_TIMEOUT: "200" });
    await exportInFlight(sample, hole);
    let failures = 0;
    for (let i = 0; i < 400 && failures < 2; i++) {
      await sendWithin(sample.url + "/hello");
      const m = /^keel_otlp_export_failures_total (\d+)$/m.exec((await sendWithin(sample.url + "/metrics")).body);
      failures = m === null ? 0 : Number(m[1]);
      if (failures < 2) await sleep(50);
    }
    assert.ok(failures >= 2, "failed exports are counted on /metrics");
    const health = await sendWithin(sample.url + "/health");
    assert.equal(health.status, 200);
    const body = JSON.parse(health.body) as { status: string; checks: Record<string, { status: string; error?: string }> };
    assert.equal(body.checks["otlp"]?.status, "degraded", health.body);
    assert.equal(body.status, "degraded");
    assert.equal((await sendWithin(sample.url + "/ready")).status, 200);
    const lines = sample.output().split("\n").filter((l) => l.includes('"msg":"OTLP export failed"'));
    assert.equal(lines.length, 1, `logged once, then rate-limited:\n${lines.join("\n")}`);
    assert.match(lines[0]!, /"level":40/);
  });
});
