// otlpExporter()'s POSTs go through a worker thread (transport "worker", the default), so that
// node's HTTP client never runs in the server's isolate: nothing is posted from the main thread,
// the bytes on the wire are those of the inline transport, retries work, the worker never keeps
// the process alive, shutdown() ends it, and when it dies the exporter posts in-process instead.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import diagnosticsChannel from "node:diagnostics_channel";
import { after, before, describe, it } from "node:test";
import type { Worker } from "node:worker_threads";
import type { SpanRecord } from "../../lib/service/index.js";
import { KEEL_SCOPE, otlpExporter, otlpTracesRequestJson, otlpTracesRequestProtobuf, type OtlpExporter, type OtlpExporterOptions } from "../../lib/otel/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { selfSignedCertificate } from "../support/test-certificate.js";
import { startReceiver, type Receiver } from "./otlp-receiver.js";

let seq = 0;
function record(): SpanRecord {
  seq++;
  return {
    name: `op ${seq} é`,
    kind: "server",
    traceId: seq.toString(16).padStart(32, "c"),
    spanId: seq.toString(16).padStart(16, "d"),
    parentSpanId: "",
    traceFlags: "01",
    startTime: 1_700_000_000_000 + seq,
    durationMs: 2.25,
    status: "ok",
    requestId: `req-${seq}`,
    attributes: { "http.route": "/users/{id}", "http.response.status_code": 200 },
  };
}

/** The exporter's worker thread, through its hidden test hook. */
function workerOf(e: OtlpExporter): Worker | null {
  return (e as unknown as Record<symbol, () => Worker | null>)[Symbol.for("keel.otel.exportWorker")]!();
}

/** Counts HTTP client requests started in this thread (the channel is per thread). */
function clientRequestsHere(): { readonly count: number; stop(): void } {
  const counter = { count: 0, stop: () => diagnosticsChannel.unsubscribe("http.client.request.start", onStart) };
  const onStart = (): void => void counter.count++;
  diagnosticsChannel.subscribe("http.client.request.start", onStart);
  return counter;
}

