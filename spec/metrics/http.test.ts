// The HTTP metrics layer, the metrics() plugin and the process and job-queue collectors:
// route-pattern labels (never the raw path; unmatched requests share one label value), method
// normalisation, status codes, body sizes, the active-requests gauge during a slow request, the
// label-set limit through the layer, the scrape route (formats by Accept, hidden from OpenAPI,
// protected by its layers), and `promtool check metrics` on a real app's /metrics.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { ApiError, App, created, route, silentLogger, t, path, text, type Layer, type ListeningServer } from "../../lib/index.js";
import { JobQueue, defineJob } from "../../lib/jobs/index.js";
import { openApiDocument } from "../../lib/openapi/index.js";
import { MetricsRegistry, httpMetrics, jobQueueMetrics, metrics, processMetrics, OPENMETRICS_CONTENT_TYPE, PROMETHEUS_CONTENT_TYPE } from "../../lib/metrics/index.js";
import { send } from "../support/http.js";

/** The value of the sample written as `series` (name and braces), or undefined when absent. */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split("\n").find((l) => l.startsWith(series + " "));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

function labels(method: string, routePattern: string, status: number): string {
  return `{http_request_method="${method}",http_route="${routePattern}",http_response_status_code="${status}"}`;
}

const duration = (method: string, routePattern: string, status: number) => "http_server_request_duration_seconds_count" + labels(method, routePattern, status);

function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((ok) => (open = ok));
  return { promise, open };
}

function appWith(registry: MetricsRegistry): App {
  return new App({ logger: silentLogger })
    .layer(httpMetrics(registry))
    .routes(
      route.get("/users/{id}", [path("id", t.integer())], (id) => ({ id })),
      route.post("/users", [text()], (body) => created({ length: body.length })),
      route.get("/forbidden", [], () => {
        throw ApiError.forbidden("no");
      }),
      route.method("PURGE")("/cache", [], () => "purged"),
    );
}

