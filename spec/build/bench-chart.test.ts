// bench/harness/chart.mjs, the bench's dependency-free SVG writer: from a results object of
// bench/run.mjs it draws well-formed SVG with one bar per server and scenario, bar heights in
// proportion to the ratios, and the committed docs/operations/performance.svg is what its data
// file draws today.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import { root } from "./build-support.js";

interface ChartData {
  title: string;
  subtitle?: string;
  unit: string;
  ratio: boolean;
  groups: Array<{ label: string; values: Record<string, number | null | undefined> }>;
}
interface ChartModule {
  chartDataFromResults(results: unknown): ChartData;
  renderChart(data: ChartData): string;
  writeChartFile(results: unknown, file: string, log?: (line: string) => void): void;
}
const chart = (await import(pathToFileURL(join(root, "bench/harness/chart.mjs")).href)) as ChartModule;

/** A cell as run.mjs's http matrix writes it (only the fields the chart reads, plus a few). */
function cell(impl: string, pipelining: number, reqPerSec: number, rawReqPerSec: number | undefined) {
  return { impl, pipelining, starts: 3, reqPerSec, ratios: rawReqPerSec === undefined || impl === "raw" ? {} : { raw: { reqPerSec: reqPerSec / rawReqPerSec, cpu: 1 } } };
}

const FIXTURE = {
  date: "2026-11-22T10:00:00.000Z",
  mode: "full",
  git: "c5d110d",
  machine: { cpuModel: "AMD EPYC <test> & co", cpus: 2, node: "v20.20.2" },
  http: {
    scenarios: [
      {
        id: "hello",
        cells: [cell("keel", 1, 38_000, 40_000), cell("raw", 1, 40_000, 40_000), cell("fastify", 1, 30_000, 40_000), cell("hono", 1, 16_000, 40_000), cell("keel", 10, 57_000, 58_000), cell("raw", 10, 58_000, 58_000), cell("fastify", 10, 50_000, 58_000)],
      },
      // keel-schemas is not one of the charted servers; Hono did not run here.
      { id: "post", cells: [cell("keel", 10, 30_000, 36_000), cell("raw", 10, 36_000, 36_000), cell("keel-schemas", 10, 29_000, 36_000)] },
    ],
  },
};

/**
 * Well-formed XML, checked by hand (no parser in node): every tag closes in order, attributes are
 * quoted, `&` only starts an entity, no `<` in text; one root element, `svg` in the SVG namespace.
 */
function assertWellFormedSvg(svg: string): void {
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" /);
  assert.doesNotMatch(svg, /NaN|undefined|Infinity|null/);
  const stack: string[] = [];
  let roots = 0;
  const token = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/g;
  for (const m of svg.matchAll(token)) {
    const [, closing, name, attrs, selfClosing, text, stray] = m;
    if (stray !== undefined) assert.fail(`malformed tag at ${m.index}: ${svg.slice(m.index, m.index + 40)}`);
    if (text !== undefined) {
      if (stack.length === 0) assert.equal(text.trim(), "", "text outside the root element");
      assert.doesNotMatch(text, /&(?!(?:amp|lt|gt|quot|#\d+);)/, `bare & in ${JSON.stringify(text)}`);
      continue;
    }
    assert.doesNotMatch(attrs ?? "", /&(?!(?:amp|lt|gt|quot|#\d+);)/, `bare & in attributes of <${name}>`);
    if (closing === "/") assert.equal(stack.pop(), name, `</${name}> closes another element`);
    else {
      if (stack.length === 0) roots++;
      if (selfClosing !== "/") stack.push(name!);
    }
  }
  assert.deepEqual(stack, [], "every element is closed");
  assert.equal(roots, 1, "one root element");
}

/** The bars: their tooltips and heights. */
function bars(svg: string): Array<{ title: string; height: number }> {
  return [...svg.matchAll(/<rect [^>]*height="([\d.]+)"[^>]*><title>([^<]*)<\/title><\/rect>/g)].map((m) => ({ title: m[2]!, height: Number(m[1]) }));
}

describe("bench chart (bench/harness/chart.mjs)", () => {
  it("draws well-formed SVG: a bar per charted server and cell, heights in proportion to req/s ÷ raw", () => {
    const data = chart.chartDataFromResults(FIXTURE);
    assert.deepEqual(
      data.groups.map((g) => g.label),
      ["hello p1", "hello p10", "post p10"],
    );
    assert.equal(data.ratio, true);
    assert.match(data.subtitle ?? "", /2026-11-22.*Node v20\.20\.2.*c5d110d/);
    const svg = chart.renderChart(data);
    assertWellFormedSvg(svg);
    assert.ok(svg.includes("AMD EPYC &lt;test&gt; &amp; co"), "text is escaped");
    const drawn = bars(svg);
    // 4 + 3 + 2 cells of keel/raw/Fastify/Hono; keel-schemas is not drawn.
    assert.equal(drawn.length, 9);
    assert.ok(!svg.includes("keel (response schemas)") && !svg.includes("keel-schemas"));
    const height = (title: string): number => drawn.find((b) => b.title.startsWith(title))!.height;
    assert.equal(drawn.find((b) => b.title.startsWith("keel, hello p1"))!.title, "keel, hello p1: 0.95× raw");
    // raw is drawn at 1; keel's bar is 0.95 of it, Hono's 0.40.
    assert.ok(Math.abs(height("keel, hello p1") / height("raw node:http, hello p1") - 0.95) < 0.01);
    assert.ok(Math.abs(height("Hono 4, hello p1") / height("raw node:http, hello p1") - 0.4) < 0.01);
  });

  it("without raw in the run it charts plain req/s", () => {
    const results = { ...FIXTURE, http: { scenarios: [{ id: "hello", cells: [cell("keel", 10, 57_000, undefined), cell("fastify", 10, 50_000, undefined)] }] } };
    const data = chart.chartDataFromResults(results);
    assert.equal(data.ratio, false);
    assert.deepEqual(data.groups[0]!.values, { keel: 57_000, fastify: 50_000 });
    const svg = chart.renderChart(data);
    assertWellFormedSvg(svg);
    assert.deepEqual(bars(svg).map((b) => b.title), ["keel, hello p10: 57,000 req/s", "Fastify 5, hello p10: 50,000 req/s"]);
  });

  it("writes the file beside the results, and nothing when no HTTP scenario ran (never throws)", () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-chart-"));
    try {
      const lines: string[] = [];
      chart.writeChartFile(FIXTURE, join(dir, "chart.svg"), (l) => lines.push(l));
      assertWellFormedSvg(readFileSync(join(dir, "chart.svg"), "utf8"));
      chart.writeChartFile({ http: { scenarios: [] } }, join(dir, "empty.svg"));
      assert.equal(existsSync(join(dir, "empty.svg")), false);
      chart.writeChartFile(FIXTURE, join(dir, "missing-dir", "chart.svg"), (l) => lines.push(l));
      assert.match(lines.at(-1)!, /^chart not written: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("docs/operations/performance.svg is what docs/operations/performance.json draws", () => {
    const data = JSON.parse(readFileSync(join(root, "docs/operations/performance.json"), "utf8")) as ChartData;
    const committed = readFileSync(join(root, "docs/operations/performance.svg"), "utf8");
    assertWellFormedSvg(committed);
    assert.equal(committed, chart.renderChart(data), "regenerate: node bench/harness/chart.mjs docs/operations/performance.json docs/operations/performance.svg");
  });
});
