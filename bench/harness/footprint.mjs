// Footprint: the size of dist/keel.js (raw and gzipped), cold start of the sample service to its
// first answered request, idle RSS and RSS after 100k requests. Where dist/ is missing (the build
// may not exist yet) the sample service is bundled here from lib/sample/main.ts and labelled so.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { gzipSync } from "node:zlib";
import { residentKiB } from "./proc-stat.mjs";
import { nodeCommand, runCommand, startServer, stopChild, track } from "./processes.mjs";
import { median } from "./stats.mjs";

function sizes(file) {
  const buf = readFileSync(file);
  return { bytes: buf.length, gzipBytes: gzipSync(buf, { level: 9 }).length };
}

/** dist/keel.js when present (built first when allowed), else an unminified esbuild bundle of lib/index.ts. */
export async function bundleSize({ rootDir, outDir, tryBuild, log }) {
  const dist = join(rootDir, "dist", "keel.js");
  let buildNote = "";
  if (!existsSync(dist) && tryBuild && existsSync(join(rootDir, "scripts", "build.mjs"))) {
    log("dist/keel.js missing: running `npm run build` ...");
    const r = await runCommand("npm", ["run", "build"], { cwd: rootDir, timeoutMs: 180_000 });
    buildNote = r.code === 0 ? "built by `npm run build` for this run" : `\`npm run build\` failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().split("\n").slice(-2).join(" ")}`;
  }
  if (existsSync(dist)) return { source: "dist/keel.js", ...sizes(dist), note: buildNote };
  const { build } = await import("esbuild");
  const outfile = join(outDir, "keel-lib.mjs");
  await build({ entryPoints: [join(rootDir, "lib", "index.ts")], outfile, bundle: true, platform: "node", format: "esm", target: "node20", logLevel: "error" });
  return {
    source: "approximation: esbuild bundle of lib/index.ts (unminified), dist/keel.js not present",
    ...sizes(outfile),
    note: buildNote || (existsSync(join(rootDir, "scripts", "build.mjs")) ? "" : "scripts/build.mjs does not exist yet"),
  };
}

/** The sample service to measure: dist/server.js, or lib/sample/main.ts bundled into .peers/build/sample/server.js. */
export async function sampleServerFile({ rootDir, outDir }) {
  const dist = join(rootDir, "dist", "server.js");
  if (existsSync(dist)) return { file: dist, source: "dist/server.js" };
  const { build } = await import("esbuild");
  const dir = join(outDir, "sample");
  mkdirSync(dir, { recursive: true });
  // ESM (top-level await in main.ts) needs "type": "module".
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
  const file = join(dir, "server.js");
  await build({ entryPoints: [join(rootDir, "lib", "sample", "main.ts")], outfile: file, bundle: true, platform: "node", format: "esm", target: "node20", logLevel: "error" });
  return { file, source: "lib/sample/main.ts bundled by the bench (dist/server.js not present)" };
}

function get(url) {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Spawn the sample service (PORT=0), wait for its `"url"` log line, time the first answer. */
function coldStartOnce(file, pinning, path) {
  const [cmd, args] = nodeCommand(pinning, pinning.available ? pinning.serverCpu : null, [file]);
  const t0 = performance.now();
  const child = track(spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PORT: "0", HOST: "127.0.0.1", KEEL_ENV: "" } }));
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    let done = false;
    const timer = setTimeout(() => finish(new Error(`no "url" line within 15 s: ${out}${err}`)), 15_000);
    const finish = (e, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stopChild(child).then(() => (e ? reject(e) : resolve(value)));
    };
    child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
    child.on("exit", (code) => finish(new Error(`sample service exited (${code}): ${err.trim().split("\n").pop()}`)));
    child.stdout.setEncoding("utf8").on("data", (d) => {
      out += d;
      const m = /"url"\s*:\s*"([^"]+)"/.exec(out);
      if (!m || done) return;
      const listeningMs = performance.now() - t0;
      get(m[1] + path).then(
        (status) => {
          const firstAnswerMs = performance.now() - t0;
          child.removeAllListeners("exit");
          finish(null, { listeningMs, firstAnswerMs, status, pid: child.pid, url: m[1] });
        },
        (e) => finish(e),
      );
    });
  });
}

