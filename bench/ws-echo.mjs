#!/usr/bin/env node
// WebSocket echo: keel/ws (bench/servers/ws-keel.ts) against the `ws` package
// (bench/servers/ws-peer.mjs, installed into bench/.peers), both with permessage-deflate off.
// For each message size and round a fresh server process runs pinned to CPU 0 while the load
// generator (bench/harness/ws-load.mjs, its own process) runs on CPU 1: N connections, each with
// `--in-flight` messages out (1: ping-pong), every echo checked. Messages per second are counted
// over the measured window after a warm-up, with the server's CPU time from /proc over the same
// window. The order alternates per round (keel ws, ws keel, ...); the report gives medians over
// rounds and ratios paired per round (keel in round r ÷ ws in round r, then the median).
//
//   node bench/ws-echo.mjs [--seconds 5] [--warmup 1] [--rounds 3] [--connections 16]
//                          [--sizes 64,65536] [--in-flight 1] [--kind binary|text] [--json]
//
// Without --json the markdown table goes to stdout; with --json stdout is one JSON summary and
// the table goes to stderr with the progress lines. Exit code 1 when a server fails to start or
// answers an echo wrongly (a correctness bug, not a slow run).
import { numberOption } from "./harness/args.mjs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBenchEntries } from "./harness/build.mjs";
import { machineNotes } from "./harness/machine.mjs";
import { ensurePeers, peerVersions } from "./harness/peers.mjs";
import { clockTicksPerSecond, detectPinning, nodeCommand, runCommand, startServer } from "./harness/processes.mjs";
import { median } from "./harness/stats.mjs";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT_DIR = dirname(BENCH_DIR);
const PEERS_DIR = join(BENCH_DIR, ".peers");
const BUILD_DIR = join(PEERS_DIR, "build");
const LOAD_SCRIPT = join(BENCH_DIR, "harness", "ws-load.mjs");

const USAGE =
  "usage: node bench/ws-echo.mjs [--seconds 5] [--warmup 1] [--rounds 3] [--connections 16] [--sizes 64,65536] [--in-flight 1] [--kind binary|text] [--no-peers] [--json]";

const SERVERS = [
  { id: "keel", entry: "servers/ws-keel.ts", label: "keel/ws" },
  { id: "ws", entry: "servers/ws-peer.mjs", label: "ws" },
];

function parseArgs(argv) {
  const options = { seconds: 5, warmup: 1, rounds: 3, connections: 16, sizes: [64, 65536], inFlight: 1, kind: "binary", peers: true, json: false };
  const number = numberOption;
  for (let i = 0; i < argv.length; i++) {
    const eq = argv[i].indexOf("=");
    const name = eq === -1 ? argv[i] : argv[i].slice(0, eq);
    const value = () => (eq === -1 ? argv[++i] : argv[i].slice(eq + 1));
    if (name === "--seconds") options.seconds = number("seconds", value(), { min: 0.1, integer: false });
    else if (name === "--warmup") options.warmup = number("warmup", value(), { min: 0, integer: false });
    else if (name === "--rounds") options.rounds = number("rounds", value(), { min: 1, integer: true });
    else if (name === "--connections") options.connections = number("connections", value(), { min: 1, integer: true });
    else if (name === "--in-flight" || name === "--pipelining") options.inFlight = number("in-flight", value(), { min: 1, integer: true });
    else if (name === "--sizes") options.sizes = String(value() ?? "").split(",").map((s) => number("sizes", s.trim(), { min: 1, integer: true }));
    else if (name === "--kind") {
      const kind = value();
      if (kind !== "binary" && kind !== "text") throw new Error(`--kind is binary or text (got ${kind})`);
      options.kind = kind;
    } else if (name === "--no-peers") options.peers = false;
    else if (name === "--json") options.json = true;
    else if (name === "--help" || name === "-h") options.help = true;
    else throw new Error(`unknown argument ${argv[i]} (${USAGE})`);
  }
  return options;
}

function log(line) {
  process.stderr.write(line + "\n");
}

