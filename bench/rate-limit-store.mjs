#!/usr/bin/env node
// The rate-limit scenario with the memory store vs Redis on loopback (issue 20). One server file,
// bench/servers/keel-rate-limit.ts (bundled into bench/.peers/build), in three cases:
//   baseline  GET /hello, no rate limit
//   memory    GET /hello behind rateLimit() with its default MemoryStore
//   redis     GET /hello behind rateLimit({ store: redisStore(redisClient(url)) })
// The bucket never empties and there is one client key, so every request takes one token.
// This script starts its own redis-server on a free loopback port (no RDB, no AOF). With taskset
// and two CPUs the server under test runs on CPU 0 and the load generator (autocannon, its own
// process) on CPU 1; redis-server shares CPU 1 with the load generator, which the report says.
// Rounds interleave the cases (A B C, B C A, ...); every case gets a fresh server per round, a
// pre-flight request, a warm-up, then one measured window per pipelining level. Reported: medians
// over rounds of req/s, server CPU µs/request (/proc utime+stime over the window ÷ requests), p99
// latency, and for Redis its own CPU per request and script calls per request (INFO commandstats);
// ratios redis ÷ memory and memory ÷ baseline are paired per round, then the median.
//
//   node bench/rate-limit-store.mjs [--quick] [--rounds N] [--duration S] [--warmup S]
//                                   [--connections N] [--pipelining 1,10] [--out FILE]
//
// Markdown on stdout, progress on stderr, every number in bench/results/rate-limit-store.json.
// Without redis-server on the PATH it says why and exits 0 (skipped). Exit code 1 when a server
// failed to start, answered wrongly or with errors (a correctness problem, not a slow run).
import { numberOption } from "./harness/args.mjs";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBenchEntries } from "./harness/build.mjs";
import { currentLoadavg, machineNotes } from "./harness/machine.mjs";
import { processTicks } from "./harness/proc-stat.mjs";
import { clockTicksPerSecond, detectPinning, startLoadGenerator, startServer, stopChild, track } from "./harness/processes.mjs";
import { median } from "./harness/stats.mjs";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT_DIR = dirname(BENCH_DIR);
const BUILD_DIR = join(BENCH_DIR, ".peers", "build");
const DEFAULT_OUT = join(BENCH_DIR, "results", "rate-limit-store.json");
const SERVER_ENTRY = "servers/keel-rate-limit.ts";
const EXPECTED_BODY = '{"hello":"world"}';

const USAGE =
  "usage: node bench/rate-limit-store.mjs [--quick] [--rounds N] [--duration S] [--warmup S] [--connections N] [--pipelining 1,10] [--out FILE]";

const CASES = [
  { id: "baseline", label: "keel, no rate limit", store: "none" },
  { id: "memory", label: "rateLimit, memory store", store: "memory" },
  { id: "redis", label: "rateLimit, redisStore (loopback)", store: "redis" },
];

function parseArgs(argv) {
  const quick = argv.includes("--quick");
  const options = { quick, rounds: quick ? 1 : 5, duration: quick ? 1 : 3, warmup: quick ? 0.5 : 1, connections: 10, pipelining: [1, 10], out: DEFAULT_OUT };
  const number = (name, raw, min, integer) => numberOption(name, raw, { min, integer });
  for (let i = 0; i < argv.length; i++) {
    const eq = argv[i].indexOf("=");
    const name = eq === -1 ? argv[i] : argv[i].slice(0, eq);
    const value = () => (eq === -1 ? argv[++i] : argv[i].slice(eq + 1));
    if (name === "--quick") continue;
    else if (name === "--rounds") options.rounds = number("rounds", value(), 1, true);
    else if (name === "--duration") options.duration = number("duration", value(), 0.1, false);
    else if (name === "--warmup") options.warmup = number("warmup", value(), 0, false);
    else if (name === "--connections") options.connections = number("connections", value(), 1, true);
    else if (name === "--pipelining") options.pipelining = String(value() ?? "").split(",").map((p) => number("pipelining", p.trim(), 1, true));
    else if (name === "--out") options.out = value();
    else if (name === "--help" || name === "-h") options.help = true;
    else throw new Error(`unknown argument ${argv[i]} (${USAGE})`);
  }
  return options;
}

