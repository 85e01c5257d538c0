// Markdown report of a benchmark run (the JSON results carry the same data and every raw run).

const LABELS = { keel: "keel", raw: "raw node:http", fastify: "Fastify 5", hono: "Hono 4" };

function num(v, digits = 0) {
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  return v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function ratio(v) {
  return v === null || v === undefined || !Number.isFinite(v) ? "–" : `${v.toFixed(2)}×`;
}

function pct(v) {
  return v === null || v === undefined || !Number.isFinite(v) ? "–" : `${Math.round(v)}%`;
}

export function machineSection(results) {
  const m = results.machine;
  const c = results.config;
  const lines = [
    `# keel benchmarks (${results.mode} mode)`,
    "",
    `- Date: ${results.date}`,
    `- Command: \`${results.command}\`${results.git ? ` at ${results.git}` : ""}`,
    `- Machine: ${m.cpuModel}, ${m.cpus} CPU(s), ${m.memoryGiB} GiB; ${m.os}; node ${m.node} (V8 ${m.v8})`,
    `- Pinning: ${m.pinning}`,
    `- Load average at start ${m.loadavgStart.join(" / ")}, at end ${results.loadavgEnd?.join(" / ") ?? "–"}; CPU used by other processes during the measured windows: median ${pct(results.foreignCpuPct)} of one core (max ${pct(results.foreignCpuPctMax)})${results.foreignCpuPct > 10 ? " — **the machine was loaded: trust ratios, not absolute numbers**" : ""}`,
    `- Load: autocannon ${m.autocannon}, ${c.connections} connections, pipelining ${c.pipelining.join(" and ")}, ${c.warmup} s warm-up then ${c.duration} s measured per server start, ${c.starts} start(s) per cell, implementations alternated per round`,
    `- Peers: ${results.peers.ok ? Object.entries(results.peers.versions).map(([k, v]) => `${k} ${v}`).join(", ") : results.peers.note || "not used"}`,
  ];
  return lines.join("\n");
}

export function scenarioTable(s, impls) {
  const lines = [`## ${s.number}. ${s.title}`, ""];
  const hasRaw = s.cells.some((c) => c.impl === "raw");
  lines.push("| server | pipelining | req/s | p50 ms | p99 ms | server CPU µs/req | server CPU | ×raw req/s | ×raw CPU |");
  lines.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const c of s.cells) {
    const r = c.ratios.raw;
    lines.push(
      `| ${LABELS[c.impl] ?? c.impl} | ${c.pipelining} | ${num(c.reqPerSec)} | ${num(c.latencyP50Ms, 2)} | ${num(c.latencyP99Ms, 2)} | ${num(c.cpuUsPerReq, 1)} | ${pct(c.serverCpuPct)} | ${c.impl === "raw" ? "1.00×" : ratio(r?.reqPerSec)} | ${c.impl === "raw" ? "1.00×" : ratio(r?.cpu)} |`,
    );
  }
  if (!hasRaw) lines.push("", "_raw node:http has no result here, so there are no ratios._");
  const keelVs = [];
  for (const c of s.cells.filter((x) => x.impl === "keel")) {
    for (const other of ["fastify", "hono"]) {
      const r = c.ratios[other];
      if (r) keelVs.push(`vs ${LABELS[other]} at p${c.pipelining}: req/s ${ratio(r.reqPerSec)}, CPU ${ratio(r.cpu)}`);
    }
  }
  if (keelVs.length > 0) lines.push("", `keel ${keelVs.join("; ")}.`);
  for (const [impl, reason] of Object.entries(s.pending)) lines.push("", `**${LABELS[impl] ?? impl}: ${reason}**`);
  if (s.confirmedAfter) lines.push("", `_Re-measured with 3 starts per server after the first round failed the gate (${s.confirmedAfter})._`);
  if (s.problems.length > 0) lines.push("", "Problems:", ...s.problems.map((p) => `- ${p}`));
  void impls;
  return lines.join("\n");
}

/** The targets from issue 4 (reported, never asserted). */
export function targetsSection(http) {
  const rows = [];
  for (const s of http.scenarios) {
    for (const c of s.cells.filter((x) => x.impl === "keel")) {
      if ((s.id === "hello" || s.id === "param") && c.ratios.raw) {
        rows.push({ target: "keel ≥ 1.0× raw", cell: `${s.id} p${c.pipelining}`, req: c.ratios.raw.reqPerSec, cpu: c.ratios.raw.cpu, goal: 1.0 });
      }
      if (c.ratios.fastify) {
        rows.push({ target: "keel ≥ 1.1× Fastify", cell: `${s.id} p${c.pipelining}`, req: c.ratios.fastify.reqPerSec, cpu: c.ratios.fastify.cpu, goal: 1.1 });
      }
    }
  }
  if (rows.length === 0) return "";
  const mark = (v, goal) => (v === null || v === undefined ? "–" : v >= goal ? "met" : "missed");
  const lines = ["## Targets (reported, not asserted)", "", "| target | cell | req/s ratio | CPU ratio | by req/s | by CPU |", "|---|---|---:|---:|---|---|"];
  for (const r of rows) lines.push(`| ${r.target} | ${r.cell} | ${ratio(r.req)} | ${ratio(r.cpu)} | ${mark(r.req, r.goal)} | ${mark(r.cpu, r.goal)} |`);
  return lines.join("\n");
}