/** One measured window against a running server, from the load process pinned to the client CPU. */
async function measure(server, size, options, pinning, clockTicks) {
  const spec = {
    port: server.port,
    path: "/echo",
    connections: options.connections,
    size,
    kind: options.kind,
    inFlight: options.inFlight,
    warmupMs: Math.round(options.warmup * 1000),
    durationMs: Math.round(options.seconds * 1000),
    serverPid: server.pid,
    clockTicks,
  };
  const [cmd, args] = nodeCommand(pinning, pinning.available ? pinning.clientCpu : null, [LOAD_SCRIPT, JSON.stringify(spec)]);
  const timeoutMs = spec.warmupMs + spec.durationMs + 30_000;
  const r = await runCommand(cmd, args, { timeoutMs });
  const lastLine = r.stdout.trim().split("\n").pop() ?? "";
  let result;
  try {
    result = JSON.parse(lastLine);
  } catch {
    throw new Error(`load generator exit ${r.code}${r.timedOut ? " (timed out)" : ""}: ${(r.stderr || r.stdout).trim().split("\n").slice(-3).join(" ")}`);
  }
  if (!result.ok) throw new Error(result.error);
  return result;
}

const round = (x, digits) => (x === null || x === undefined ? null : Math.round(x * 10 ** digits) / 10 ** digits);