function log(line) {
  process.stderr.write(line + "\n");
}

// --- redis-server ------------------------------------------------------------------------------

/** redis-server's version line, or null when it is not installed. */
function redisServerVersion() {
  const r = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  if (r.error !== undefined || r.status !== 0) return null;
  return /v=(\S+)/.exec(r.stdout)?.[1] ?? r.stdout.trim();
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * One command over a fresh connection, enough RESP for what the benchmark asks outside the
 * measured windows (PING, CONFIG RESETSTAT, INFO): simple strings, errors, integers, bulk strings.
 */
function redisCommand(port, args, timeoutMs = 2000) {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let buffer = Buffer.alloc(0);
    const done = (err, value) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(value);
    };
    const timer = setTimeout(() => done(new Error(`redis ${args[0]}: no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on("error", (err) => done(err));
    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      const lineEnd = buffer.indexOf("\r\n");
      if (lineEnd === -1) return;
      const head = buffer.toString("latin1", 0, lineEnd);
      const type = head[0];
      if (type === "+") return done(null, head.slice(1));
      if (type === "-") return done(new Error(`redis ${args[0]}: ${head.slice(1)}`));
      if (type === ":") return done(null, Number(head.slice(1)));
      if (type === "$") {
        const length = Number(head.slice(1));
        if (length < 0) return done(null, null);
        if (buffer.length < lineEnd + 2 + length + 2) return;
        return done(null, buffer.toString("utf8", lineEnd + 2, lineEnd + 2 + length));
      }
      done(new Error(`redis ${args[0]}: unexpected reply ${JSON.stringify(head)}`));
    });
    socket.write(`*${args.length}\r\n` + args.map((a) => `$${Buffer.byteLength(String(a))}\r\n${a}\r\n`).join(""));
  });
}

/** Start redis-server on a free loopback port (pinned to `cpu` when given) and wait until it answers PING. */
async function startRedis(pinning, cpu) {
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-redis-"));
  let lastError = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const redisArgs = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no", "--loglevel", "warning"];
    const [cmd, args] = pinning.available && cpu !== null ? ["taskset", ["-c", String(cpu), "redis-server", ...redisArgs]] : ["redis-server", redisArgs];
    const child = track(spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] }));
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (output = (output + d).slice(-2000)));
    child.stderr.setEncoding("utf8").on("data", (d) => (output = (output + d).slice(-2000)));
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
      try {
        if ((await redisCommand(port, ["PING"], 500)) === "PONG") {
          const stop = async () => {
            await stopChild(child);
            rmSync(dir, { recursive: true, force: true });
          };
          return { port, pid: child.pid, url: `redis://127.0.0.1:${port}`, stop };
        }
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    lastError = `redis-server on port ${port} did not answer PING (${child.exitCode !== null ? `exited ${child.exitCode}` : "timed out"}): ${output.trim().split("\n").slice(-3).join(" ")}`;
    await stopChild(child);
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(lastError);
}

/**
 * Calls per command since the last CONFIG RESETSTAT, from INFO commandstats (the benchmark's own
 * INFO and CONFIG left out). Commands a script runs count there too (TIME, HMGET, ... inside the
 * token-bucket script), so round trips are the script calls, not the total.
 */
async function redisCommandCalls(port) {
  const info = await redisCommand(port, ["INFO", "commandstats"]);
  const calls = {};
  for (const m of String(info).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    const command = m[1].split("|")[0];
    if (command !== "info" && command !== "config") calls[m[1]] = Number(m[2]);
  }
  return calls;
}

const SCRIPT_CALLS = ["evalsha", "eval", "evalsha_ro", "eval_ro", "fcall", "fcall_ro"];

// --- measuring -----------------------------------------------------------------------------------

/** GET /hello once: the status, the body, and whether rate-limit headers came back. */
function probe(url) {
  return new Promise((resolve) => {
    const req = request(`${url}/hello`, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode, body, rateLimitLimit: res.headers["ratelimit-limit"] ?? null }));
    });
    req.on("error", (err) => resolve({ status: 0, body: String(err), rateLimitLimit: null }));
    req.end();
  });
}