export function microSection(micro) {
  if (!micro) return "";
  if (micro.error) return `## Micro-benchmarks\n\nFailed: ${micro.error}`;
  const lines = ["## Micro-benchmarks (node:perf_hooks, median of rounds, pinned to the server CPU)", "", "| group | case | ns/op | ops/s | × baseline |", "|---|---|---:|---:|---:|"];
  for (const r of micro.results) {
    const rt = r.ratioToBaseline === null ? "" : `${r.ratioToBaseline.toFixed(2)}× of “${r.baseline}”`;
    lines.push(`| ${r.group} | ${r.name} | ${num(r.nsPerOp)} | ${num(r.opsPerSec)} | ${rt} |`);
  }
  return lines.join("\n");
}

export function footprintSection(fp) {
  if (!fp) return "";
  const lines = ["## Footprint", ""];
  if (fp.bundle) {
    const b = fp.bundle;
    lines.push(`- Bundle (${b.source}): ${num(b.bytes)} bytes, ${num(b.gzipBytes)} bytes gzipped (-9)${b.note ? `; ${b.note}` : ""}`);
  }
  if (fp.coldStart?.length) {
    lines.push("", "| process | cold start → listening ms | cold start → first answer ms | runs |", "|---|---:|---:|---:|");
    for (const c of fp.coldStart) {
      lines.push(`| ${c.name}${c.source && c.name === "sample service" ? ` (${c.source})` : ""} | ${num(c.listeningMs, 1)} | ${num(c.firstAnswerMs, 1)} | ${c.runs ?? 0}${c.error ? ` (error: ${c.error})` : ""} |`);
    }
  }
  if (fp.memory?.length) {
    lines.push("", "| process | idle RSS MiB | RSS after 100k requests MiB |", "|---|---:|---:|");
    for (const m of fp.memory) {
      lines.push(`| ${m.name} | ${num(m.idleRssKiB / 1024, 1)} | ${num(m.rssAfter100kKiB / 1024, 1)}${m.error ? ` (error: ${m.error})` : ""} |`);
    }
  }
  return lines.join("\n");
}

export function profileSection(profiles) {
  if (!profiles?.length) return "";
  const lines = ["## CPU profiles of the keel server under load (top self time)"];
  for (const p of profiles) {
    lines.push("");
    if (p.pending || p.error) {
      lines.push(`- ${p.scenario}: ${p.pending ?? p.error}`);
      continue;
    }
    lines.push(`### ${p.title} — ${p.profile} (${num(p.reqPerSec)} req/s, ${num(p.cpuUsPerReq, 1)} µs/req; ${num(p.busyMs)} ms busy)`, "");
    lines.push("| self % | self ms | function | where |", "|---:|---:|---|---|");
    for (const t of p.top) lines.push(`| ${t.selfPct.toFixed(1)} | ${num(t.selfMs)} | ${t.function} | ${t.where || "(native)"} |`);
    if (p.topKeel?.length) {
      lines.push("", `keel's own code (lib/) is ${p.keelSelfPct.toFixed(1)}% of busy time; its top functions:`, "");
      lines.push("| self % | self ms | function | where |", "|---:|---:|---|---|");
      for (const t of p.topKeel) lines.push(`| ${t.selfPct.toFixed(1)} | ${num(t.selfMs)} | ${t.function} | ${t.where} |`);
    }
  }
  return lines.join("\n");
}

export function externalSection(external) {
  if (!external?.length) return "";
  const lines = ["## Other benchmark scripts"];
  for (const e of external) {
    lines.push("", `### ${e.file} (\`${e.command}\`, exit ${e.code}${e.timedOut ? ", timed out" : ""}, ${(e.ms / 1000).toFixed(0)} s)`, "");
    lines.push("```", (e.stdout.trim() || e.stderr.trim() || "(no output)").split("\n").slice(-60).join("\n"), "```");
  }
  return lines.join("\n");
}

export function renderReport(results, impls) {
  const parts = [machineSection(results)];
  for (const s of results.http.scenarios) parts.push(scenarioTable(s, impls));
  parts.push(targetsSection(results.http));
  parts.push(microSection(results.micro));
  parts.push(footprintSection(results.footprint));
  parts.push(profileSection(results.profiles));
  parts.push(externalSection(results.external));
  if (results.regression) {
    parts.push(`## Regression gate\n\n${results.regression.failed ? "**FAILED**" : "passed"}: ${results.regression.detail}`);
  }
  parts.push(`_Run took ${(results.elapsedMs / 1000).toFixed(0)} s. How to read these numbers: bench/README.md._`);
  return parts.filter(Boolean).join("\n\n") + "\n";
}
