// The load generator: a long-lived child process (pinned to its own CPU by the parent) that runs
// autocannon on request over IPC and measures, over exactly the load window, the server's CPU
// time (/proc/<pid>/stat), its own CPU time, and what the rest of the machine was doing.
import autocannon from "autocannon";
import { performance } from "node:perf_hooks";
import { processTicks, systemTicks } from "./proc-stat.mjs";

function runOnce(spec) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const srv0 = processTicks(spec.serverPid);
    const sys0 = systemTicks();
    const self0 = process.cpuUsage();
    autocannon(
      {
        url: spec.url,
        method: spec.method,
        headers: spec.headers,
        body: spec.body,
        connections: spec.connections,
        pipelining: spec.pipelining,
        // A fixed number of requests (footprint) or a duration (everything else).
        ...(spec.amount ? { amount: spec.amount } : { duration: spec.duration }),
        timeout: 10,
      },
      (err, res) => {
        const wallS = (performance.now() - t0) / 1000;
        const srv1 = processTicks(spec.serverPid);
        const sys1 = systemTicks();
        const self = process.cpuUsage(self0);
        if (err) return reject(err);
        const tick = 1e6 / spec.clockTicks; // µs per tick
        const requests = res.requests.total;
        const serverCpuUs = srv0 === null || srv1 === null ? null : (srv1 - srv0) * tick;
        const clientCpuUs = self.user + self.system;
        let foreignPct = null;
        let stealPct = null;
        if (sys0 !== null && sys1 !== null) {
          const busyUs = (sys1.busy - sys0.busy) * tick;
          foreignPct = (Math.max(0, busyUs - (serverCpuUs ?? 0) - clientCpuUs) / (wallS * 1e6)) * 100;
          stealPct = (((sys1.steal - sys0.steal) * tick) / (wallS * 1e6)) * 100;
        }
        const statusCounts = {};
        for (const [code, s] of Object.entries(res.statusCodeStats ?? {})) statusCounts[code] = s.count;
        resolve({
          requests,
          wallS,
          reqPerSec: requests / wallS,
          latencyP50Ms: res.latency.p50,
          latencyP99Ms: res.latency.p99,
          errors: res.errors,
          timeouts: res.timeouts,
          statusCounts,
          serverCpuUs,
          serverCpuPct: serverCpuUs === null ? null : (serverCpuUs / (wallS * 1e6)) * 100,
          cpuUsPerReq: serverCpuUs === null || requests === 0 ? null : serverCpuUs / requests,
          clientCpuPct: (clientCpuUs / (wallS * 1e6)) * 100,
          foreignPct,
          stealPct,
        });
      },
    );
  });
}

process.on("message", (msg) => {
  if (msg?.type === "exit") process.exit(0);
  if (msg?.type !== "run") return;
  runOnce(msg.spec).then(
    (result) => process.send({ id: msg.id, ok: true, result }),
    (err) => process.send({ id: msg.id, ok: false, error: String(err?.stack ?? err) }),
  );
});
process.on("disconnect", () => process.exit(0));
process.send({ type: "ready" });