/** Why a pre-flight answer is wrong for `c`, or null. */
function preflightProblem(c, answer) {
  if (answer.status !== 200 || answer.body !== EXPECTED_BODY) return `answered ${answer.status} ${answer.body.slice(0, 200)}`;
  const limited = answer.rateLimitLimit !== null;
  if (limited !== (c.store !== "none")) return limited ? "the baseline sent RateLimit-Limit" : "no RateLimit-Limit header: the layer did not run";
  return null;
}

function rotate(list, by) {
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

/** One measured window; for the Redis case also redis-server's CPU and commands over that window. */
async function measureWindow({ loadgen, spec, pipelining, duration, redis, clockTicks, withRedisStats }) {
  if (withRedisStats) await redisCommand(redis.port, ["CONFIG", "RESETSTAT"]);
  const redisTicks0 = processTicks(redis.pid);
  const r = await loadgen.run({ ...spec, pipelining, duration });
  const redisTicks1 = processTicks(redis.pid);
  const redisCpuUs = redisTicks0 === null || redisTicks1 === null ? null : ((redisTicks1 - redisTicks0) * 1e6) / clockTicks;
  const redisCpuPct = redisCpuUs === null ? null : (redisCpuUs / (r.wallS * 1e6)) * 100;
  let redisCommands = null;
  if (withRedisStats) {
    const calls = await redisCommandCalls(redis.port);
    redisCommands = { calls, scripts: SCRIPT_CALLS.reduce((n, name) => n + (calls[name] ?? 0), 0) };
  }
  return {
    ...r,
    redisCpuPct,
    redisCpuUsPerReq: withRedisStats && redisCpuUs !== null && r.requests > 0 ? redisCpuUs / r.requests : null,
    redisScriptCallsPerReq: redisCommands !== null && r.requests > 0 ? redisCommands.scripts / r.requests : null,
    redisCommands,
    // The load generator's "foreign" load counts redis-server's CPU too; take it out.
    otherCpuPct: r.foreignPct === null ? null : Math.max(0, r.foreignPct - (redisCpuPct ?? 0)),
  };
}

const round = (x, digits) => (x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10 ** digits) / 10 ** digits);

/** f(a run r, b run r) per round, then the median. */
function pairedRatio(aRuns, bRuns, pick) {
  const values = [];
  for (let i = 0; i < Math.max(aRuns.length, bRuns.length); i++) {
    const a = aRuns[i] ? pick(aRuns[i]) : null;
    const b = bRuns[i] ? pick(bRuns[i]) : null;
    if (a === null || b === null || !(b > 0)) continue;
    values.push(a / b);
  }
  return round(median(values), 3);
}

