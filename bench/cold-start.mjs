#!/usr/bin/env node
// Cold start: a kernel-only keel hello app (the vendored dist/keel.js of `npm run build --
// --features kernel`) against a plain node:http hello script. Each run starts a fresh `node`
// process and times spawn -> first answered `GET /hello` (and spawn -> listening, from the line
// the app prints once bound). Runs alternate raw/keel (order flipped every pair) after a few
// unmeasured warm-up starts; the report is the median per app and keel ÷ raw.
//
//   node bench/cold-start.mjs [--runs N] [--warmup N] [--features a,b] [--json]
//
// The server process is pinned to CPU 0 with taskset when available (bench/harness/processes.mjs).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { bundleFeatures } from "../scripts/build.mjs";
import { resolveFeatures } from "../scripts/features.mjs";
import { machineNotes } from "./harness/machine.mjs";
import { clockTicksPerSecond, detectPinning, nodeCommand, track } from "./harness/processes.mjs";
import { median } from "./harness/stats.mjs";

const ROOT_DIR = fileURLToPath(new URL("..", import.meta.url));

// Both apps answer GET /hello with the JSON string "Hello, World!" and print `READY <port>`
// once listening; neither logs.
const KEEL_APP = `import { App, route, silentLogger } from "./keel.js";
const app = new App({ logger: silentLogger }).routes(route.get("/hello", [], () => "Hello, World!"));
const server = await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write("READY " + server.port + "\\n");
`;
const RAW_APP = `import { createServer } from "node:http";
const body = JSON.stringify("Hello, World!");
const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/hello") {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
    res.end(body);
  } else {
    res.writeHead(404, { "content-length": 0 });
    res.end();
  }
});
server.listen(0, "127.0.0.1", () => process.stdout.write("READY " + server.address().port + "\\n"));
`;

function parseArgs(argv) {
  const options = { runs: 20, warmup: 3, features: ["kernel"], json: false };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (name === "--runs") options.runs = Math.max(1, Number.parseInt(value(), 10));
    else if (name === "--warmup") options.warmup = Math.max(0, Number.parseInt(value(), 10));
    else if (name === "--features") options.features = String(value()).split(",");
    else if (name === "--json") options.json = true;
    else throw new Error(`unknown argument ${argv[i]} (usage: node bench/cold-start.mjs [--runs N] [--warmup N] [--features a,b] [--json])`);
  }
  if (!Number.isFinite(options.runs) || !Number.isFinite(options.warmup)) throw new Error("--runs and --warmup take numbers");
  return options;
}

function get(url) {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** One fresh process: ms from spawn to `READY`, and to the end of the first /hello answer. */
function startOnce(file, pinning) {
  const [cmd, args] = nodeCommand(pinning, pinning.available ? pinning.serverCpu : null, [file]);
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const t0 = performance.now();
  const child = track(spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], env }));
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    let done = false;
    const finish = (error, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.off("exit", exitedEarly);
      // Wait for the process to be gone so the next start does not overlap it.
      const settle = () => (error ? reject(error) : resolve(value));
      if (child.exitCode !== null || child.signalCode !== null) settle();
      else {
        child.once("exit", settle);
        child.kill("SIGKILL");
      }
    };
    const timer = setTimeout(() => finish(new Error(`${file}: no READY line within 15 s\n${out}${err}`)), 15_000);
    child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
    const exitedEarly = (code) => finish(new Error(`${file} exited (${code}) before answering\n${err}`));
    child.on("exit", exitedEarly);
    child.stdout.setEncoding("utf8").on("data", (d) => {
      out += d;
      const m = /^READY (\d+)$/m.exec(out);
      if (m === null || done) return;
      const listeningMs = performance.now() - t0;
      get(`http://127.0.0.1:${m[1]}/hello`).then(
        (res) => {
          const firstAnswerMs = performance.now() - t0;
          if (res.status !== 200 || res.body !== '"Hello, World!"') finish(new Error(`${file}: /hello answered ${res.status} ${res.body}`));
          else finish(null, { listeningMs, firstAnswerMs });
        },
        (e) => finish(e),
      );
    });
  });
}

const round = (x, digits = 1) => (x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits);

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const features = resolveFeatures(options.features);
  const pinning = detectPinning();
  const scratch = mkdtempSync(join(tmpdir(), "keel-cold-start-"));
  try {
    const bundle = await bundleFeatures(features);
    writeFileSync(join(scratch, "package.json"), '{ "type": "module" }\n');
    writeFileSync(join(scratch, "keel.js"), bundle.text);
    writeFileSync(join(scratch, "keel-hello.js"), KEEL_APP);
    writeFileSync(join(scratch, "raw-hello.js"), RAW_APP);
    const apps = [
      { id: "raw", label: "plain node:http hello script", file: join(scratch, "raw-hello.js"), runs: [] },
      { id: "keel", label: `keel hello app (keel.js, features: ${features.map((f) => f.name).join(", ")}; ${Buffer.byteLength(bundle.text)} bytes)`, file: join(scratch, "keel-hello.js"), runs: [] },
    ];
    for (let i = 0; i < options.warmup; i++) for (const app of apps) await startOnce(app.file, pinning);
    for (let i = 0; i < options.runs; i++) {
      const order = i % 2 === 0 ? apps : [...apps].reverse();
      for (const app of order) app.runs.push(await startOnce(app.file, pinning));
    }
    const summary = apps.map((app) => {
      const first = app.runs.map((r) => r.firstAnswerMs);
      return {
        id: app.id,
        label: app.label,
        runs: app.runs.length,
        firstAnswerMs: round(median(first), 2),
        minMs: round(Math.min(...first), 2),
        maxMs: round(Math.max(...first), 2),
        listeningMs: round(median(app.runs.map((r) => r.listeningMs)), 2),
      };
    });
    const [raw, keel] = summary;
    const ratio = round(keel.firstAnswerMs / raw.firstAnswerMs, 3);
    const machine = machineNotes({ pinning, clockTicks: clockTicksPerSecond(), rootDir: ROOT_DIR });
    if (options.json) {
      process.stdout.write(JSON.stringify({ machine, options, summary, ratio, samples: Object.fromEntries(apps.map((a) => [a.id, a.runs])) }, null, 2) + "\n");
      return;
    }
    const lines = [
      `Cold start to the first answered GET /hello: ${options.runs} alternating runs each after ${options.warmup} warm-up start(s), medians.`,
      `${machine.cpuModel}, ${machine.cpus} CPUs, node ${machine.node}; ${pinning.available ? `each app pinned to CPU ${pinning.serverCpu} with taskset` : `no pinning (${pinning.reason})`}; load average ${machine.loadavgStart.join(" ")}.`,
      "",
      "| app | runs | spawn → listening (ms) | spawn → first answer (ms) | min | max |",
      "|---|---:|---:|---:|---:|---:|",
      ...summary.map((s) => `| ${s.label} | ${s.runs} | ${s.listeningMs} | ${s.firstAnswerMs} | ${s.minMs} | ${s.maxMs} |`),
      "",
      `keel ÷ raw (median to first answer): ${ratio.toFixed(3)}× (target ≤ 1.15×)`,
    ];
    process.stdout.write(lines.join("\n") + "\n");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`cold-start failed: ${err?.stack ?? err}`);
  process.exitCode = 1;
});
