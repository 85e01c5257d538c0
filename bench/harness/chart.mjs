// The bench's chart: grouped bars, one group per scenario and pipelining level, one bar per
// server (keel, raw node:http, Fastify, Hono). A plain SVG string, written without a dependency
// so it can be committed and shown on GitHub (docs/operations/performance.svg).
//
// run.mjs writes bench/results/chart.svg after each HTTP run. By hand:
//   node bench/harness/chart.mjs [bench/results/latest.json] [out.svg]
// The input is a results JSON of run.mjs, or chart data already in the shape renderChart takes
// (docs/operations/performance.json: the dated table of docs/operations/performance.md).
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The servers charted, in bar order. Others (keel-schemas, opt-in variants) are left out. */
export const CHART_SERIES = [
  { id: "keel", label: "keel", color: "#2563eb" },
  { id: "raw", label: "raw node:http", color: "#9ca3af" },
  { id: "fastify", label: "Fastify 5", color: "#111827" },
  { id: "hono", label: "Hono 4", color: "#f97316" },
];

/**
 * @typedef {{ id: string, label: string, color: string }} ChartSeries
 * @typedef {{ label: string, values: Record<string, number | null | undefined> }} ChartGroup
 * @typedef {{ title: string, subtitle?: string, unit: string, ratio: boolean,
 *   series?: ChartSeries[], groups: ChartGroup[] }} ChartData
 */

/**
 * Chart data from a results object of run.mjs: per scenario and pipelining level, each server's
 * req/s ÷ raw node:http's in the same run (raw drawn at 1), or plain req/s when raw did not run.
 * @returns {ChartData}
 */
export function chartDataFromResults(results) {
  const scenarios = results?.http?.scenarios ?? [];
  const cells = scenarios.flatMap((s) => s.cells ?? []);
  const ratio = cells.some((c) => c.impl === "raw");
  const pipelinings = [...new Set(cells.map((c) => c.pipelining))].sort((a, b) => a - b);
  const groups = [];
  for (const s of scenarios) {
    for (const p of pipelinings) {
      const at = (s.cells ?? []).filter((c) => c.pipelining === p);
      if (at.length === 0) continue;
      const values = {};
      for (const series of CHART_SERIES) {
        const cell = at.find((c) => c.impl === series.id);
        if (cell === undefined) continue;
        values[series.id] = !ratio ? cell.reqPerSec : series.id === "raw" ? 1 : (cell.ratios?.raw?.reqPerSec ?? null);
      }
      groups.push({ label: `${s.id} p${p}`, values });
    }
  }
  const m = results?.machine ?? {};
  const when = typeof results?.date === "string" ? results.date.slice(0, 10) : "undated";
  const where = [m.cpuModel && `${m.cpuModel} ×${m.cpus}`, m.node && `Node ${m.node}`, results?.git && `commit ${results.git}`]
    .filter(Boolean)
    .join(", ");
  return {
    title: ratio ? "req/s ÷ raw node:http (higher is better; raw = 1)" : "req/s (raw node:http did not run)",
    subtitle: `npm run bench (${results?.mode ?? "?"}), ${when}${where ? `, ${where}` : ""}`,
    unit: ratio ? "× raw" : "req/s",
    ratio,
    groups,
  };
}