function summariseCell(c, pipelining, runs) {
  const ok = runs.filter(Boolean);
  const med = (pick, digits) => round(median(ok.map(pick)), digits);
  return {
    case: c.id,
    label: c.label,
    pipelining,
    runs: ok.length,
    reqPerSec: med((r) => r.reqPerSec, 0),
    cpuUsPerReq: med((r) => r.cpuUsPerReq, 2),
    latencyP50Ms: med((r) => r.latencyP50Ms, 2),
    latencyP99Ms: med((r) => r.latencyP99Ms, 2),
    serverCpuPct: med((r) => r.serverCpuPct, 1),
    clientCpuPct: med((r) => r.clientCpuPct, 1),
    redisCpuPct: c.store === "redis" ? med((r) => r.redisCpuPct, 1) : null,
    redisCpuUsPerReq: c.store === "redis" ? med((r) => r.redisCpuUsPerReq, 2) : null,
    serverPlusRedisCpuUsPerReq: c.store === "redis" ? med((r) => (r.cpuUsPerReq === null || r.redisCpuUsPerReq === null ? null : r.cpuUsPerReq + r.redisCpuUsPerReq), 2) : null,
    redisScriptCallsPerReq: c.store === "redis" ? med((r) => r.redisScriptCallsPerReq, 3) : null,
    otherCpuPct: med((r) => r.otherCpuPct, 1),
    // Interference only adds work: the least-disturbed round is the steadiest estimate on a busy machine.
    cpuUsPerReqBest: round(Math.min(...ok.map((r) => r.cpuUsPerReq ?? Infinity)), 2),
    reqPerSecBest: round(Math.max(...ok.map((r) => r.reqPerSec)), 0),
    all: runs.map((r) =>
      r === null
        ? null
        : {
            requests: r.requests,
            reqPerSec: round(r.reqPerSec, 0),
            cpuUsPerReq: round(r.cpuUsPerReq, 2),
            latencyP99Ms: r.latencyP99Ms,
            serverCpuPct: round(r.serverCpuPct, 1),
            redisCpuUsPerReq: round(r.redisCpuUsPerReq, 2),
            redisCommands: r.redisCommands?.calls ?? null,
            statusCounts: r.statusCounts,
          },
    ),
  };
}

function ratiosFor(runs, pipelining) {
  const get = (id) => runs.get(`${id}|${pipelining}`) ?? [];
  const pair = (a, b) => ({
    reqPerSec: pairedRatio(get(a), get(b), (r) => r.reqPerSec),
    cpuUsPerReq: pairedRatio(get(a), get(b), (r) => r.cpuUsPerReq),
    latencyP99Ms: pairedRatio(get(a), get(b), (r) => r.latencyP99Ms),
  });
  return { pipelining, redisOverMemory: pair("redis", "memory"), memoryOverBaseline: pair("memory", "baseline"), redisOverBaseline: pair("redis", "baseline") };
}

// --- report --------------------------------------------------------------------------------------

