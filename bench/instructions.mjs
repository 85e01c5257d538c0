// Whole-server instructions per request, exactly (issue 16; ../shared/BENCHMARKING.md):
//   node bench/instructions.mjs [--impls keel,raw,fastify,floor] [--only hello,param,post,stack]
//                               [--requests 5000] [--windows 5] [--warmup 10000] [--out FILE]
//                               [--semi-space MB] [--node PATH|VERSION] [--server-args "..."] [--keep DIR]
// The `real` scenario (issue 34): `--impls keel,fastify,hono --only real-get,real-post`.
// --server-args adds arguments to every server (e.g. `--real-without jwt` for keel's per-layer
// table in bench/README.md).
// --keep DIR copies each cell's lowest window's dump to DIR/<scenario>-<impl>.cg, and the server's
// perf map (node --perf-basic-prof: the address ranges of JIT-compiled JS functions, which the dump
// shows as bare addresses) to DIR/<scenario>-<impl>.map; bench/callgrind/functions.mjs reads both.
// --build DIR bundles the servers there instead of .peers/build (two runs at once, two builds).
// Each server (bundled as for the throughput run) runs under valgrind's callgrind with
// `--single-threaded --hash-seed=1 --random-seed=1 --no-flush-bytecode`; the load comes from this
// process (outside the measured one). After a warm-up, each window zeroes the counters
// (callgrind_control -z), sends N requests on 8 keep-alive connections, dumps (callgrind_control -d)
// and reads the total: instructions per request = window total / N. Reported: the middle of the
// three lowest windows and their spread (a window that meets a major GC or the memory reducer
// counts 10-130% more), and the ratios to raw and to Fastify.
// --semi-space MB pins V8's young generation (--min- and --max-semi-space-size): by default it
// grows with what the process allocated before the measurement, so two builds that run the same
// code per request can scavenge at different rates (measured: /users/{id} 57,825 vs 58,819
// instructions between two builds; 55,970 vs 56,038 with 16 MB pinned: all of it in the
// scavenger's root walk). Pin it to compare builds; leave it to measure what users get.
import { spawn, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBenchEntries } from "./harness/build.mjs";
import { ensurePeers } from "./harness/peers.mjs";
import { IMPLEMENTATIONS, SCENARIOS, scenarioArgs, servesScenario } from "./harness/scenarios.mjs";
import { runUnderChosenNode } from "./harness/node-binary.mjs";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const PEERS_DIR = join(BENCH_DIR, ".peers");
const BUILD_DIR = join(PEERS_DIR, "build");

function parseArgs(argv) {
  const o = { impls: ["keel", "raw", "fastify"], only: ["hello", "param", "post", "stack"], requests: 5000, windows: 5, warmup: 10000, out: "", semiSpace: 0, serverArgs: [], keep: "", build: "" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i].replace(/^--/, "");
    const v = argv[++i];
    if (a === "impls" || a === "only") o[a] = v.split(",");
    else if (a === "requests" || a === "windows" || a === "warmup") o[a] = Number(v);
    else if (a === "semi-space") o.semiSpace = Number(v);
    else if (a === "out") o.out = v;
    else if (a === "server-args") o.serverArgs = v.split(" ").filter(Boolean);
    else if (a === "keep") o.keep = v;
    else if (a === "build") o.build = v;
    else throw new Error(`unknown option --${a}`);
  }
  return o;
}

