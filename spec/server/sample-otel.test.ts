// The sample as a process with OTEL_EXPORTER_OTLP_ENDPOINT set: its request spans reach a
// loopback OTLP/HTTP receiver in the OTLP JSON shape, with the service name and the
// semantic-convention attributes (route pattern, not the raw path), and an incoming traceparent's
// trace id; the queue is flushed on SIGTERM.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { attrsOf, checkOtlpTraces, startReceiver } from "../otel/otlp-receiver.js";
import { send } from "../support/http.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "lib/sample/main.ts");

describe("sample span export", () => {
  it("exports the request spans to OTEL_EXPORTER_OTLP_ENDPOINT and flushes them on shutdown", { timeout: 60_000 }, async () => {
    const receiver = await startReceiver();
    const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: "test", KEEL_ENV: "development", PORT: "0", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "sample-under-test", OTEL_BSP_SCHEDULE_DELAY: "60000" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let stdout = "";
      const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line: ${stdout}`)), 20_000);
        child.stdout.on("data", (d: Buffer) => {
          stdout += d.toString();
          const m = /"msg":"listening","url":"([^"]+)"/.exec(stdout);
          if (m) (clearTimeout(timer), resolve(m[1]!));
        });
      });
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
      const r = await send(url + "/users/1", { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
      assert.equal(r.status, 200);
      // The schedule delay is a minute: only the shutdown flush can send the span now.
      child.kill("SIGTERM");
      assert.equal(await exited, 0, stdout);
      assert.ok(receiver.received.length >= 1, "the exporter posted on shutdown");
      const post = receiver.received[0]!;
      assert.equal(post.path, "/v1/traces");
      assert.match(String(post.headers["content-type"]), /^application\/json/);
      const traces = checkOtlpTraces(post.body);
      assert.equal(traces.resource["service.name"], "sample-under-test");
      const server = traces.spans.find((s) => s.kind === 2 && s.traceId === traceId);
      assert.ok(server, `a server span of the incoming trace: ${post.body.slice(0, 500)}`);
      const attrs = attrsOf(server);
      assert.equal(attrs["http.request.method"], "GET");
      assert.equal(attrs["http.route"], "/users/{id}");
      assert.equal(attrs["url.path"], "/users/1");
      assert.equal(String(attrs["http.response.status_code"]), "200");
      assert.equal(server.parentSpanId, "00f067aa0ba902b7");
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await receiver.close();
    }
  });
});
