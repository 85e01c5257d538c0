// Preloaded into a service under a flood test (`node --import ./memory-probe.mjs ...` with an IPC
// channel): answers "memory" with process.memoryUsage(), so the test reads the target's heap and
// RSS without changing the service. The channel is unref'd, so it never keeps the process alive.
if (typeof process.send === "function") {
  process.on("message", (msg) => {
    if (msg === "memory") {
      const m = process.memoryUsage();
      process.send({ memory: { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers } });
    }
  });
  process.channel?.unref();
}
