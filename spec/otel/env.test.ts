// Configuration from the OTEL_* variables: names, precedence and defaults of the SDK spec, and a
// TypeError naming the variable for every value that cannot be used.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { readFileSync } from "node:fs";
import { KEEL_SCOPE, otlpConfigFromEnv, otlpExporterFromEnv, UNKNOWN_SERVICE } from "../../lib/otel/index.js";
import type { SpanRecord } from "../../lib/service/index.js";
import { checkOtlpTraces, startReceiver, type Receiver } from "./otlp-receiver.js";

const span: SpanRecord = {
  name: "op",
  kind: "internal",
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  parentSpanId: "",
  traceFlags: "01",
  startTime: Date.now(),
  durationMs: 2,
  status: "ok",
  requestId: "",
  attributes: {},
};

describe("otlpConfigFromEnv()", () => {
  it("defaults to the SDK's: localhost:4318, parentbased_always_on, no headers", () => {
    const { disabled, options } = otlpConfigFromEnv({});
    assert.equal(disabled, false);
    assert.equal(options.url, "http://localhost:4318/v1/traces");
    assert.deepEqual({ ...options.headers }, {});
    assert.equal(options.sampler?.description, "ParentBased{root=AlwaysOnSampler}");
    assert.equal(options.timeoutMs, undefined);
    assert.equal(options.scheduleDelayMs, undefined);
  });

  it("appends /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT (with or without a trailing slash, keeping a path)", () => {
    assert.equal(otlpConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example:4318" }).options.url, "https://otel.example:4318/v1/traces");
    assert.equal(otlpConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example/" }).options.url, "https://otel.example/v1/traces");
    assert.equal(otlpConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://gw.example/otlp/" }).options.url, "http://gw.example/otlp/v1/traces");
  });

  it("uses OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, over the general endpoint", () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://a.example", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://b.example/custom/path" };
    assert.equal(otlpConfigFromEnv(env).options.url, "http://b.example/custom/path");
  });

  it("treats empty variables as unset", () => {
    const { options } = otlpConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_TRACES_SAMPLER: " ", OTEL_BSP_MAX_QUEUE_SIZE: "" });
    assert.equal(options.url, "http://localhost:4318/v1/traces");
    assert.equal(options.maxQueueSize, undefined);
  });

  it("reads headers as k=v,k2=v2, percent-decoded, traces-specific ones winning per key", () => {
    const { options } = otlpConfigFromEnv({
      OTEL_EXPORTER_OTLP_HEADERS: "api-key=a%20b%3Dc, x-tenant = acme ,x-both=general",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-both=traces",
    });
    assert.deepEqual({ ...options.headers }, { "api-key": "a b=c", "x-tenant": "acme", "x-both": "traces" });
  });

  it("reads timeouts and the batch processor's settings", () => {
    const { options } = otlpConfigFromEnv({
      OTEL_EXPORTER_OTLP_TIMEOUT: "2500",
      OTEL_BSP_SCHEDULE_DELAY: "0",
      OTEL_BSP_MAX_QUEUE_SIZE: "100",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "100",
      OTEL_BSP_EXPORT_TIMEOUT: "7000",
    });
    assert.deepEqual(
      [options.timeoutMs, options.scheduleDelayMs, options.maxQueueSize, options.maxExportBatchSize, options.exportTimeoutMs],
      [2500, 0, 100, 100, 7000],
    );
    assert.equal(otlpConfigFromEnv({ OTEL_EXPORTER_OTLP_TIMEOUT: "2500", OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "900" }).options.timeoutMs, 900);
  });

  it("reads OTEL_RESOURCE_ATTRIBUTES; OTEL_SERVICE_NAME wins over its service.name", () => {
    const a = otlpConfigFromEnv({ OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attrs,deployment.environment.name=prod,team=a%2Cb" }).options;
    assert.deepEqual({ ...a.resource }, { "service.name": "from-attrs", "deployment.environment.name": "prod", team: "a,b" });
    const b = otlpConfigFromEnv({ OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attrs", OTEL_SERVICE_NAME: "from-name" }).options;
    assert.equal(b.resource?.["service.name"], "from-name");
  });

  it("names every sampler as the SDK does; the ratio comes from OTEL_TRACES_SAMPLER_ARG (default 1)", () => {
    const d = (env: Record<string, string>) => otlpConfigFromEnv(env).options.sampler?.description;
    assert.equal(d({ OTEL_TRACES_SAMPLER: "always_on" }), "AlwaysOnSampler");
    assert.equal(d({ OTEL_TRACES_SAMPLER: "always_off" }), "AlwaysOffSampler");
    assert.equal(d({ OTEL_TRACES_SAMPLER: "traceidratio" }), "TraceIdRatioBased{1}");
    assert.equal(d({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" }), "TraceIdRatioBased{0.25}");
    assert.equal(d({ OTEL_TRACES_SAMPLER: "parentbased_always_off" }), "ParentBased{root=AlwaysOffSampler}");
    assert.equal(d({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" }), "ParentBased{root=TraceIdRatioBased{0}}");
    assert.equal(d({ OTEL_TRACES_SAMPLER: "PARENTBASED_ALWAYS_ON" }), "ParentBased{root=AlwaysOnSampler}");
    assert.equal(d({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1" }), "TraceIdRatioBased{1}");
  });

  it("OTEL_SDK_DISABLED=true disables (any case); false and empty do not", () => {
    assert.equal(otlpConfigFromEnv({ OTEL_SDK_DISABLED: "TRUE" }).disabled, true);
    assert.equal(otlpConfigFromEnv({ OTEL_SDK_DISABLED: "false" }).disabled, false);
    assert.equal(otlpConfigFromEnv({ OTEL_SDK_DISABLED: "" }).disabled, false);
  });

  const invalid: Array<[Record<string, string>, string, RegExp]> = [
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318" }, "OTEL_EXPORTER_OTLP_ENDPOINT", /OTEL_EXPORTER_OTLP_ENDPOINT must be/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "grpc://collector:4317" }, "OTEL_EXPORTER_OTLP_ENDPOINT", /OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL/],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "not a url" }, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be/],
    [{ OTEL_EXPORTER_OTLP_HEADERS: "api-key" }, "OTEL_EXPORTER_OTLP_HEADERS", /OTEL_EXPORTER_OTLP_HEADERS: "api-key" is not key=value/],
    [{ OTEL_EXPORTER_OTLP_HEADERS: "=v" }, "OTEL_EXPORTER_OTLP_HEADERS", /OTEL_EXPORTER_OTLP_HEADERS/],
    [{ OTEL_EXPORTER_OTLP_TRACES_HEADERS: "k=%E0%A4%A" }, "OTEL_EXPORTER_OTLP_TRACES_HEADERS", /OTEL_EXPORTER_OTLP_TRACES_HEADERS: .* percent-encoding/],
    [{ OTEL_EXPORTER_OTLP_TIMEOUT: "10s" }, "OTEL_EXPORTER_OTLP_TIMEOUT", /OTEL_EXPORTER_OTLP_TIMEOUT must be an integer >= 1, got "10s"/],
    [{ OTEL_EXPORTER_OTLP_TIMEOUT: "0" }, "OTEL_EXPORTER_OTLP_TIMEOUT", /OTEL_EXPORTER_OTLP_TIMEOUT must be an integer >= 1/],
    [{ OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "-5" }, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", /OTEL_EXPORTER_OTLP_TRACES_TIMEOUT/],
    [{ OTEL_RESOURCE_ATTRIBUTES: "service.name" }, "OTEL_RESOURCE_ATTRIBUTES", /OTEL_RESOURCE_ATTRIBUTES: "service.name" is not key=value/],
    [{ OTEL_TRACES_SAMPLER: "sometimes" }, "OTEL_TRACES_SAMPLER", /OTEL_TRACES_SAMPLER must be one of always_on, always_off, traceidratio/],
    [{ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1.01" }, "OTEL_TRACES_SAMPLER_ARG", /OTEL_TRACES_SAMPLER_ARG must be a number in \[0, 1\]/],
    [{ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "half" }, "OTEL_TRACES_SAMPLER_ARG", /OTEL_TRACES_SAMPLER_ARG/],
    [{ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "-0.1" }, "OTEL_TRACES_SAMPLER_ARG", /OTEL_TRACES_SAMPLER_ARG/],
    [{ OTEL_BSP_SCHEDULE_DELAY: "5s" }, "OTEL_BSP_SCHEDULE_DELAY", /OTEL_BSP_SCHEDULE_DELAY must be an integer >= 0/],
    [{ OTEL_BSP_MAX_QUEUE_SIZE: "0" }, "OTEL_BSP_MAX_QUEUE_SIZE", /OTEL_BSP_MAX_QUEUE_SIZE must be an integer >= 1/],
    [{ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "1.5" }, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", /OTEL_BSP_MAX_EXPORT_BATCH_SIZE must be an integer/],
    [{ OTEL_BSP_MAX_QUEUE_SIZE: "100", OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "101" }, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", /OTEL_BSP_MAX_EXPORT_BATCH_SIZE \(101\) must not exceed OTEL_BSP_MAX_QUEUE_SIZE \(100\)/],
    [{ OTEL_BSP_MAX_QUEUE_SIZE: "511" }, "OTEL_BSP_MAX_QUEUE_SIZE", /must not exceed OTEL_BSP_MAX_QUEUE_SIZE \(511\)/],
    [{ OTEL_SDK_DISABLED: "yes" }, "OTEL_SDK_DISABLED", /OTEL_SDK_DISABLED must be "true" or "false", got "yes"/],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, "OTEL_EXPORTER_OTLP_PROTOCOL", /OTEL_EXPORTER_OTLP_PROTOCOL: keel exports OTLP over HTTP only \("http\/protobuf" or "http\/json"\), not "grpc"/],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" }, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", /not "grpc"/],
    [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/thrift" }, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be "http\/protobuf" or "http\/json", got "http\/thrift"/],
  ];
  for (const [env, name, message] of invalid) {
    it(`refuses ${name}=${JSON.stringify(Object.values(env).at(-1))} with a TypeError naming it`, () => {
      assert.throws(() => otlpConfigFromEnv(env), (err: unknown) => err instanceof TypeError && message.test(err.message) && err.message.includes(name));
      assert.throws(() => otlpExporterFromEnv(env), TypeError);
    });
  }

  it("accepts the limits themselves", () => {
    assert.doesNotThrow(() => otlpConfigFromEnv({ OTEL_BSP_MAX_QUEUE_SIZE: "512" }));
    assert.doesNotThrow(() => otlpConfigFromEnv({ OTEL_BSP_MAX_QUEUE_SIZE: "1", OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "1" }));
    assert.doesNotThrow(() => otlpConfigFromEnv({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" }));
    assert.doesNotThrow(() => otlpConfigFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }));
    assert.doesNotThrow(() => otlpConfigFromEnv({ OTEL_EXPORTER_OTLP_TIMEOUT: "1" }));
  });
});

describe("otlpExporterFromEnv(): end to end", () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  it("sends to the configured endpoint with the configured headers and resource", async () => {
    receiver.received.length = 0;
    const e = otlpExporterFromEnv(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20t0ken",
        OTEL_SERVICE_NAME: "checkout",
        OTEL_RESOURCE_ATTRIBUTES: "service.namespace=shop,deployment.environment.name=staging",
      },
      { serviceName: "ignored-by-env", resource: { "service.version": "9.9.9" } },
    );
    assert.equal(e.url, receiver.url + "/v1/traces");
    e(span);
    await e.shutdown();
    assert.equal(receiver.received.length, 1);
    const req = receiver.received[0]!;
    assert.equal(req.path, "/v1/traces");
    assert.equal(req.headers["authorization"], "Bearer t0ken");
    const body = checkOtlpTraces(req.body);
    assert.equal(body.resource["service.name"], "checkout");
    assert.equal(body.resource["service.namespace"], "shop");
    assert.equal(body.resource["deployment.environment.name"], "staging");
    assert.equal(body.resource["service.version"], "9.9.9", "code defaults stay where the environment is silent");
  });

  it("falls back to the code's serviceName, then to unknown_service:node", async () => {
    receiver.received.length = 0;
    const a = otlpExporterFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url + "/a" }, { serviceName: "from-code" });
    const b = otlpExporterFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url + "/b" });
    a(span);
    b(span);
    await a.shutdown();
    await b.shutdown();
    const byPath = new Map(receiver.received.map((r) => [r.path, checkOtlpTraces(r.body).resource["service.name"]]));
    assert.equal(byPath.get("/a"), "from-code");
    assert.equal(byPath.get("/b"), UNKNOWN_SERVICE);
  });

  it("OTEL_SDK_DISABLED=true: takes spans, sends nothing, has no sampler", async () => {
    receiver.received.length = 0;
    const e = otlpExporterFromEnv({ OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    e(span);
    await e.flush();
    await e.shutdown();
    assert.equal(receiver.received.length, 0);
    assert.equal(e.sampler, undefined);
    assert.equal(e.stats().exported, 0);
  });

  it("OTEL_BSP_MAX_EXPORT_BATCH_SIZE shapes the posts", async () => {
    receiver.received.length = 0;
    const e = otlpExporterFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "2", OTEL_BSP_SCHEDULE_DELAY: "60000" });
    for (let i = 0; i < 5; i++) e(span);
    await e.shutdown();
    assert.deepEqual(receiver.received.map((r) => checkOtlpTraces(r.body).spans.length), [2, 2, 1]);
  });
});

describe("the exporter's own version", () => {
  it("is the package's version (telemetry.sdk.version and the scope)", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    assert.equal(KEEL_SCOPE.version, pkg.version);
  });
});
