// The metrics registry and its expositions: byte-exact Prometheus 0.0.4 and OpenMetrics 1.0 text
// for small registries, escaping, cumulative histogram buckets with +Inf, _sum and _count, names
// checked at registration, the label-set limit exactly at its boundary, and Accept negotiation.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MetricsRegistry, negotiateMetricsFormat as negotiateFormat, type Collector } from "../../lib/metrics/index.js";

/** The two families every registry has, as each format writes them (no samples yet). */
const KEEL_PROMETHEUS =
  "# HELP keel_metrics_label_overflow_total Label sets refused because their metric reached its series limit.\n" +
  "# TYPE keel_metrics_label_overflow_total counter\n" +
  "# HELP keel_metrics_collector_errors_total Collectors that failed or timed out during a scrape.\n" +
  "# TYPE keel_metrics_collector_errors_total counter\n";
const KEEL_OPENMETRICS =
  "# HELP keel_metrics_label_overflow Label sets refused because their metric reached its series limit.\n" +
  "# TYPE keel_metrics_label_overflow counter\n" +
  "# HELP keel_metrics_collector_errors Collectors that failed or timed out during a scrape.\n" +
  "# TYPE keel_metrics_collector_errors counter\n";

function smallRegistry(): MetricsRegistry {
  const r = new MetricsRegistry();
  const requests = r.counter({ name: "jobs_done_total", help: "Jobs done.", labelNames: ["kind"] });
  requests.labels({ kind: "mail" }).inc();
  requests.labels({ kind: "mail" }).inc(2);
  requests.labels({ kind: "sms" }).inc(0.5);
  r.gauge({ name: "temperature_celsius", help: "Temperature.", unit: "celsius" }).set(-1.5);
  const h = r.histogram({ name: "wait_seconds", help: "Wait.", unit: "seconds", buckets: [0.1, 1, 2.5] });
  for (const v of [0.05, 0.1, 0.7, 2, 3]) h.observe(v);
  return r;
}

describe("exposition", () => {
  it("writes the Prometheus text format 0.0.4 byte for byte", async () => {
    const text = await smallRegistry().expose("prometheus");
    assert.equal(
      text,
      KEEL_PROMETHEUS +
        "# HELP jobs_done_total Jobs done.\n" +
        "# TYPE jobs_done_total counter\n" +
        'jobs_done_total{kind="mail"} 3\n' +
        'jobs_done_total{kind="sms"} 0.5\n' +
        "# HELP temperature_celsius Temperature.\n" +
        "# TYPE temperature_celsius gauge\n" +
        "temperature_celsius -1.5\n" +
        "# HELP wait_seconds Wait.\n" +
        "# TYPE wait_seconds histogram\n" +
        'wait_seconds_bucket{le="0.1"} 2\n' +
        'wait_seconds_bucket{le="1"} 3\n' +
        'wait_seconds_bucket{le="2.5"} 4\n' +
        'wait_seconds_bucket{le="+Inf"} 5\n' +
        "wait_seconds_sum 5.85\n" +
        "wait_seconds_count 5\n",
    );
  });

  it("writes OpenMetrics 1.0 byte for byte: family names without _total, units, float bounds, # EOF", async () => {
    const text = await smallRegistry().expose("openmetrics");
    assert.equal(
      text,
      KEEL_OPENMETRICS +
        "# HELP jobs_done Jobs done.\n" +
        "# TYPE jobs_done counter\n" +
        'jobs_done_total{kind="mail"} 3\n' +
        'jobs_done_total{kind="sms"} 0.5\n' +
        "# HELP temperature_celsius Temperature.\n" +
        "# TYPE temperature_celsius gauge\n" +
        "# UNIT temperature_celsius celsius\n" +
        "temperature_celsius -1.5\n" +
        "# HELP wait_seconds Wait.\n" +
        "# TYPE wait_seconds histogram\n" +
        "# UNIT wait_seconds seconds\n" +
        'wait_seconds_bucket{le="0.1"} 2\n' +
        'wait_seconds_bucket{le="1.0"} 3\n' +
        'wait_seconds_bucket{le="2.5"} 4\n' +
        'wait_seconds_bucket{le="+Inf"} 5\n' +
        "wait_seconds_sum 5.85\n" +
        "wait_seconds_count 5\n" +
        "# EOF\n",
    );
  });

  it("escapes label values (backslash, quote, newline) and help text per format", async () => {
    const r = new MetricsRegistry();
    r.gauge({ name: "g", help: 'say "hi" \\ bye\nnext', labelNames: ["v"] }).labels({ v: 'a\\b"c\nd' }).set(1);
    const prom = await r.expose("prometheus");
    assert.ok(prom.endsWith('# HELP g say "hi" \\\\ bye\\nnext\n# TYPE g gauge\ng{v="a\\\\b\\"c\\nd"} 1\n'), prom);
    const om = await r.expose("openmetrics");
    assert.ok(om.endsWith('# HELP g say \\"hi\\" \\\\ bye\\nnext\n# TYPE g gauge\ng{v="a\\\\b\\"c\\nd"} 1\n# EOF\n'), om);
  });

  it("keeps histogram buckets cumulative per label set, a value on a bound counting in that bucket", async () => {
    const r = new MetricsRegistry();
    const h = r.histogram({ name: "size_bytes", help: "Sizes.", buckets: [10, 100], labelNames: ["route"] });
    h.labels({ route: "/a" }).observe(10);
    h.labels({ route: "/a" }).observe(11);
    h.labels({ route: "/b" }).observe(1000);
    const text = await r.expose("prometheus");
    assert.ok(
      text.endsWith(
        'size_bytes_bucket{route="/a",le="10"} 1\nsize_bytes_bucket{route="/a",le="100"} 2\nsize_bytes_bucket{route="/a",le="+Inf"} 2\n' +
          'size_bytes_sum{route="/a"} 21\nsize_bytes_count{route="/a"} 2\n' +
          'size_bytes_bucket{route="/b",le="10"} 0\nsize_bytes_bucket{route="/b",le="100"} 0\nsize_bytes_bucket{route="/b",le="+Inf"} 1\n' +
          'size_bytes_sum{route="/b"} 1000\nsize_bytes_count{route="/b"} 1\n',
      ),
      text,
    );
  });

  it("writes special values the way Prometheus spells them", async () => {
    const r = new MetricsRegistry();
    const g = r.gauge({ name: "g", help: "G.", labelNames: ["k"] });
    g.labels({ k: "a" }).set(Infinity);
    g.labels({ k: "b" }).set(-Infinity);
    g.labels({ k: "c" }).set(NaN);
    assert.ok((await r.expose()).endsWith('g{k="a"} +Inf\ng{k="b"} -Inf\ng{k="c"} NaN\n'));
  });
});

