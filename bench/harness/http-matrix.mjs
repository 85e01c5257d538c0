// Runs the HTTP matrix: for each scenario, `starts` rounds; in each round every implementation
// gets a fresh server (order rotated per round: A B C D, B C D A, ...), a warm-up, then one
// measured window per pipelining level. Cells are summarised by medians over server starts, and
// ratios are paired per round (keel in round r ÷ raw in round r) before taking the median.
import { request } from "node:http";
import { median, spread } from "./stats.mjs";
import { startServer } from "./processes.mjs";
import { scenarioArgs, servesScenario } from "./scenarios.mjs";

function probe(url, scenario) {
  return new Promise((resolve) => {
    const req = request(`${url}${scenario.path}`, { method: scenario.method, headers: scenario.headers ?? {} }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode, contentType: String(res.headers["content-type"] ?? ""), body }));
    });
    req.on("error", (err) => resolve({ status: 0, contentType: "", body: String(err) }));
    req.end(scenario.body);
  });
}

function rotate(list, by) {
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

/**
 * @returns {Promise<{ scenarios: object[] }>} per scenario: pending reasons, problems, and cells
 */
export async function runHttpMatrix({ scenarios, impls, builds, loadgen, pinning, clockTicks, config, log }) {
  const out = [];
  for (const scenario of scenarios) {
    const runs = new Map(); // `${impl}|${p}` -> run results in round order (null for a failed round)
    const pending = {};
    const problems = [];
    log(`\n## ${scenario.number}. ${scenario.title}`);
    for (let round = 0; round < config.starts; round++) {
      for (const impl of rotate(impls.filter((i) => servesScenario(scenario, i.id)), round)) {
        if (pending[impl.id] !== undefined) continue;
        const label = `[${scenario.id} r${round + 1} ${impl.id}]`;
        let server;
        try {
          server = await startServer({ file: builds[impl.id], args: scenarioArgs(scenario), pinning });
        } catch (err) {
          problems.push(`${impl.id}: server failed to start: ${String(err.message).split("\n")[0]}`);
          log(`${label} server failed to start: ${err.message}`);
          for (const p of config.pipelining) pushRun(runs, impl.id, p, round, null);
          continue;
        }
        if (server.pending !== null) {
          pending[impl.id] = server.pending;
          log(`${label} ${server.pending}`);
          continue;
        }
        try {
          const check = await probe(server.url, scenario);
          if (check.status !== scenario.expectStatus || !check.contentType.startsWith("application/json")) {
            problems.push(`${impl.id}: pre-flight answered ${check.status} ${check.contentType} (expected ${scenario.expectStatus} JSON)`);
          }
          const spec = {
            url: `${server.url}${scenario.path}`,
            method: scenario.method,
            headers: scenario.headers ?? {},
            body: scenario.body,
            connections: config.connections,
            serverPid: server.pid,
            clockTicks,
          };
          if (config.warmup > 0) await loadgen.run({ ...spec, pipelining: Math.max(...config.pipelining), duration: config.warmup });
          const parts = [];
          for (const p of config.pipelining) {
            const r = await loadgen.run({ ...spec, pipelining: p, duration: config.duration });
            const expected = r.statusCounts[String(scenario.expectStatus)] ?? 0;
            if (r.requests === 0 || expected < r.requests * 0.99 || r.errors > 0) {
              problems.push(`${impl.id} p${p} r${round + 1}: ${r.requests} responses, ${expected} with status ${scenario.expectStatus}, ${r.errors} errors`);
            }
            pushRun(runs, impl.id, p, round, r);
            parts.push(`p${p} ${Math.round(r.reqPerSec)} req/s ${r.cpuUsPerReq?.toFixed(1) ?? "?"} µs/req`);
          }
          log(`${label} ${parts.join(" | ")}`);
        } catch (err) {
          problems.push(`${impl.id} r${round + 1}: ${err.message}`);
          log(`${label} failed: ${err.message}`);
        } finally {
          await server.stop();
        }
      }
    }
    out.push({ id: scenario.id, number: scenario.number, title: scenario.title, pending, problems, cells: summarise(runs, impls, config.pipelining) });
  }
  return { scenarios: out };
}

function pushRun(runs, implId, p, round, r) {
  const key = `${implId}|${p}`;
  if (!runs.has(key)) runs.set(key, []);
  runs.get(key)[round] = r;
}

function pairedRatio(a, b, pick, invert) {
  const ratios = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ? pick(a[i]) : null;
    const y = b[i] ? pick(b[i]) : null;
    if (x === null || y === null || !x || !y) continue;
    ratios.push(invert ? y / x : x / y);
  }
  return median(ratios);
}

/** Medians per (impl, pipelining) and ratios to every other implementation of the same run. */
function summarise(runs, impls, pipelinings) {
  const cells = [];
  for (const p of pipelinings) {
    for (const impl of impls) {
      const list = runs.get(`${impl.id}|${p}`) ?? [];
      const ok = list.filter(Boolean);
      if (ok.length === 0) continue;
      const ratios = {};
      for (const other of impls) {
        if (other.id === impl.id) continue;
        const theirs = runs.get(`${other.id}|${p}`) ?? [];
        if (!theirs.some(Boolean)) continue;
        ratios[other.id] = {
          // higher is better for both: req/s ÷ theirs, and their CPU µs/req ÷ ours
          reqPerSec: pairedRatio(list, theirs, (r) => r.reqPerSec, false),
          cpu: pairedRatio(list, theirs, (r) => r.cpuUsPerReq, true),
        };
      }
      cells.push({
        impl: impl.id,
        pipelining: p,
        starts: ok.length,
        reqPerSec: median(ok.map((r) => r.reqPerSec)),
        reqPerSecSpread: spread(ok.map((r) => r.reqPerSec)),
        latencyP50Ms: median(ok.map((r) => r.latencyP50Ms)),
        latencyP99Ms: median(ok.map((r) => r.latencyP99Ms)),
        cpuUsPerReq: median(ok.map((r) => r.cpuUsPerReq)),
        // Best of the starts: interference only ever adds work, so on a loaded machine the
        // least-disturbed window is the closest estimate of the real cost.
        cpuUsPerReqBest: Math.min(...ok.map((r) => r.cpuUsPerReq ?? Infinity)),
        reqPerSecBest: Math.max(...ok.map((r) => r.reqPerSec)),
        serverCpuPct: median(ok.map((r) => r.serverCpuPct)),
        clientCpuPct: median(ok.map((r) => r.clientCpuPct)),
        foreignPct: median(ok.map((r) => r.foreignPct)),
        stealPct: median(ok.map((r) => r.stealPct)),
        ratios,
        runs: list,
      });
    }
  }
  return cells;
}