describe("httpMetrics()", () => {
  it("labels by route pattern: two ids on /users/{id} share one series, the raw path is never a label", async () => {
    const registry = new MetricsRegistry();
    const app = appWith(registry);
    assert.equal((await app.inject({ url: "/users/1" })).status, 200);
    assert.equal((await app.inject({ url: "/users/22" })).status, 200);
    const text = await registry.expose();
    assert.equal(sample(text, duration("GET", "/users/{id}", 200)), 2);
    assert.doesNotMatch(text, /\/users\/1|\/users\/22/);
  });

  it("gives every unmatched request the same empty route: 404s share one series, 405s another", async () => {
    const registry = new MetricsRegistry();
    const app = appWith(registry);
    assert.equal((await app.inject({ url: "/nowhere" })).status, 404);
    assert.equal((await app.inject({ url: "/elsewhere/deep?x=1" })).status, 404);
    assert.equal((await app.inject({ method: "DELETE", url: "/users/3" })).status, 405);
    const text = await registry.expose();
    assert.equal(sample(text, duration("GET", "", 404)), 2);
    assert.equal(sample(text, duration("DELETE", "", 405)), 1);
    assert.doesNotMatch(text, /nowhere|elsewhere/);
  });

  it("normalises methods: known ones keep their name, any other is _OTHER", async () => {
    const registry = new MetricsRegistry();
    const app = appWith(registry);
    assert.equal((await app.inject({ method: "PURGE", url: "/cache" })).status, 200);
    assert.equal((await app.inject({ method: "FOOBAR", url: "/nowhere" })).status, 404);
    assert.equal((await app.inject({ method: "HEAD", url: "/users/1" })).status, 200);
    const text = await registry.expose();
    assert.equal(sample(text, duration("_OTHER", "/cache", 200)), 1);
    assert.equal(sample(text, duration("_OTHER", "", 404)), 1);
    assert.equal(sample(text, duration("HEAD", "/users/{id}", 200)), 1);
    assert.doesNotMatch(text, /PURGE|FOOBAR/);
  });

  it("records the status sent: 201, a 422 from an extractor, a 403 from the handler", async () => {
    const registry = new MetricsRegistry();
    const app = appWith(registry);
    assert.equal((await app.inject({ method: "POST", url: "/users", body: "hello", headers: { "content-type": "text/plain" } })).status, 201);
    const bad = await app.inject({ url: "/users/abc" });
    assert.equal(bad.status, 422);
    assert.equal(bad.json<{ error: { type: string } }>().error.type, "validation_error");
    assert.equal((await app.inject({ url: "/forbidden" })).status, 403);
    const text = await registry.expose();
    assert.equal(sample(text, duration("POST", "/users", 201)), 1);
    assert.equal(sample(text, duration("GET", "/users/{id}", 422)), 1);
    assert.equal(sample(text, duration("GET", "/forbidden", 403)), 1);
  });

  it("observes request and response body sizes in bytes (0 for a bodyless request and a HEAD answer)", async () => {
    const registry = new MetricsRegistry();
    const app = appWith(registry);
    const post = await app.inject({ method: "POST", url: "/users", body: "héllo", headers: { "content-type": "text/plain" } });
    const get = await app.inject({ url: "/users/7" });
    await app.inject({ method: "HEAD", url: "/users/7" });
    const text = await registry.expose();
    assert.equal(sample(text, "http_server_request_body_size_bytes_sum" + labels("POST", "/users", 201)), 6);
    assert.equal(sample(text, "http_server_response_body_size_bytes_sum" + labels("POST", "/users", 201)), post.rawBody.length);
    assert.equal(sample(text, "http_server_request_body_size_bytes_sum" + labels("GET", "/users/{id}", 200)), 0);
    assert.equal(sample(text, "http_server_response_body_size_bytes_sum" + labels("GET", "/users/{id}", 200)), get.rawBody.length);
    assert.equal(sample(text, "http_server_response_body_size_bytes_sum" + labels("HEAD", "/users/{id}", 200)), 0);
    assert.equal(sample(text, "http_server_response_body_size_bytes_count" + labels("HEAD", "/users/{id}", 200)), 1);
  });

  it("uses the OpenTelemetry duration buckets", async () => {
    const registry = new MetricsRegistry();
    await appWith(registry).inject({ url: "/users/1" });
    const les = [...(await registry.expose()).matchAll(/^http_server_request_duration_seconds_bucket\{.*?le="([^"]+)"\}/gm)].map((m) => m[1]);
    assert.deepEqual(les, ["0.005", "0.01", "0.025", "0.05", "0.075", "0.1", "0.25", "0.5", "0.75", "1", "2.5", "5", "7.5", "10", "+Inf"]);
  });

  it("counts a request as active while it runs and no longer once it is answered", async () => {
    const registry = new MetricsRegistry();
    const slow = gate();
    const entered = gate();
    const app = new App({ logger: silentLogger })
      .layer(httpMetrics(registry))
      .route(route.get("/slow", [], async () => {
        entered.open();
        await slow.promise;
        return "done";
      }));
    const active = () => registry.expose().then((s) => sample(s, 'http_server_active_requests{http_request_method="GET"}'));
    const pending = app.inject({ url: "/slow" });
    await entered.promise;
    assert.equal(await active(), 1);
    slow.open();
    assert.equal((await pending).json(), "done");
    assert.equal(await active(), 0);
  });

  it("keeps the layer within the label-set limit: refused series are counted per request, existing ones still record", async () => {
    const registry = new MetricsRegistry({ maxSeriesPerMetric: 2 });
    const app = appWith(registry);
    await app.inject({ url: "/users/1" });
    await app.inject({ url: "/nowhere" });
    await app.inject({ url: "/forbidden" });
    await app.inject({ url: "/forbidden" });
    await app.inject({ url: "/users/2" });
    const text = await registry.expose();
    assert.equal(sample(text, duration("GET", "/users/{id}", 200)), 2);
    assert.equal(sample(text, duration("GET", "", 404)), 1);
    assert.equal(sample(text, duration("GET", "/forbidden", 403)), undefined);
    assert.equal(sample(text, 'keel_metrics_label_overflow_total{metric="http_server_request_duration_seconds"}'), 2);
    assert.equal(sample(text, 'keel_metrics_label_overflow_total{metric="http_server_response_body_size_bytes"}'), 2);
  });

  it("shares its metrics when two layers use one registry", async () => {
    const registry = new MetricsRegistry();
    const a = new App({ logger: silentLogger }).layer(httpMetrics(registry)).route(route.get("/a", [], () => "a"));
    const b = new App({ logger: silentLogger }).layer(httpMetrics(registry)).route(route.get("/a", [], () => "b"));
    await a.inject({ url: "/a" });
    await b.inject({ url: "/a" });
    assert.equal(sample(await registry.expose(), duration("GET", "/a", 200)), 2);
  });
});

describe("metrics() plugin", () => {
  const registry = new MetricsRegistry();
  const requireToken: Layer = (ctx, next) => (ctx.header("authorization") === "Bearer scrape" ? next(ctx) : Promise.reject(ApiError.unauthorized("scrape token required")));
  const app = new App({ logger: silentLogger })
    .register(metrics({ registry }))
    .route(route.get("/users/{id}", [path("id", t.integer())], (id) => ({ id })));
  const guarded = new App({ logger: silentLogger }).register(metrics({ registry: new MetricsRegistry(), path: "/internal/metrics", process: false, layers: [requireToken] }));

  it("answers GET /metrics in the Prometheus text format by default", async () => {
    await app.inject({ url: "/users/1" });
    const r = await app.inject({ url: "/metrics" });
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], PROMETHEUS_CONTENT_TYPE);
    assert.equal(r.headers["vary"], "accept");
    assert.equal(sample(r.body, duration("GET", "/users/{id}", 200)), 1);
    assert.doesNotMatch(r.body, /# EOF/);
  });

  it("answers OpenMetrics when the Accept header asks for it", async () => {
    const r = await app.inject({ url: "/metrics", headers: { accept: "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.2" } });
    assert.equal(r.headers["content-type"], OPENMETRICS_CONTENT_TYPE);
    assert.ok(r.body.endsWith("\n# EOF\n"));
    assert.match(r.body, /^# TYPE process_cpu_seconds counter$/m);
    assert.match(r.body, /^# UNIT http_server_request_duration_seconds seconds$/m);
  });

  it("is hidden from the OpenAPI document", () => {
    const def = app.routeTable().find((d) => d.path === "/metrics");
    assert.equal(def?.meta.hidden, true);
    const doc = openApiDocument(app) as { paths: Record<string, unknown> };
    assert.equal(doc.paths["/metrics"], undefined);
    assert.ok(doc.paths["/users/{id}"]);
  });

  it("reports the process: CPU, memory, heap, event-loop delay, start time, descriptors, resources", async () => {
    const body = (await app.inject({ url: "/metrics" })).body;
    for (const name of [
      "process_cpu_user_seconds_total",
      "process_cpu_system_seconds_total",
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
      "process_start_time_seconds",
      "nodejs_heap_size_used_bytes",
      "nodejs_heap_size_total_bytes",
      "nodejs_eventloop_delay_p99_seconds",
    ]) {
      const v = sample(body, name);
      assert.ok(v !== undefined && v >= 0, `${name} = ${v}`);
    }
    assert.ok(sample(body, "process_resident_memory_bytes")! > 0);
    assert.ok(Math.abs(sample(body, "process_start_time_seconds")! - (Date.now() / 1000 - process.uptime())) < 5);
    if (process.platform === "linux") assert.ok(sample(body, "process_open_fds")! > 0);
    assert.match(body, /^nodejs_active_resources\{type="[A-Za-z]+"\} \d+$/m);
  });

  it("counts garbage collections by kind", async () => {
    let body = "";
    // Allocate until the observer has reported a collection (its entries arrive asynchronously).
    for (let round = 0; round < 100 && !/^nodejs_gc_runs_total\{kind="/m.test(body); round++) {
      let keep: unknown[] = [];
      for (let i = 0; i < 200_000; i++) keep.push({ i });
      keep = [];
      await new Promise((ok) => setTimeout(ok, 5));
      body = await registry.expose();
    }
    assert.match(body, /^nodejs_gc_runs_total\{kind="(minor|major|incremental|weakcb)"\} [1-9]\d*$/m);
    assert.match(body, /^nodejs_gc_duration_seconds_total\{kind="(minor|major|incremental|weakcb)"\} \S+$/m);
  });

  it("serves at the configured path behind the route's layers (uniform 401 without the token)", async () => {
    const refused = await guarded.inject({ url: "/internal/metrics" });
    assert.equal(refused.status, 401);
    assert.equal(refused.json<{ error: { type: string } }>().error.type, "unauthorized");
    const ok = await guarded.inject({ url: "/internal/metrics", headers: { authorization: "Bearer scrape" } });
    assert.equal(ok.status, 200);
    assert.doesNotMatch(ok.body, /process_cpu/, "process: false");
    assert.equal((await guarded.inject({ url: "/metrics" })).status, 404);
  });
});

describe("jobQueueMetrics()", () => {
  it("reports a queue's jobs by state, phase and totals (read with the queue's async stats())", async () => {
    const job = defineJob({ name: "mail", payload: t.object({ to: t.string() }), handler: async () => {} });
    const queue = new JobQueue({ logger: silentLogger, jobs: [job] });
    await queue.enqueue(job, { to: "a" });
    await queue.enqueue(job, { to: "b" });
    const registry = new MetricsRegistry();
    registry.addCollector(jobQueueMetrics(queue, { queue: "mail" }));
    const body = await registry.expose();
    assert.equal(sample(body, 'keel_jobs{queue="mail",state="pending"}'), 2);
    assert.equal(sample(body, 'keel_jobs{queue="mail",state="dead"}'), 0);
    assert.equal(sample(body, 'keel_jobs_enqueued_total{queue="mail"}'), 2);
    assert.equal(sample(body, 'keel_jobs_active{queue="mail"}'), 0);
    assert.equal(sample(body, 'keel_job_queue_phase{queue="mail",phase="idle"}'), 1);
    assert.equal(sample(body, 'keel_job_queue_phase{queue="mail",phase="running"}'), 0);
    assert.equal(sample(body, 'keel_metrics_collector_errors_total{collector="jobs:mail"}'), undefined);
  });
});

const promtool = spawnSync("promtool", ["--version"], { stdio: "ignore" }).status === 0;

describe("promtool check metrics", { skip: promtool ? false : "promtool is not installed (Debian package `prometheus`)" }, () => {
  let server: ListeningServer;
  const registry = new MetricsRegistry();
  before(async () => {
    const job = defineJob({ name: "noop", payload: t.object({}), handler: async () => {} });
    const queue = new JobQueue({ logger: silentLogger, jobs: [job] });
    await queue.enqueue(job, {});
    registry.addCollector(jobQueueMetrics(queue));
    const app = new App({ logger: silentLogger })
      .register(metrics({ registry }))
      .routes(
        route.get("/users/{id}", [path("id", t.integer())], (id) => ({ id })),
        route.post("/echo", [text()], (body) => body),
      );
    server = await app.listen({ port: 0 });
    await send(server.url + "/users/1");
    await send(server.url + "/users/x");
    await send(server.url + "/nowhere");
    await send(server.url + "/echo", { method: "POST", body: "hi", headers: { "content-type": "text/plain" } });
  });
  after(async () => {
    await server.close();
    registry.close();
  });

  it("accepts a real app's /metrics without errors or lint findings", async () => {
    const r = await send(server.url + "/metrics");
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], PROMETHEUS_CONTENT_TYPE);
    const check = spawnSync("promtool", ["check", "metrics"], { input: r.body, encoding: "utf8" });
    assert.equal(check.status, 0, `promtool: ${check.stdout}${check.stderr}`);
    assert.equal(check.stdout + check.stderr, "");
  });
});
