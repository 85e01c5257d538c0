// Machine notes printed at the top of the report: CPU, node, pinning, load.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, freemem, loadavg, release, totalmem } from "node:os";

function cpuModel() {
  try {
    const m = /model name\s*:\s*(.+)/.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (m) return m[1].trim();
  } catch {
    // not Linux
  }
  return cpus()[0]?.model ?? "unknown";
}

export function machineNotes({ pinning, clockTicks, rootDir }) {
  let autocannonVersion = "unknown";
  try {
    autocannonVersion = createRequire(`${rootDir}/package.json`)("autocannon/package.json").version;
  } catch {
    // reported as unknown
  }
  return {
    cpuModel: cpuModel(),
    cpus: cpus().length,
    node: process.version,
    v8: process.versions.v8,
    os: `${process.platform} ${release()}`,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeMemoryGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
    loadavgStart: loadavg().map((x) => Math.round(x * 100) / 100),
    pinning: pinning.available ? `taskset: server on CPU ${pinning.serverCpu}, load generator on CPU ${pinning.clientCpu}` : `none (${pinning.reason})`,
    clockTicks,
    autocannon: autocannonVersion,
  };
}

export function currentLoadavg() {
  return loadavg().map((x) => Math.round(x * 100) / 100);
}
