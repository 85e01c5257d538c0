// Issue 34, goal 4: in a server that samples spans, the access-log layer leaves room in V8's
// inlining budget for the kernel's reply steps it calls on every request (toReply, jsonReply, the
// Reply constructor). When they did not fit (the sampler's decision, finish() and setSampled were
// inlined into the layer first), the reply was built through V8's generic construct stub, ~300
// instructions a `/hello` (docs/operations/performance.md, "Per part (issue 34, goal 4)").
// Checked with --trace-turbo-inlining in a bundled child, as bench/instructions.mjs measures it,
// with an OTLP exporter sampling 1% and one sampling none. What V8 inlines depends on its version:
// asserted on Node 20, where it was measured; printed elsewhere.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import { bundledServerFixture, libPath as lib, runLoadedChild } from "./bundled-child.js";

const script = `
import { App, route, silentLogger } from ${lib("index.ts")};
import { production } from ${lib("service/index.ts")};
import { namedSampler, otlpExporter } from ${lib("otel/index.ts")};

const exporter = otlpExporter({ url: process.env.OTLP_URL, serviceName: "inlining", maxExportBatchSize: 50, scheduleDelayMs: 3_600_000, sampler: namedSampler("parentbased_traceidratio", Number(process.env.RATIO)) });
const app = new App({ logger: silentLogger });
production({ service: "inlining", logger: silentLogger, probes: false, accessLog: false, requestId: false, spans: { onSpan: exporter, sampler: exporter.sampler } }).register(app);
app.routes(route.get("/hello", [], () => "hello"));
const server = await app.listen({ port: 0, host: "127.0.0.1" });
process.stderr.write("PORT " + server.port + "\\n");
process.stdin.once("data", async () => {
  await exporter.shutdown({ timeoutMs: 1000 });
  // No process.exit(): the end of the event loop flushes C's stdout, where V8's trace went.
  await server.close();
  process.stdin.destroy();
});
`;

const fixture = bundledServerFixture("keel-inlining-", script);

/** The functions V8 inlined into accessLogLayer, in its last optimised compile, after `requests` GET /hello. */
async function inlinedIntoLayer(ratio: number, requests: number): Promise<string[]> {
  const printed = join(fixture.dir, `trace-${ratio}.txt`);
  await runLoadedChild(fixture.bundle, {
    flags: ["--trace-turbo-inlining", "--turbo-filter=accessLogLayer"],
    env: { RATIO: String(ratio), OTLP_URL: fixture.receiver.url + "/v1/traces" },
    stdoutFile: printed,
    requests,
    stdinLine: "done\n",
  });
  // One "Inlining <callee> into <caller>" line per inlined call; a function compiled again starts
  // its list anew at its first inlinee, so only the lines after the last compile's start count.
  const inlined: string[] = [];
  for (const line of readFileSync(printed, "utf8").split("\n")) {
    const m = /^Inlining 0x[0-9a-f]+ \{0x[0-9a-f]+ <SharedFunctionInfo ?([^>]*)>\} into .*<SharedFunctionInfo ?([^>]*)>\}/.exec(line);
    if (m !== null && m[2] === "accessLogLayer") inlined.push(m[1]!);
  }
  return inlined;
}

it("the kernel's reply steps are inlined into the access-log layer, exporting 1% of spans and exporting none", async () => {
  for (const ratio of [0.01, 0]) {
    const inlined = await inlinedIntoLayer(ratio, 20_000);
    console.log(`ratio ${ratio}: inlined into accessLogLayer (node ${process.version}): ${inlined.join(", ")}`);
    if (!process.version.startsWith("v20.")) continue;
    assert.ok(inlined.includes("finishPlain"), `ratio ${ratio}: finishPlain`);
    assert.ok(inlined.includes("toReply"), `ratio ${ratio}: toReply`);
    assert.ok(inlined.includes("Reply"), `ratio ${ratio}: the Reply constructor`);
  }
});