describe("registration", () => {
  it("refuses invalid metric and label names, reserved labels and a unit the name does not end in", () => {
    const r = new MetricsRegistry();
    assert.throws(() => r.gauge({ name: "1abc", help: "x" }), /invalid metric name/);
    assert.throws(() => r.gauge({ name: "a-b", help: "x" }), /invalid metric name/);
    assert.throws(() => r.gauge({ name: "ok", help: "x", labelNames: ["bad-label"] }), /invalid label name/);
    assert.throws(() => r.gauge({ name: "ok", help: "x", labelNames: ["__name"] }), /reserved/);
    assert.throws(() => r.histogram({ name: "h", help: "x", labelNames: ["le"] }), /written by the metric type/);
    assert.throws(() => r.gauge({ name: "ok", help: "x", labelNames: ["a", "a"] }), /twice/);
    assert.throws(() => r.gauge({ name: "latency", help: "x", unit: "seconds" }), /ending in "_seconds"/);
    assert.throws(() => r.gauge({ name: "ok", help: "" }), /help text/);
    assert.throws(() => r.gauge({ name: "queued_total", help: "x" }), /only a counter/);
    assert.throws(() => r.histogram({ name: "h", help: "x", buckets: [1, 1] }), /strictly increasing/);
    assert.throws(() => r.histogram({ name: "h", help: "x", buckets: [1, NaN] }), /finite/);
  });

  it("refuses names whose samples would collide, and returns the same metric for the same definition", () => {
    const r = new MetricsRegistry();
    const h = r.histogram({ name: "req", help: "x", buckets: [1] });
    assert.throws(() => r.gauge({ name: "req_count", help: "x" }), /req_count/);
    assert.throws(() => r.counter({ name: "req_sum", help: "x" }), /req_sum/);
    const c = r.counter({ name: "hits_total", help: "Hits." });
    assert.equal(r.counter({ name: "hits", help: "Hits." }), c, "hits and hits_total are one counter");
    assert.throws(() => r.gauge({ name: "hits_total", help: "Hits." }), /only a counter/);
    assert.throws(() => r.counter({ name: "hits_total", help: "Other help." }), /another definition/);
    assert.equal(r.histogram({ name: "req", help: "x", buckets: [1] }), h);
    assert.throws(() => r.histogram({ name: "req", help: "x", buckets: [2] }), /another definition/);
  });

  it("checks label sets: every name, no other, string or number values", () => {
    const r = new MetricsRegistry();
    const c = r.counter({ name: "c_total", help: "x", labelNames: ["a", "b"] });
    assert.throws(() => c.labels({ a: "1" }), /label "b"/);
    assert.throws(() => c.labels({ a: "1", b: "2", z: "3" }), /unknown label "z"/);
    assert.throws(() => c.inc(), /has labels/);
    assert.throws(() => c.labels({ a: "1", b: "2" }).inc(-1), /cannot be increased/);
    assert.equal(c.labels({ a: "1", b: 2 }), c.labels({ a: "1", b: "2" }));
    // Length-prefixed keys: these two label sets stay apart.
    assert.notEqual(c.labels({ a: "x:1", b: "" }), c.labels({ a: "x", b: "1:" }));
  });
});

