// The service under soak: `node --import sampler.mjs dist/server.js` in production mode on
// ephemeral HTTP and gRPC ports (PORT=0, GRPC_PORT=0), its URLs taken from its "listening" and
// "grpc listening" log lines. Its stdout (an access log line per request) is read to the end so
// the pipe never fills; lines at level error or fatal are counted and the first few kept.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const MAX_KEPT = 5;

export function startService({ root, gc, samplesFile, secret }) {
  const child = spawn(process.execPath, [...(gc ? ["--expose-gc"] : []), "--import", join(root, "bench/soak/sampler.mjs"), join(root, "dist/server.js")], {
    cwd: root,
    env: { ...process.env, PORT: "0", GRPC_PORT: "0", LOG_LEVEL: "info", KEEL_ENV: "production", KEEL_JWT_SECRET: secret, SOAK_SAMPLES: samplesFile, SOAK_GC: gc ? "1" : "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const service = {
    child,
    port: 0,
    grpcUrl: "",
    errorLogs: { count: 0, first: [] },
    exitCode: undefined,
    exited: new Promise((resolve) => child.on("exit", (code, sig) => resolve((service.exitCode = code ?? sig)))),
    /** The service's resident set in MiB (Linux), or undefined. */
    rssMiB() {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        return m ? Number(m[1]) / 1024 : undefined;
      } catch {
        return undefined;
      }
    },
    async stop() {
      if (service.exitCode === undefined) child.kill("SIGTERM");
      return service.exited;
    },
  };
  let pending = "";
  const onLine = (line) => {
    if (service.grpcUrl === "" || /"level":[56]\d/.test(line)) {
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      if (entry.msg === "listening") service.port = Number(new URL(entry.url).port);
      else if (entry.msg === "grpc listening") service.grpcUrl = entry.url;
      if (entry.level >= 50) {
        service.errorLogs.count++;
        if (service.errorLogs.first.length < MAX_KEPT) service.errorLogs.first.push(line.slice(0, 400));
      }
    }
  };
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text) => {
    pending += text;
    let nl;
    while ((nl = pending.indexOf("\n")) >= 0) {
      onLine(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
    }
    if (pending.length > 1024 * 1024) pending = ""; // not a log line: do not hold it
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the service did not start in 30 s")), 30_000);
    const check = setInterval(() => {
      if (service.port !== 0 && service.grpcUrl !== "") {
        clearTimeout(timer);
        clearInterval(check);
        resolve(service);
      }
    }, 20);
    service.exited.then((code) => {
      clearTimeout(timer);
      clearInterval(check);
      reject(new Error(`the service exited (${code}) before listening`));
    });
  });
}