/** Paired per round: f(keel run r, ws run r), then the median over rounds. */
function pairedMedian(keelRuns, wsRuns, f) {
  const values = [];
  for (let r = 0; r < keelRuns.length; r++) {
    const k = keelRuns[r];
    const w = wsRuns[r];
    if (k === undefined || w === undefined) continue;
    const v = f(k, w);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  return median(values);
}

function summarise(id, runs) {
  return {
    id,
    runs: runs.length,
    msgsPerSec: round(median(runs.map((r) => r.msgsPerSec)), 0),
    msgsPerSecAll: runs.map((r) => round(r.msgsPerSec, 0)),
    serverCpuUsPerMsg: round(median(runs.map((r) => r.serverCpuUsPerMsg)), 2),
    serverCpuPct: round(median(runs.map((r) => r.serverCpuPct)), 1),
    clientCpuPct: round(median(runs.map((r) => r.clientCpuPct)), 1),
    otherCpuPct: round(median(runs.map((r) => r.otherCpuPct)), 1),
    meanRoundTripUs: round(median(runs.map((r) => r.meanRoundTripUs)), 1),
  };
}

function sizeLabel(bytes) {
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}

const fmt = (x, digits = 0) => (x === null || x === undefined ? "–" : x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const times = (x) => (x === null || x === undefined ? "–" : `${x.toFixed(2)}×`);

function renderTable(summary) {
  const { options, machine, pinning, versions } = summary;
  const lines = [
    `WebSocket echo, keel/ws vs ws ${versions.ws ?? "(not installed)"}: ${options.connections} connections, ${options.inFlight} ${options.kind} message${options.inFlight === 1 ? "" : "s"} in flight each` +
      `${options.inFlight === 1 ? " (ping-pong)" : " (pipelined)"}, permessage-deflate off; ${options.rounds} round(s) × (${options.warmup} s warm-up + ${options.seconds} s), order alternating per round.`,
    `${machine.cpuModel}, ${machine.cpus} CPUs, node ${machine.node}; ${pinning.available ? `server on CPU ${pinning.serverCpu}, load generator on CPU ${pinning.clientCpu} (taskset)` : `no pinning (${pinning.reason})`}; load average ${machine.loadavgStart.join(" ")}.`,
    "",
    "| message | keel msgs/s | ws msgs/s | keel ÷ ws msgs/s | keel CPU µs/msg | ws CPU µs/msg | ws ÷ keel CPU/msg | server CPU keel / ws | client CPU keel / ws | other load |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const s of summary.results) {
    const k = s.keel;
    const w = s.ws;
    lines.push(
      `| ${sizeLabel(s.size)} | ${fmt(k.msgsPerSec)} | ${fmt(w?.msgsPerSec)} | ${times(s.msgsRatio)} | ${fmt(k.serverCpuUsPerMsg, 2)} | ${fmt(w?.serverCpuUsPerMsg, 2)} | ${times(s.cpuRatio)} | ` +
        `${fmt(k.serverCpuPct)}% / ${w ? `${fmt(w.serverCpuPct)}%` : "–"} | ${fmt(k.clientCpuPct)}% / ${w ? `${fmt(w.clientCpuPct)}%` : "–"} | ${fmt(s.otherCpuPct)}% |`,
    );
  }
  lines.push(
    "",
    "msgs/s and CPU µs/msg: medians over rounds. The ratios are paired per round, then the median; both read \"above 1.00× = keel ahead\". " +
      "CPU µs/msg is the server's utime+stime over the window ÷ echoed messages (10 ms ticks). " +
      "A server below ~90% CPU was waiting for the client; other load is the CPU (% of one core) other processes used during the windows.",
  );
  if (summary.note) lines.push("", summary.note);
  return lines.join("\n") + "\n";
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.help) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  const started = Date.now();
  process.once("SIGINT", () => process.exit(130));
  const pinning = detectPinning();
  const clockTicks = clockTicksPerSecond();
  const machine = machineNotes({ pinning, clockTicks, rootDir: ROOT_DIR });
  log(`ws echo bench: ${machine.cpuModel} ×${machine.cpus}, node ${process.version}, pinning: ${machine.pinning}`);

  let note = "";
  if (options.peers) {
    const peers = await ensurePeers(PEERS_DIR, log);
    if (peers.note) note = peers.note;
  }
  const versions = { ws: peerVersions(PEERS_DIR).ws };
  log("bundling the echo servers with esbuild ...");
  const { builds, errors } = await buildBenchEntries({ benchDir: BENCH_DIR, outDir: BUILD_DIR, entries: SERVERS.map((s) => s.entry) });
  if (builds["ws-keel"] === undefined) throw new Error(`bench/servers/ws-keel.ts did not bundle:\n${errors["ws-keel"]}`);
  const servers = SERVERS.filter((s) => s.id === "keel" || (versions.ws !== null && builds["ws-peer"] !== undefined));
  if (servers.length === 1) {
    note = `ws was not measured: ${versions.ws === null ? "not installed in bench/.peers" : `bench/servers/ws-peer.mjs did not bundle: ${errors["ws-peer"]}`}${note ? ` (${note})` : ""}.`;
    log(note);
  }
  const fileOf = (s) => builds[s.id === "keel" ? "ws-keel" : "ws-peer"];

  const results = [];
  for (const size of options.sizes) {
    const runs = Object.fromEntries(servers.map((s) => [s.id, []]));
    for (let r = 0; r < options.rounds; r++) {
      const order = r % 2 === 0 ? servers : [...servers].reverse();
      for (const s of order) {
        const server = await startServer({ file: fileOf(s), pinning });
        if (server.pending) throw new Error(`${s.label} server is pending: ${server.pending}`);
        try {
          const m = await measure(server, size, options, pinning, clockTicks);
          runs[s.id].push(m);
          log(`  ${sizeLabel(size)} round ${r + 1} ${s.label}: ${fmt(m.msgsPerSec)} msgs/s, ${fmt(m.serverCpuUsPerMsg, 2)} µs CPU/msg, server ${fmt(m.serverCpuPct)}%, client ${fmt(m.clientCpuPct)}%`);
        } catch (err) {
          throw new Error(`${s.label}, ${size}-byte ${options.kind} messages, round ${r + 1}: ${err.message}`);
        } finally {
          await server.stop();
        }
      }
    }
    const keelRuns = runs.keel;
    const wsRuns = runs.ws;
    const all = servers.flatMap((s) => runs[s.id]);
    results.push({
      size,
      keel: summarise("keel", keelRuns),
      ws: wsRuns === undefined ? null : summarise("ws", wsRuns),
      msgsRatio: wsRuns === undefined ? null : round(pairedMedian(keelRuns, wsRuns, (k, w) => k.msgsPerSec / w.msgsPerSec), 3),
      cpuRatio:
        wsRuns === undefined ? null : round(pairedMedian(keelRuns, wsRuns, (k, w) => (k.serverCpuUsPerMsg > 0 && w.serverCpuUsPerMsg !== null ? w.serverCpuUsPerMsg / k.serverCpuUsPerMsg : null)), 3),
      otherCpuPct: round(median(all.map((m) => m.otherCpuPct)), 1),
      runs,
    });
  }

  const summary = {
    date: new Date().toISOString(),
    command: `node bench/ws-echo.mjs${process.argv.length > 2 ? " " + process.argv.slice(2).join(" ") : ""}`,
    machine,
    pinning,
    options,
    versions,
    note,
    results,
    elapsedMs: Date.now() - started,
  };
  const table = renderTable(summary);
  if (options.json) {
    process.stderr.write("\n" + table);
    process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
  } else process.stdout.write("\n" + table);
  log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`ws-echo failed: ${err?.message ?? err}`);
    process.exit(1);
  },
);