describe("label-set limit", () => {
  it("keeps exactly maxSeries label sets, refuses the next and counts each refusal", async () => {
    const r = new MetricsRegistry({ maxSeriesPerMetric: 3 });
    const c = r.counter({ name: "by_user_total", help: "x", labelNames: ["user"] });
    for (const u of ["a", "b", "c"]) c.labels({ user: u }).inc();
    assert.equal([...c.series()].length, 3);
    assert.equal(r.get("keel_metrics_label_overflow_total")!.series().next().done, true, "nothing refused at the limit");
    const refused = c.labels({ user: "d" });
    refused.inc(5);
    assert.equal(refused.attached, false);
    c.labels({ user: "e" }).inc();
    c.labels({ user: "a" }).inc(); // an existing label set still records
    const text = await r.expose();
    assert.match(text, /^keel_metrics_label_overflow_total\{metric="by_user"\} 2$/m);
    assert.match(text, /^by_user_total\{user="a"\} 2$/m);
    assert.doesNotMatch(text, /user="d"|user="e"/);
  });

  it("takes a per-metric limit over the registry's (default 1000)", () => {
    const r = new MetricsRegistry();
    const wide = r.gauge({ name: "wide", help: "x", labelNames: ["k"] });
    for (let i = 0; i < 1000; i++) assert.equal(wide.labels({ k: i }).attached, true);
    assert.equal(wide.labels({ k: 1000 }).attached, false);
    const narrow = r.gauge({ name: "narrow", help: "x", labelNames: ["k"], maxSeries: 1 });
    assert.equal(narrow.labels({ k: 0 }).attached, true);
    assert.equal(narrow.labels({ k: 1 }).attached, false);
  });
});

describe("collectors", () => {
  it("runs async collectors at each scrape and counts one that fails or is late, without failing the scrape", async () => {
    const r = new MetricsRegistry({ collectTimeout: 50 });
    let scrapes = 0;
    const counting: Collector = {
      name: "counting",
      attach(reg) {
        const g = reg.gauge({ name: "scrapes", help: "Scrapes." });
        return { collect: async () => { await new Promise((ok) => setImmediate(ok)); g.set(++scrapes); } };
      },
    };
    const broken: Collector = { name: "broken", attach: () => ({ collect: () => Promise.reject(new Error("down")) }) };
    const stuck: Collector = { name: "stuck", attach: () => ({ collect: () => new Promise<void>(() => {}) }) };
    r.addCollector(counting);
    r.addCollector(broken);
    const removeStuck = r.addCollector(stuck);
    assert.match(await r.expose(), /^scrapes 1$/m);
    const text = await r.expose();
    assert.match(text, /^scrapes 2$/m);
    assert.match(text, /^keel_metrics_collector_errors_total\{collector="broken"\} 2$/m);
    assert.match(text, /^keel_metrics_collector_errors_total\{collector="stuck"\} 2$/m);
    removeStuck();
    assert.match(await r.expose(), /^keel_metrics_collector_errors_total\{collector="stuck"\} 2$/m);
  });
});

describe("negotiateFormat", () => {
  const cases: Array<[string | undefined, "prometheus" | "openmetrics"]> = [
    [undefined, "prometheus"],
    ["*/*", "prometheus"],
    ["text/plain", "prometheus"],
    ["application/json", "prometheus"],
    ["application/openmetrics-text", "openmetrics"],
    ["application/openmetrics-text; version=1.0.0; charset=utf-8", "openmetrics"],
    ["application/openmetrics-text;version=0.0.1", "prometheus"],
    ["application/openmetrics-text;q=0", "prometheus"],
    ["application/openmetrics-text;q=0.5, text/plain", "prometheus"],
    ["text/plain;q=0.5, application/openmetrics-text", "openmetrics"],
    // What Prometheus sends.
    ["application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2", "openmetrics"],
    ["Application/OpenMetrics-Text; Version=\"1.0.0\"", "openmetrics"],
    // The one Accept parser ignores what does not parse (here a 5000-character non-range) rather
    // than the whole header.
    ["application/openmetrics-text, " + "x".repeat(5000), "openmetrics"],
    ["application/openmetrics-text;q=1e-1, text/plain;q=0.5", "prometheus"],
    ["text/plain;q=0, application/openmetrics-text;q=0.1", "openmetrics"],
    ["application/*", "prometheus"],
  ];
  for (const [accept, want] of cases) {
    it(`${JSON.stringify(accept)?.slice(0, 80)} → ${want}`, () => assert.equal(negotiateFormat(accept), want));
  }
});

describe("addCollector", () => {
  it("attaches a collector name once (a second process collector would count each GC twice)", async () => {
    const r = new MetricsRegistry();
    let attached = 0;
    const make = (): Collector => ({ name: "same", attach: () => (attached++, { collect: () => {} }) });
    const remove = r.addCollector(make());
    r.addCollector(make())();
    assert.equal(attached, 1);
    remove();
    r.addCollector(make());
    assert.equal(attached, 2, "attachable again once detached");
  });
});