async function rssUnderLoad(server, loadgen, clockTicks, path) {
  await get(server.url + path);
  await new Promise((r) => setTimeout(r, 300));
  const idle = residentKiB(server.pid);
  await loadgen.run({ url: server.url + path, method: "GET", headers: {}, connections: 10, pipelining: 10, amount: 100_000, serverPid: server.pid, clockTicks });
  await new Promise((r) => setTimeout(r, 300));
  return { idleRssKiB: idle, rssAfter100kKiB: residentKiB(server.pid) };
}

/** Cold start (median of `starts`), idle RSS and RSS after 100k requests for the sample service and the bench servers. */
export async function measureFootprint({ rootDir, outDir, builds, pinning, loadgen, clockTicks, starts, log }) {
  const result = { coldStart: [], memory: [] };
  let sample = null;
  try {
    sample = await sampleServerFile({ rootDir, outDir });
  } catch (e) {
    result.coldStart.push({ name: "sample service", error: String(e.message) });
  }
  if (sample !== null) {
    const times = [];
    let error = null;
    for (let i = 0; i < starts && error === null; i++) {
      try {
        times.push(await coldStartOnce(sample.file, pinning, "/api/v1/ping"));
      } catch (e) {
        error = String(e.message);
      }
    }
    result.coldStart.push({
      name: "sample service",
      source: sample.source,
      runs: times.length,
      listeningMs: median(times.map((t) => t.listeningMs)),
      firstAnswerMs: median(times.map((t) => t.firstAnswerMs)),
      error,
    });
    log(`cold start (${sample.source}): ${result.coldStart[0].firstAnswerMs?.toFixed(1)} ms to first answer${error ? ` (error: ${error})` : ""}`);
  }
  for (const id of ["keel", "raw"]) {
    const times = [];
    for (let i = 0; i < starts; i++) {
      const t0 = performance.now();
      const s = await startServer({ file: builds[id], pinning });
      await get(s.url + "/hello");
      times.push(performance.now() - t0);
      if (i === starts - 1) {
        const mem = await rssUnderLoad(s, loadgen, clockTicks, "/hello");
        result.memory.push({ name: `bench server: ${id}`, ...mem });
      }
      await s.stop();
    }
    result.coldStart.push({ name: `bench server: ${id} (bundled, 58 routes)`, source: builds[id], runs: times.length, firstAnswerMs: median(times) });
  }
  if (sample !== null) {
    try {
      const s = await startSample(sample.file, pinning);
      result.memory.unshift({ name: "sample service", ...(await rssUnderLoad(s, loadgen, clockTicks, "/hello")) });
      await s.stop();
    } catch (e) {
      result.memory.unshift({ name: "sample service", error: String(e.message) });
    }
  }
  return result;
}

/** Start the sample service and keep it running (its logs go to /dev/null). */
function startSample(file, pinning) {
  const [cmd, args] = nodeCommand(pinning, pinning.available ? pinning.serverCpu : null, [file]);
  const child = track(spawn(cmd, args, { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, PORT: "0", HOST: "127.0.0.1" } }));
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("sample service did not start")), 15_000);
    child.on("exit", (code) => reject(new Error(`sample service exited (${code})`)));
    child.stdout.setEncoding("utf8").on("data", (d) => {
      if (out === null) return;
      out += d;
      const m = /"url"\s*:\s*"([^"]+)"/.exec(out);
      if (!m) return;
      out = null;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      // Keep draining stdout (its access lines) so the pipe never fills.
      child.stdout.on("data", () => {});
      resolve({ url: m[1], pid: child.pid, stop: () => stopChild(child) });
    });
  });
}