const fmt = (x, digits = 0) => (x === null || x === undefined ? "–" : x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const times = (x) => (x === null || x === undefined ? "–" : `${x.toFixed(2)}×`);

function renderTable(summary) {
  const { options, machine, pinning, redis } = summary;
  const placement = pinning.available
    ? `server under test on CPU ${pinning.serverCpu}; load generator (autocannon) on CPU ${pinning.clientCpu}; **redis-server shares CPU ${pinning.clientCpu} with the load generator** (taskset)`
    : `no pinning (${pinning.reason}): server, load generator and redis-server share the CPUs`;
  const lines = [
    `Rate limit, memory store vs Redis on loopback: GET /hello, rateLimit({ capacity: 1e9, refillPerSecond: 1e9 }), one client key; ` +
      `${options.connections} connections; ${options.rounds} round(s) × (${options.warmup} s warm-up + ${options.duration} s per pipelining level), cases interleaved per round.`,
    `${machine.cpuModel}, ${machine.cpus} CPUs, node ${machine.node}, redis-server ${redis.version}; ${placement}; load average ${machine.loadavgStart.join(" ")} → ${summary.loadavgEnd.join(" ")}.`,
    "",
    "| case | pipelining | req/s | server CPU µs/req | p50 / p99 ms | server CPU | redis CPU µs/req | server + redis µs/req | redis scripts/req | other load |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const p of options.pipelining) {
    for (const cell of summary.cells.filter((x) => x.pipelining === p)) {
      lines.push(
        `| ${cell.label} | ${p} | ${fmt(cell.reqPerSec)} | ${fmt(cell.cpuUsPerReq, 2)} | ${fmt(cell.latencyP50Ms)} / ${fmt(cell.latencyP99Ms)} | ${fmt(cell.serverCpuPct)}% | ` +
          `${fmt(cell.redisCpuUsPerReq, 2)} | ${fmt(cell.serverPlusRedisCpuUsPerReq, 2)} | ${fmt(cell.redisScriptCallsPerReq, 2)} | ${fmt(cell.otherCpuPct)}% |`,
      );
    }
  }
  lines.push(
    "",
    "| pipelining | req/s redis ÷ memory | CPU µs/req redis ÷ memory | p99 redis ÷ memory | req/s memory ÷ baseline | CPU µs/req memory ÷ baseline | req/s redis ÷ baseline | CPU µs/req redis ÷ baseline |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const r of summary.ratios) {
    lines.push(
      `| ${r.pipelining} | ${times(r.redisOverMemory.reqPerSec)} | ${times(r.redisOverMemory.cpuUsPerReq)} | ${times(r.redisOverMemory.latencyP99Ms)} | ` +
        `${times(r.memoryOverBaseline.reqPerSec)} | ${times(r.memoryOverBaseline.cpuUsPerReq)} | ${times(r.redisOverBaseline.reqPerSec)} | ${times(r.redisOverBaseline.cpuUsPerReq)} |`,
    );
  }
  lines.push(
    "",
    "Figures are medians over rounds; ratios are plain quotients paired per round (a ÷ b in round r, then the median), so req/s below 1.00× and CPU µs/req above 1.00× " +
      "mean the first case costs more. Server CPU µs/req is keel's process only (utime+stime over the window ÷ requests, 10 ms ticks); redis CPU µs/req is redis-server's over " +
      "the same window, and it runs on the load generator's CPU, so in the Redis case the load generator has less CPU and req/s is partly client-bound: compare CPU per request first. " +
      "redis scripts/req is EVALSHA calls (INFO commandstats) over the window ÷ requests: 1.00 is one round trip per request. p99 has autocannon's 1 ms resolution. Other load is CPU (% of one core) used by other processes.",
  );
  if (summary.problems.length > 0) lines.push("", "**Problems:**", ...summary.problems.map((p) => `- ${p}`));
  return lines.join("\n") + "\n";
}

function writeJson(file, data) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(data, null, 2) + "\n");
}