const escapeXml = (s) => String(s).replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&#39;" })[c]);
const num = (n) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/** The smallest "nice" axis maximum at or above `max` (1, 2, 2.5 or 5 times a power of ten). */
function niceMax(max) {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/**
 * The SVG text of a grouped bar chart. Missing values (a server that did not run) leave a gap;
 * each bar has a <title> with its exact value for readers who hover.
 * @param {ChartData} data
 * @returns {string}
 */
export function renderChart(data) {
  const series = data.series ?? CHART_SERIES;
  const groups = data.groups;
  const barW = 11;
  const barGap = 2;
  const groupGap = 20;
  const groupW = series.length * barW + (series.length - 1) * barGap;
  const left = 56;
  const right = 16;
  const top = 78;
  const plotH = 240;
  const bottom = 40;
  const width = Math.max(480, left + groups.length * (groupW + groupGap) + right);
  const height = top + plotH + bottom;
  const values = groups.flatMap((g) => series.map((s) => g.values[s.id])).filter((v) => typeof v === "number" && Number.isFinite(v));
  const yMax = niceMax(Math.max(data.ratio ? 1 : 0, ...values) * 1.05);
  const y = (v) => top + plotH - (Math.max(0, v) / yMax) * plotH;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="11" role="img" aria-labelledby="chart-title">`);
  out.push(`<title id="chart-title">${escapeXml(data.title)}${data.subtitle ? ` — ${escapeXml(data.subtitle)}` : ""}</title>`);
  out.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="${left}" y="20" font-size="14" font-weight="600" fill="#111827">${escapeXml(data.title)}</text>`);
  if (data.subtitle) out.push(`<text x="${left}" y="38" fill="#4b5563">${escapeXml(data.subtitle)}</text>`);
  // Legend.
  let lx = left;
  for (const s of series) {
    out.push(`<rect x="${lx}" y="50" width="10" height="10" fill="${escapeXml(s.color)}"/>`);
    out.push(`<text x="${lx + 14}" y="59" fill="#111827">${escapeXml(s.label)}</text>`);
    lx += 24 + s.label.length * 6.5;
  }
  // Axis and grid.
  const ticks = 5;
  for (let i = 0; i <= ticks; i++) {
    const v = (yMax * i) / ticks;
    const ty = num(y(v));
    out.push(`<line x1="${left}" y1="${ty}" x2="${width - right}" y2="${ty}" stroke="#e5e7eb"/>`);
    const label = data.ratio ? v.toFixed(2) : Math.round(v).toLocaleString("en-US");
    out.push(`<text x="${left - 6}" y="${num(y(v) + 4)}" text-anchor="end" fill="#4b5563">${escapeXml(label)}</text>`);
  }
  out.push(`<text x="14" y="${num(top + plotH / 2)}" text-anchor="middle" fill="#4b5563" transform="rotate(-90 14 ${num(top + plotH / 2)})">${escapeXml(data.unit)}</text>`);
  if (data.ratio) out.push(`<line x1="${left}" y1="${num(y(1))}" x2="${width - right}" y2="${num(y(1))}" stroke="#6b7280" stroke-dasharray="4 3"/>`);
  // Bars.
  groups.forEach((g, gi) => {
    const gx = left + groupGap / 2 + gi * (groupW + groupGap);
    series.forEach((s, si) => {
      const v = g.values[s.id];
      if (typeof v !== "number" || !Number.isFinite(v)) return;
      const x = gx + si * (barW + barGap);
      const shown = data.ratio ? `${v.toFixed(2)}${data.unit}` : `${Math.round(v).toLocaleString("en-US")} ${data.unit}`;
      out.push(
        `<rect x="${num(x)}" y="${num(y(v))}" width="${barW}" height="${num(top + plotH - y(v))}" fill="${escapeXml(s.color)}"><title>${escapeXml(`${s.label}, ${g.label}: ${shown}`)}</title></rect>`,
      );
    });
    const [first, ...rest] = g.label.split(" ");
    const cx = num(gx + groupW / 2);
    out.push(`<text x="${cx}" y="${top + plotH + 16}" text-anchor="middle" fill="#111827">${escapeXml(first)}</text>`);
    if (rest.length > 0) out.push(`<text x="${cx}" y="${top + plotH + 30}" text-anchor="middle" fill="#6b7280">${escapeXml(rest.join(" "))}</text>`);
  });
  out.push(`<line x1="${left}" y1="${top + plotH}" x2="${width - right}" y2="${top + plotH}" stroke="#6b7280"/>`);
  out.push("</svg>");
  return out.join("\n") + "\n";
}

/** Write the chart of a run beside its results; a chart that cannot be drawn is logged, never fatal. */
export function writeChartFile(results, file, log = () => {}) {
  try {
    const data = chartDataFromResults(results);
    if (data.groups.length === 0) return;
    writeFileSync(file, renderChart(data));
    log(`chart: ${file}`);
  } catch (err) {
    log(`chart not written: ${err?.message ?? err}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const input = process.argv[2] ?? fileURLToPath(new URL("../results/latest.json", import.meta.url));
  const output = process.argv[3] ?? fileURLToPath(new URL("../results/chart.svg", import.meta.url));
  const parsed = JSON.parse(readFileSync(input, "utf8"));
  writeFileSync(output, renderChart(Array.isArray(parsed.groups) ? parsed : chartDataFromResults(parsed)));
  process.stderr.write(`chart: ${output}\n`);
}
