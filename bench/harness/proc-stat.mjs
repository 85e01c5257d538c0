// CPU time from /proc: a process's utime+stime, and the whole machine's busy/steal time, in
// clock ticks. Linux only; callers treat null as "not available".
import { readFileSync } from "node:fs";

/** utime+stime of `pid` in clock ticks, or null. */
export function processTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces; fields after its ")" are space-separated.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** Machine-wide ticks: { busy, steal, total } summed over all CPUs, or null. */
export function systemTicks() {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0];
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = v;
    return { busy: user + nice + system + irq + softirq, steal, total: user + nice + system + idle + iowait + irq + softirq + steal };
  } catch {
    return null;
  }
}

/** Resident set size of `pid` in KiB (VmRSS), or null. */
export function residentKiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
