// The process collector: what the Prometheus clients call the process metrics (CPU seconds,
// resident memory, start time, open and maximum file descriptors) plus Node's own (heap, event
// loop delay, active resources, garbage collections). Read at scrape time, except two things
// measured continuously: the event-loop delay histogram (perf_hooks, reset at each scrape, so its
// p99 covers the time since the previous scrape) and GC runs (a PerformanceObserver adding to
// counters). Neither keeps the process alive; `close()` (or the registry's) stops both.
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import type { Counter } from "./counter.js";
import type { Gauge } from "./gauge.js";
import type { AttachedCollector, Collector, MetricsRegistry } from "./registry.js";

export interface ProcessMetricsOptions {
  /** Sampling resolution of the event-loop delay histogram, ms (default 20). */
  eventLoopResolution?: number;
}

const GC_KINDS: Readonly<Record<number, string>> = Object.freeze({
  [perfConstants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
});

/** When the process started, in seconds since the epoch (fixed for its life). */
const START_TIME_SECONDS = Math.round(Date.now() / 1000 - process.uptime());

/** The soft "Max open files" limit from /proc/self/limits, or null (not Linux, "unlimited"). */
async function maxFds(): Promise<number | null> {
  try {
    const text = await readFile("/proc/self/limits", "utf8");
    const m = /^Max open files\s+(\d+)/m.exec(text);
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}

/** Open file descriptors (Linux), or null. The directory read holds one descriptor itself: not counted. */
async function openFds(): Promise<number | null> {
  try {
    return (await readdir("/proc/self/fd")).length - 1;
  } catch {
    return null;
  }
}

class ProcessCollector implements AttachedCollector {
  private readonly cpuUser: Counter;
  private readonly cpuSystem: Counter;
  private readonly cpu: Counter;
  private readonly rss: Gauge;
  private readonly heapUsed: Gauge;
  private readonly heapTotal: Gauge;
  private readonly external: Gauge;
  /** Null where /proc/self/fd does not exist (not Linux): no descriptor metrics then. */
  private readonly openFds: Gauge | null;
  private readonly maxFds: Gauge | null;
  private readonly loopDelayP99: Gauge;
  private readonly loopDelayMax: Gauge;
  private readonly activeResources: Gauge;
  private readonly gcRuns: Counter;
  private readonly gcSeconds: Counter;
  private readonly delay;
  private readonly gcObserver: PerformanceObserver;

  constructor(registry: MetricsRegistry, options: ProcessMetricsOptions) {
    const seconds = { unit: "seconds" };
    const bytes = { unit: "bytes" };
    this.cpuUser = registry.counter({ name: "process_cpu_user_seconds_total", help: "User CPU time spent, in seconds.", ...seconds });
    this.cpuSystem = registry.counter({ name: "process_cpu_system_seconds_total", help: "System CPU time spent, in seconds.", ...seconds });
    this.cpu = registry.counter({ name: "process_cpu_seconds_total", help: "User and system CPU time spent, in seconds.", ...seconds });
    this.rss = registry.gauge({ name: "process_resident_memory_bytes", help: "Resident memory size, in bytes.", ...bytes });
    registry.gauge({ name: "process_start_time_seconds", help: "Start time of the process since the Unix epoch, in seconds.", ...seconds }).set(START_TIME_SECONDS);
    const procFs = existsSync("/proc/self/fd");
    this.openFds = procFs ? registry.gauge({ name: "process_open_fds", help: "Number of open file descriptors." }) : null;
    this.maxFds = procFs ? registry.gauge({ name: "process_max_fds", help: "Maximum number of open file descriptors." }) : null;
    this.heapUsed = registry.gauge({ name: "nodejs_heap_size_used_bytes", help: "V8 heap in use, in bytes.", ...bytes });
    this.heapTotal = registry.gauge({ name: "nodejs_heap_size_total_bytes", help: "V8 heap allocated, in bytes.", ...bytes });
    this.external = registry.gauge({ name: "nodejs_external_memory_bytes", help: "Memory of C++ objects bound to JavaScript objects, in bytes.", ...bytes });
    this.loopDelayP99 = registry.gauge({ name: "nodejs_eventloop_delay_p99_seconds", help: "99th percentile of the event-loop delay since the previous scrape, in seconds.", ...seconds });
    this.loopDelayMax = registry.gauge({ name: "nodejs_eventloop_delay_max_seconds", help: "Largest event-loop delay since the previous scrape, in seconds.", ...seconds });
    // Resource types are Node's own names (TCPSocketWrap, Timeout, FSReqCallback...): a short list.
    this.activeResources = registry.gauge({ name: "nodejs_active_resources", help: "Resources keeping the event loop alive, by type.", labelNames: ["type"] });
    this.gcRuns = registry.counter({ name: "nodejs_gc_runs_total", help: "Garbage collections, by kind.", labelNames: ["kind"] });
    this.gcSeconds = registry.counter({ name: "nodejs_gc_duration_seconds_total", help: "Time spent in garbage collection, by kind, in seconds.", labelNames: ["kind"], ...seconds });

    this.delay = monitorEventLoopDelay({ resolution: options.eventLoopResolution ?? 20 });
    this.delay.enable();
    this.gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const detail = (entry as { detail?: { kind?: number } | null }).detail;
        const kind = GC_KINDS[detail?.kind ?? -1] ?? "other";
        this.gcRuns.labels({ kind }).inc();
        this.gcSeconds.labels({ kind }).inc(entry.duration / 1000);
      }
    });
    this.gcObserver.observe({ entryTypes: ["gc"] });
  }

  async collect(): Promise<void> {
    const cpu = process.cpuUsage();
    this.cpuUser.advanceTo(cpu.user / 1e6);
    this.cpuSystem.advanceTo(cpu.system / 1e6);
    this.cpu.advanceTo((cpu.user + cpu.system) / 1e6);
    const memory = process.memoryUsage();
    this.rss.set(memory.rss);
    this.heapUsed.set(memory.heapUsed);
    this.heapTotal.set(memory.heapTotal);
    this.external.set(memory.external);
    const d = this.delay;
    this.loopDelayP99.set(d.count === 0 ? 0 : d.percentile(99) / 1e9);
    this.loopDelayMax.set(d.count === 0 ? 0 : d.max / 1e9);
    d.reset();
    this.collectActiveResources();
    if (this.openFds === null || this.maxFds === null) return;
    const [open, max] = await Promise.all([openFds(), maxFds()]);
    if (open !== null) this.openFds.set(open);
    if (max !== null) this.maxFds.set(max);
  }

  close(): void {
    this.delay.disable();
    this.gcObserver.disconnect();
  }

  /** process.getActiveResourcesInfo() (Node 17.3+, experimental): counted by type; gone types drop out. */
  private collectActiveResources(): void {
    const info = (process as { getActiveResourcesInfo?: () => string[] }).getActiveResourcesInfo;
    if (typeof info !== "function") return;
    const counts = new Map<string, number>();
    for (const type of info.call(process)) counts.set(type, (counts.get(type) ?? 0) + 1);
    this.activeResources.clear();
    for (const [type, n] of counts) this.activeResources.labels({ type }).set(n);
  }
}

/** The process collector: `registry.addCollector(processMetrics())`. */
export function processMetrics(options: ProcessMetricsOptions = {}): Collector {
  return { name: "process", attach: (registry) => new ProcessCollector(registry, options) };
}