// --- main ----------------------------------------------------------------------------------------

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.help) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  const started = Date.now();
  const command = `node bench/rate-limit-store.mjs${process.argv.length > 2 ? " " + process.argv.slice(2).join(" ") : ""}`;
  const version = redisServerVersion();
  if (version === null) {
    const why = "skipped: redis-server is not installed (not found on the PATH; Debian: apt-get install redis-server)";
    process.stdout.write(why + "\n");
    writeJson(options.out, { date: new Date().toISOString(), command, skipped: why });
    return 0;
  }
  process.once("SIGINT", () => process.exit(130));
  const pinning = detectPinning();
  const clockTicks = clockTicksPerSecond();
  const machine = machineNotes({ pinning, clockTicks, rootDir: ROOT_DIR });
  log(`rate-limit store bench: ${machine.cpuModel} ×${machine.cpus}, node ${process.version}, redis-server ${version}, pinning: ${machine.pinning}`);

  log("bundling the server with esbuild ...");
  const { builds, errors } = await buildBenchEntries({ benchDir: BENCH_DIR, outDir: BUILD_DIR, entries: [SERVER_ENTRY] });
  const serverFile = builds["keel-rate-limit"];
  if (serverFile === undefined) throw new Error(`${SERVER_ENTRY} did not bundle:\n${errors["keel-rate-limit"]}`);

  const redisCpu = pinning.available ? pinning.clientCpu : null;
  const redis = await startRedis(pinning, redisCpu);
  log(`redis-server ${version} on ${redis.url}${redisCpu === null ? "" : ` (CPU ${redisCpu}, shared with the load generator)`}`);
  const loadgen = await startLoadGenerator(pinning);
  const runs = new Map(); // `${case}|${pipelining}` -> results by round (null: failed)
  const problems = [];
  try {
    for (let r = 0; r < options.rounds; r++) {
      for (const c of rotate(CASES, r)) {
        const label = `[r${r + 1} ${c.id}]`;
        const args = ["--store", c.store, ...(c.store === "redis" ? ["--redis-url", redis.url] : [])];
        const record = (p, result) => {
          const key = `${c.id}|${p}`;
          if (!runs.has(key)) runs.set(key, []);
          runs.get(key)[r] = result;
        };
        let server;
        try {
          server = await startServer({ file: serverFile, args, pinning });
          if (server.pending) throw new Error(`pending: ${server.pending}`);
        } catch (err) {
          problems.push(`${c.id} r${r + 1}: server failed to start: ${String(err.message).split("\n")[0]}`);
          log(`${label} server failed to start: ${err.message}`);
          for (const p of options.pipelining) record(p, null);
          continue;
        }
        try {
          const why = preflightProblem(c, await probe(server.url));
          if (why !== null) throw new Error(`pre-flight GET /hello ${why}`);
          const spec = { url: `${server.url}/hello`, method: "GET", headers: {}, connections: options.connections, serverPid: server.pid, clockTicks };
          if (options.warmup > 0) await loadgen.run({ ...spec, pipelining: Math.max(...options.pipelining), duration: options.warmup });
          const parts = [];
          for (const p of options.pipelining) {
            const m = await measureWindow({ loadgen, spec, pipelining: p, duration: options.duration, redis, clockTicks, withRedisStats: c.store === "redis" });
            const good = m.statusCounts["200"] ?? 0;
            if (m.requests === 0 || good < m.requests * 0.99 || m.errors > 0) {
              problems.push(`${c.id} p${p} r${r + 1}: ${m.requests} responses, ${good} with status 200, ${m.errors} errors`);
              record(p, null);
            } else record(p, m);
            parts.push(`p${p} ${fmt(m.reqPerSec)} req/s ${fmt(m.cpuUsPerReq, 2)} µs/req p99 ${m.latencyP99Ms} ms${m.redisCpuUsPerReq === null ? "" : ` redis ${fmt(m.redisCpuUsPerReq, 2)} µs/req`}`);
          }
          log(`${label} ${parts.join(" | ")}`);
        } catch (err) {
          problems.push(`${c.id} r${r + 1}: ${err.message}`);
          log(`${label} failed: ${err.message}`);
          for (const p of options.pipelining) if (runs.get(`${c.id}|${p}`)?.[r] === undefined) record(p, null);
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    await loadgen.close();
    await redis.stop();
  }

  const cells = [];
  for (const p of options.pipelining) for (const c of CASES) cells.push(summariseCell(c, p, runs.get(`${c.id}|${p}`) ?? []));
  const unmeasured = cells.filter((x) => x.runs === 0);
  const summary = {
    date: new Date().toISOString(),
    command,
    mode: options.quick ? "quick" : "full",
    machine,
    pinning: { ...pinning, redisCpu },
    redis: { version, placement: redisCpu === null ? "unpinned" : `CPU ${redisCpu}, shared with the load generator` },
    options: { ...options, out: relative(ROOT_DIR, options.out) },
    cases: CASES,
    cells,
    ratios: options.pipelining.map((p) => ratiosFor(runs, p)),
    problems,
    loadavgEnd: currentLoadavg(),
    elapsedMs: Date.now() - started,
  };
  writeJson(options.out, summary);
  process.stdout.write("\n" + renderTable(summary));
  log(`results: ${relative(ROOT_DIR, options.out)}; done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (unmeasured.length > 0) log(`not measured: ${unmeasured.map((x) => `${x.case} p${x.pipelining}`).join(", ")}`);
  return unmeasured.length > 0 || problems.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`rate-limit-store failed: ${err?.message ?? err}`);
    process.exit(1);
  },
);