describe("otlpExporter(): POSTs from a worker thread", () => {
  let receiver: Receiver;
  const exporters: OtlpExporter[] = [];
  const make = (options: OtlpExporterOptions = {}): OtlpExporter => {
    const e = otlpExporter({ url: receiver.url + "/v1/traces", scheduleDelayMs: 60_000, retry: { initialBackoffMs: 1, maxBackoffMs: 5 }, ...options });
    exporters.push(e);
    return e;
  };
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await Promise.all(exporters.map((e) => e.shutdown()));
    await receiver.close();
  });

  it("posts from the worker: the collector gets the batch while this thread starts no HTTP request", async () => {
    const e = make();
    // Issue 34: with the exporter, before a server takes requests (export-worker-feedback.test.ts).
    assert.ok(workerOf(e) !== null, "the worker starts when the exporter is made");
    const requests = clientRequestsHere();
    const before = receiver.received.length;
    e(record());
    await e.flush();
    requests.stop();
    assert.equal(receiver.received.length, before + 1);
    assert.equal(requests.count, 0, "no http.request() in the main thread");
    assert.equal(e.stats().exported, 1);
    assert.equal(e.stats().transport, "worker");
    assert.ok(workerOf(e)!.threadId > 0);
  });

  it('transport "inline" posts from this thread (the check above would see it)', async () => {
    const e = make({ transport: "inline" });
    const requests = clientRequestsHere();
    e(record());
    await e.flush();
    requests.stop();
    assert.equal(requests.count, 1);
    assert.equal(e.stats().transport, "inline");
    assert.equal(workerOf(e), null);
  });

  for (const protocol of ["http/json", "http/protobuf"] as const) {
    it(`${protocol}: the bytes on the wire are those of the inline transport and of the encoder, batch after batch`, async () => {
      const spans = Array.from({ length: 7 }, record);
      const bodies: Buffer[][] = [];
      for (const transport of ["worker", "inline"] as const) {
        const e = make({ protocol, transport, maxExportBatchSize: 3 });
        const from = receiver.received.length;
        for (const s of spans) e(s);
        await e.flush();
        bodies.push(receiver.received.slice(from).map((r) => r.raw));
      }
      const [viaWorker, inline] = bodies as [Buffer[], Buffer[]];
      assert.equal(viaWorker.length, 3);
      const resource = { "service.name": "unknown_service:node", "telemetry.sdk.name": "keel", "telemetry.sdk.language": "nodejs", "telemetry.sdk.version": KEEL_SCOPE.version ?? "" };
      for (let i = 0; i < 3; i++) {
        const batch = spans.slice(i * 3, i * 3 + 3);
        const expected = protocol === "http/json" ? Buffer.from(otlpTracesRequestJson(batch, resource, KEEL_SCOPE), "utf8") : otlpTracesRequestProtobuf(batch, resource, KEEL_SCOPE);
        assert.ok(viaWorker[i]!.equals(inline[i]!), `batch ${i}: worker and inline bodies differ`);
        assert.ok(viaWorker[i]!.equals(expected), `batch ${i}: not the encoder's bytes`);
      }
    });
  }

  it("retries through the worker (429, then 503, then 200): the same bytes each time, and the buffer serves the next batch", async () => {
    const e = make({ maxExportBatchSize: 2 });
    const from = receiver.received.length;
    receiver.script({ status: 429 }, { status: 503, headers: { "retry-after": "0" } });
    e(record());
    e(record());
    await receiver.waitFor(from + 3);
    await e.flush();
    const tries = receiver.received.slice(from).map((r) => r.raw);
    assert.equal(tries.length, 3);
    assert.ok(tries[1]!.equals(tries[0]!) && tries[2]!.equals(tries[0]!), "every try sends the same body");
    assert.deepEqual({ exported: e.stats().exported, retries: e.stats().retries, failedBatches: e.stats().failedBatches }, { exported: 2, retries: 2, failedBatches: 0 });
    // The next batch is written into the buffer that came back from the worker.
    const next = [record(), record()];
    for (const s of next) e(s);
    await receiver.waitFor(from + 4);
    await e.flush();
    assert.deepEqual(
      receiver.received[from + 3]!.raw.toString("utf8"),
      otlpTracesRequestJson(next, { "service.name": "unknown_service:node", "telemetry.sdk.name": "keel", "telemetry.sdk.language": "nodejs", "telemetry.sdk.version": KEEL_SCOPE.version ?? "" }, KEEL_SCOPE),
    );
    assert.equal(e.stats().exported, 4);
  });

  it("shutdown() terminates the worker", async () => {
    const e = make();
    e(record());
    await e.flush();
    const worker = workerOf(e)!;
    const exited = new Promise<number>((resolve) => worker.once("exit", resolve));
    await e.shutdown();
    await exited;
    assert.equal(workerOf(e), null);
  });

  it("when the worker dies between exports, later exports are posted in-process and nothing is counted lost", async () => {
    const logger = captureLogger();
    const e = make({ logger });
    e(record());
    await e.flush();
    const worker = workerOf(e)!;
    await worker.terminate(); // as if it had crashed
    const from = receiver.received.length;
    const requests = clientRequestsHere();
    e(record());
    await e.flush();
    requests.stop();
    assert.equal(receiver.received.length, from + 1);
    assert.equal(requests.count, 1, "posted from this thread now");
    assert.deepEqual({ exported: e.stats().exported, failedBatches: e.stats().failedBatches, dropped: e.stats().dropped, transport: e.stats().transport }, { exported: 2, failedBatches: 0, dropped: 0, transport: "inline" });
    assert.ok(logger.records.some((r) => r.msg === "OTLP export worker unavailable: exporting in-process"));
  });

  it("when the worker dies during a POST, the batch (in shared memory, still here) is sent again in-process: nothing lost, nothing hangs", async () => {
    const e = make({ timeoutMs: 60_000 });
    const from = receiver.received.length;
    receiver.script("hang");
    e(record());
    const flushed = e.flush();
    await receiver.waitFor(from + 1);
    const requests = clientRequestsHere();
    await workerOf(e)!.terminate();
    await flushed;
    requests.stop();
    assert.equal(requests.count, 1, "the retry was posted from this thread");
    assert.equal(receiver.received.length, from + 2);
    const [first, again] = receiver.received.slice(from).map((r) => r.raw);
    assert.ok(first!.equals(again!), "the same bytes were sent again");
    assert.deepEqual(
      { exported: e.stats().exported, failedBatches: e.stats().failedBatches, dropped: e.stats().dropped, retries: e.stats().retries, transport: e.stats().transport },
      { exported: 1, failedBatches: 0, dropped: 0, retries: 1, transport: "inline" },
    );
    e(record());
    await e.flush();
    assert.deepEqual({ exported: e.stats().exported, transport: e.stats().transport }, { exported: 2, transport: "inline" });
  });

  /** Run `body` (after an `e` exporter to the receiver is made with `options`) in a child; its exit code, once it exits by itself. */
  const childExit = async (options: string, body: string): Promise<{ code: number | null; stderr: string }> => {
    const script = `
      import { otlpExporter } from ${JSON.stringify(new URL("../../lib/otel/index.ts", import.meta.url).href)};
      const e = otlpExporter({ url: ${JSON.stringify(receiver.url + "/v1/traces")}, maxExportBatchSize: 2, ${options} });
      const span = () => ({ name: "a", kind: "internal", traceId: "${"ab".repeat(16)}", spanId: "${"cd".repeat(8)}", parentSpanId: "", traceFlags: "01", startTime: Date.now(), durationMs: 1, status: "ok", requestId: "", attributes: {} });
      ${body}
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const kill = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on("exit", (c, s) => resolve([c, s])));
    clearTimeout(kill);
    assert.equal(signal, null, `the process had to be killed: ${stderr}`);
    return { code, stderr };
  };

  it("an idle worker never keeps the process alive", async () => {
    const from = receiver.received.length;
    // A full batch goes out and is answered; then nothing is in flight and the process must end by itself.
    const { code, stderr } = await childExit("", "e(span()); e(span()); await e.flush(); console.error(JSON.stringify(e.stats()));");
    assert.equal(code, 0, stderr);
    assert.equal(receiver.received.length, from + 1);
    assert.match(stderr, /"exported":2/);
  });

  it("a POST in flight keeps the process alive until it ends (here: its timeout), so a flush on the way out is not cut off", async () => {
    const from = receiver.received.length;
    receiver.script("hang");
    // Top-level await on the flush: if the worker let the event loop run dry meanwhile, node would
    // exit with 13 (unsettled top-level await) before the flush settled.
    // The first try hangs until its timeout, the retry (after a wait on a timer that would not hold
    // the process by itself) is answered: the flush must live through both.
    const { code, stderr } = await childExit("timeoutMs: 1500, retry: { maxAttempts: 2, initialBackoffMs: 200 }", "e(span()); e(span()); await e.flush(); console.error(JSON.stringify(e.stats()));");
    assert.equal(code, 0, stderr);
    assert.equal(receiver.received.length, from + 2, "the worker posted, timed out, and tried again");
    assert.match(stderr, /"exported":2,.*"retries":1/, "the flush saw the retry through");
  });

  it("exports over HTTPS from shared-memory batches, through the worker and in-process, JSON and protobuf", async () => {
    // A collector with a self-signed certificate, trusted by the child through NODE_EXTRA_CA_CERTS
    // (read at process start, by the main thread and the worker alike).
    const { key, cert } = selfSignedCertificate();
    const dir = mkdtempSync(join(tmpdir(), "keel-otlp-tls-"));
    try {
      writeFileSync(join(dir, "cert.pem"), cert);
      const bodies: Array<{ type: string; body: Buffer }> = [];
      const collector = createHttpsServer({ key, cert }, (req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          bodies.push({ type: String(req.headers["content-type"]), body: Buffer.concat(chunks) });
          res.writeHead(200, { "content-type": "application/json" }).end("{}");
        });
      });
      await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
      const port = (collector.address() as { port: number }).port;
      const script = `
        import { otlpExporter } from ${JSON.stringify(new URL("../../lib/otel/index.ts", import.meta.url).href)};
        const span = (i) => ({ name: "a", kind: "internal", traceId: "${"ab".repeat(16)}", spanId: "${"cd".repeat(8)}", parentSpanId: "", traceFlags: "01", startTime: 1700000000000, durationMs: 1, status: "ok", requestId: "", attributes: { i } });
        const out = [];
        for (const transport of ["worker", "inline"]) for (const protocol of ["http/json", "http/protobuf"]) {
          const e = otlpExporter({ url: "https://127.0.0.1:${port}/v1/traces", transport, protocol, maxExportBatchSize: 2 });
          for (let i = 0; i < 3; i++) e(span(i));
          await e.shutdown();
          const s = e.stats();
          out.push([transport, protocol, s.exported, s.failedBatches, s.transport]);
        }
        console.log(JSON.stringify(out));
      `;
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, "cert.pem") } });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      const kill = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      clearTimeout(kill);
      collector.close();
      assert.equal(code, 0, stderr);
      assert.deepEqual(JSON.parse(stdout), [
        ["worker", "http/json", 3, 0, "worker"],
        ["worker", "http/protobuf", 3, 0, "worker"],
        ["inline", "http/json", 3, 0, "inline"],
        ["inline", "http/protobuf", 3, 0, "inline"],
      ]);
      // Two batches (2 + 1 spans) per run, byte for byte what the encoders make of them.
      const spans = [0, 1, 2].map((i): SpanRecord => ({ name: "a", kind: "internal", traceId: "ab".repeat(16), spanId: "cd".repeat(8), parentSpanId: "", traceFlags: "01", startTime: 1700000000000, durationMs: 1, status: "ok", requestId: "", attributes: { i } }));
      // The exporter's resource without a service name: the SDK's fallback and the telemetry.sdk.* attributes.
      const resource = { "service.name": "unknown_service:node", "telemetry.sdk.name": "keel", "telemetry.sdk.language": "nodejs", "telemetry.sdk.version": KEEL_SCOPE.version };
      const json = [otlpTracesRequestJson(spans.slice(0, 2), resource, KEEL_SCOPE), otlpTracesRequestJson(spans.slice(2), resource, KEEL_SCOPE)].map((t) => Buffer.from(t));
      const protobuf = [otlpTracesRequestProtobuf(spans.slice(0, 2), resource, KEEL_SCOPE), otlpTracesRequestProtobuf(spans.slice(2), resource, KEEL_SCOPE)];
      const expected = [...json, ...protobuf, ...json, ...protobuf];
      assert.equal(bodies.length, expected.length);
      bodies.forEach((b, i) => {
        assert.equal(b.type, i % 4 < 2 ? "application/json" : "application/x-protobuf");
        assert.ok(b.body.equals(expected[i]!), `body ${i} differs from the encoder's`);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