/** The server under callgrind; resolves with its pid and port once it printed BENCH_READY. */
function startUnderCallgrind(file, args, outDir, semiSpace = 0, perfMap = false) {
  const young = semiSpace > 0 ? [`--min-semi-space-size=${semiSpace}`, `--max-semi-space-size=${semiSpace}`] : [];
  if (perfMap) young.push("--perf-basic-prof");
  const child = spawn(
    "valgrind",
    ["--tool=callgrind", `--callgrind-out-file=${join(outDir, "cg.%p")}`, "--dump-instr=no", process.execPath, "--single-threaded", "--hash-seed=1", "--random-seed=1", "--no-flush-bytecode", ...young, file, ...args],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${file} did not start under valgrind within 600 s\n${text}`));
      // Fastify with its plugins takes minutes to start under valgrind on a loaded machine.
    }, 600_000);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      text += chunk;
      const m = /BENCH_READY (.*)/.exec(text);
      if (m === null) return;
      clearTimeout(timer);
      child.stderr.removeAllListeners("data");
      child.stderr.resume();
      const info = JSON.parse(m[1]);
      resolve({ child, pid: info.pid, url: `http://127.0.0.1:${info.port}` });
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited (${code}) under valgrind\n${text}`));
    });
  });
}

/** Send `n` requests of `scenario` on `connections` keep-alive connections; every answer must have its status. */
async function send(url, scenario, n, connections = 8) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  let next = 0;
  let bad = 0;
  // A connection the server closed (idle past its keep-alive timeout, or a request it did not
  // read within its headers timeout: under valgrind on a loaded machine a server can stall that
  // long) resets the request on it: sent again, up to 3 times (a window may then count one
  // request more than N, 0.02% of 5,000).
  const one = (tries = 3) =>
    new Promise((resolve, reject) => {
      const retry = (err) => (tries > 1 && (err.code === "ECONNRESET" || err.code === "EPIPE" || err.message === "socket hang up") ? one(tries - 1).then(resolve, reject) : reject(err));
      const req = http.request(url + scenario.path, { method: scenario.method, agent, headers: { ...scenario.headers, ...(scenario.body ? { "content-length": Buffer.byteLength(scenario.body) } : {}) } }, (res) => {
        if (res.statusCode !== scenario.expectStatus) bad++;
        res.on("error", retry);
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", retry);
      req.end(scenario.body);
    });
  const worker = async () => {
    while (next < n) {
      next++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  agent.destroy();
  if (bad > 0) throw new Error(`${scenario.id}: ${bad} of ${n} answers had another status than ${scenario.expectStatus}`);
}

/** The newest dump of `pid` and its "summary:" total. */
function lastDump(outDir, pid) {
  // Dumps on request are cg.<pid>.<n>; cg.<pid> is only written at exit.
  const parts = readdirSync(outDir).filter((f) => f.startsWith(`cg.${pid}.`));
  const newest = parts.sort((a, b) => Number(a.split(".").pop()) - Number(b.split(".").pop())).pop();
  if (newest === undefined) throw new Error(`no callgrind dump for ${pid}`);
  const m = /^summary: (\d+)$/m.exec(readFileSync(join(outDir, newest), "utf8"));
  if (m === null) throw new Error(`no summary in ${newest}`);
  return { file: join(outDir, newest), total: Number(m[1]) };
}

/**
 * The figure of a cell: the middle of its three lowest windows, and their spread. A window that
 * meets a major GC or V8's memory reducer counts 10-130% more; the lowest windows agree within a
 * fraction of a percent, so they are the cost of a request itself.
 */
function summarize(windows) {
  const low = [...windows].sort((a, b) => a - b).slice(0, 3);
  const median = low[Math.min(1, low.length - 1)];
  return { median, spreadPct: ((low[low.length - 1] - low[0]) / median) * 100 };
}

async function measure(impl, scenario, file, opts) {
  const outDir = mkdtempSync(join(tmpdir(), "keel-cg-"));
  const server = await startUnderCallgrind(file, [...scenarioArgs(scenario), ...opts.serverArgs], outDir, opts.semiSpace, opts.keep !== "");
  try {
    // One connection first: under valgrind on a loaded machine the first requests take seconds
    // each, and eight at once on a cold server can outlast its headersTimeout (the server then
    // closes the waiting connections: ECONNRESET here).
    await send(server.url, scenario, 200, 1);
    await send(server.url, scenario, opts.warmup);
    const perRequest = [];
    let lowest = Infinity;
    for (let w = 0; w < opts.windows; w++) {
      execFileSync("callgrind_control", ["-z", String(server.pid)], { stdio: "ignore" });
      await send(server.url, scenario, opts.requests);
      execFileSync("callgrind_control", ["-d", String(server.pid)], { stdio: "ignore" });
      const dump = lastDump(outDir, server.pid);
      perRequest.push(dump.total / opts.requests);
      if (opts.keep !== "" && dump.total < lowest) {
        lowest = dump.total;
        mkdirSync(opts.keep, { recursive: true });
        copyFileSync(dump.file, join(opts.keep, `${scenario.id}-${impl}.cg`));
      }
    }
    if (opts.keep !== "") copyFileSync(`/tmp/perf-${server.pid}.map`, join(opts.keep, `${scenario.id}-${impl}.map`));
    return { impl, scenario: scenario.id, ...summarize(perRequest), windows: perRequest };
  } finally {
    server.child.kill("SIGKILL");
    rmSync(outDir, { recursive: true, force: true });
  }
}

const opts = parseArgs(runUnderChosenNode(new URL(import.meta.url), process.argv.slice(2)));
const impls = IMPLEMENTATIONS.filter((i) => opts.impls.includes(i.id));
if (impls.some((i) => i.peer)) {
  const peers = await ensurePeers(PEERS_DIR, (m) => console.error(m));
  if (!peers.ok) throw new Error(`peers missing: ${peers.note}`);
}
const buildDir = opts.build === "" ? BUILD_DIR : opts.build;
mkdirSync(buildDir, { recursive: true });
const { builds, errors } = await buildBenchEntries({ benchDir: BENCH_DIR, outDir: buildDir, entries: impls.map((i) => i.entry) });
if (Object.keys(errors).length > 0) throw new Error(`bundling failed: ${JSON.stringify(errors)}`);
const scenarios = SCENARIOS.filter((s) => opts.only.includes(s.id));
const results = [];
for (const scenario of scenarios) {
  for (const impl of impls) {
    if (impl.only !== undefined && !impl.only.includes(scenario.id)) continue;
    if (!servesScenario(scenario, impl.id)) continue;
    const r = await measure(impl.id, scenario, builds[impl.id], opts);
    console.error(`${scenario.id} ${impl.id}: ${Math.round(r.median).toLocaleString("en-US")} instructions/request (spread ${r.spreadPct.toFixed(2)}%)`);
    results.push(r);
  }
}
const cell = (s, i) => results.find((r) => r.scenario === s && r.impl === i);
const lines = [
  `instructions per request, whole server (callgrind; ${opts.windows} windows of ${opts.requests} requests after ${opts.warmup} warm-up; node ${process.version}${opts.semiSpace > 0 ? `; semi-space pinned at ${opts.semiSpace} MB` : ""})`,
  "",
  `| scenario | ${impls.map((i) => i.label).join(" | ")} | keel ÷ raw | keel ÷ Fastify | keel ÷ Hono |`,
  `|---|${impls.map(() => "---:").join("|")}|---:|---:|---:|`,
];
for (const s of scenarios) {
  const keel = cell(s.id, "keel")?.median;
  const raw = cell(s.id, "raw")?.median;
  const fastify = cell(s.id, "fastify")?.median;
  const hono = cell(s.id, "hono")?.median;
  const ratio = (a, b) => (a === undefined || b === undefined ? "" : `${(a / b).toFixed(3)}`);
  lines.push(`| ${s.id} | ${impls.map((i) => (cell(s.id, i.id) === undefined ? "" : `${Math.round(cell(s.id, i.id).median).toLocaleString("en-US")} (±${cell(s.id, i.id).spreadPct.toFixed(1)}%)`)).join(" | ")} | ${ratio(keel, raw)} | ${ratio(keel, fastify)} | ${ratio(keel, hono)} |`);
}
// Observability steps (keel-observed, keel-obs-*; issue 34 goal 4): each over bare keel on the same scenario.
for (const s of scenarios) for (const i of impls) if (i.id.startsWith("keel-obs") && cell(s.id, "keel") !== undefined && cell(s.id, i.id) !== undefined) lines.push("", `${s.id}, ${i.label}: ${(((cell(s.id, i.id).median / cell(s.id, "keel").median) - 1) * 100).toFixed(2)}% over keel`);
console.log(lines.join("\n"));
if (opts.out !== "") writeFileSync(opts.out, JSON.stringify({ node: process.version, opts, results }, null, 2));
