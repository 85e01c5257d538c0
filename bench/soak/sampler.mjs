// Preloaded into the service under soak (`node --import ./bench/soak/sampler.mjs dist/server.js`):
// once a second, append one JSON line with the process's memory and event-loop delay to the file
// named by SOAK_SAMPLES. It measures the real artefact without changing it.
import { appendFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

const file = process.env.SOAK_SAMPLES;
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const started = Date.now();
  // SOAK_GC=1 (with node --expose-gc): a full collection before each sample, so heapUsed is the
  // live heap and a slope in it is retained memory, not garbage waiting for the next GC.
  const gc = process.env.SOAK_GC === "1" ? globalThis.gc : undefined;
  const timer = setInterval(() => {
    gc?.();
    const m = process.memoryUsage();
    const line = {
      t: (Date.now() - started) / 1000,
      rss: m.rss,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      eldP99Ms: delay.percentile(99) / 1e6,
      eldMaxMs: delay.max / 1e6,
    };
    delay.reset();
    appendFileSync(file, JSON.stringify(line) + "\n");
  }, 1000);
  timer.unref();
}
