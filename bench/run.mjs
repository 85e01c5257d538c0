#!/usr/bin/env node
// keel's benchmark suite (issue 4). `npm run bench` (full, ~15 min) or `npm run bench -- --quick`
// (CI, keel vs raw node:http, under 3 min). Progress goes to stderr, the markdown report to
// stdout and bench/results/latest.md, every number to bench/results/latest.json.
// How to read the results: bench/README.md.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBenchEntries } from "./harness/build.mjs";
import { measureFootprint, bundleSize } from "./harness/footprint.mjs";
import { runHttpMatrix } from "./harness/http-matrix.mjs";
import { currentLoadavg, machineNotes } from "./harness/machine.mjs";
import { runUnderChosenNode } from "./harness/node-binary.mjs";
import { ensurePeers, peerVersions } from "./harness/peers.mjs";
import { clockTicksPerSecond, detectPinning, nodeCommand, runCommand, startLoadGenerator } from "./harness/processes.mjs";
import { profileKeel } from "./harness/profile.mjs";
import { renderReport } from "./harness/report.mjs";
import { IMPLEMENTATIONS, SCENARIOS } from "./harness/scenarios.mjs";
import { median } from "./harness/stats.mjs";
import { writeChartFile } from "./harness/chart.mjs";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT_DIR = dirname(BENCH_DIR);
const PEERS_DIR = join(BENCH_DIR, ".peers");
const BUILD_DIR = join(PEERS_DIR, "build");
const RESULTS_DIR = join(BENCH_DIR, "results");
/** The gate: keel below this fraction of raw req/s on /hello or the param route fails (`--gate`). */
let GROSS_REGRESSION_RATIO = 0.5;

const HELP = `usage: node bench/run.mjs [--quick] [options]
  --quick               CI mode: keel vs raw, pipelining 10, 1 s warm-up + 3 s, one round
  --duration S          measured seconds per window (full 3, quick 3)
  --warmup S            warm-up seconds per server start (full 1, quick 1)
  --starts N            server starts (rounds) per cell (full 3, quick 1)
  --connections N       autocannon connections (10)
  --pipelining A,B      pipelining levels (full 1,10; quick 10)
  --only a,b            scenarios: ${SCENARIOS.map((s) => s.id).join(",")}; \`--only postgres\` runs only
                        the PostgreSQL drivers bench (bench/postgres-drivers.ts), nothing else
  --postgres            add the PostgreSQL drivers bench (keel/postgres vs postgres.js vs pg; opt-in:
                        it needs PostgreSQL installed, and says "skipped" when it is not)
  --impls a,b           implementations: ${IMPLEMENTATIONS.map((i) => i.id).join(",")}
  --no-peers            do not install/use Fastify and Hono
  --no-http --no-micro --no-footprint --no-profile --no-external   skip a part
  --micro --footprint --profile   add a part in quick mode (or run only it with --no-http)
  --gate R              gross-regression ratio for the exit code (0.5)
  --external-full       run the other bench/*.bench.ts scripts in their full mode
  --build               run \`npm run build\` first when dist/keel.js is missing
  --out FILE            results JSON (default bench/results/latest.json)
  --node PATH|VERSION   run the whole suite under another Node binary (24, 26.12.1: installed into
                        the ignored .tmp/node by scripts/node-versions.mjs); the report names it`;

function parseArgs(argv) {
  const flags = new Set();
  const values = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) throw new Error(`unexpected argument ${a}`);
    const eq = a.indexOf("=");
    if (eq !== -1) values[a.slice(2, eq)] = a.slice(eq + 1);
    else if (["duration", "warmup", "starts", "connections", "pipelining", "only", "impls", "out", "gate"].includes(a.slice(2))) values[a.slice(2)] = argv[++i];
    else flags.add(a.slice(2));
  }
  const quick = flags.has("quick");
  const list = (v) => (v === undefined ? undefined : String(v).split(",").map((x) => x.trim()).filter(Boolean));
  const positive = (name, v, fallback) => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number`);
    return n;
  };
  const part = (name, defaultOn) => (flags.has(`no-${name}`) ? false : flags.has(name) ? true : defaultOn);
  const only = list(values.only);
  // `--only postgres` names no HTTP scenario: the PostgreSQL bench alone.
  const postgresOnly = only !== undefined && only.includes("postgres") && only.every((id) => id === "postgres");
  if (postgresOnly) for (const name of ["http", "micro", "footprint", "profile", "external"]) flags.add(`no-${name}`);
  return {
    help: flags.has("help") || flags.has("h"),
    quick,
    duration: positive("duration", values.duration, 3),
    warmup: positive("warmup", values.warmup, 1),
    starts: Math.max(1, Math.round(positive("starts", values.starts, quick ? 1 : 3))),
    connections: Math.max(1, Math.round(positive("connections", values.connections, 10))),
    pipelining: (list(values.pipelining) ?? (quick ? ["10"] : ["1", "10"])).map(Number),
    only: only?.filter((id) => id !== "postgres"),
    postgres: flags.has("postgres") || (only !== undefined && only.includes("postgres")),
    impls: list(values.impls),
    peers: !quick && !flags.has("no-peers"),
    http: part("http", true),
    micro: part("micro", !quick),
    footprint: part("footprint", !quick),
    profile: part("profile", !quick),
    external: part("external", !quick),
    build: flags.has("build"),
    externalFull: flags.has("external-full"),
    out: values.out ?? join(RESULTS_DIR, "latest.json"),
    gate: positive("gate", values.gate, 0.5),
  };
}

function log(line) {
  process.stderr.write(line + "\n");
}

function gitCommit() {
  try {
    const sha = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT_DIR, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "lib"], { cwd: ROOT_DIR, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    return dirty ? `${sha} (lib/ has uncommitted changes)` : sha;
  } catch {
    return null;
  }
}

/** The quick gate: a gross regression is keel below half of raw on /hello or the param route. */
function regressionGate(http, keelBuildError) {
  const checks = [];
  // keel failing to bundle or to serve while raw serves is the grossest regression of all.
  if (keelBuildError !== undefined) checks.push({ cell: "keel server did not bundle", ratio: 0 });
  for (const s of http.scenarios.filter((x) => x.id === "hello" || x.id === "param")) {
    for (const c of s.cells.filter((x) => x.impl === "keel")) {
      const r = c.ratios.raw?.reqPerSec;
      if (r !== undefined && r !== null) checks.push({ cell: `${s.id} p${c.pipelining}`, ratio: r });
    }
    const keelRan = s.cells.some((x) => x.impl === "keel");
    const rawRan = s.cells.some((x) => x.impl === "raw");
    if (!keelRan && rawRan && s.pending.keel === undefined) checks.push({ cell: `${s.id} (keel did not serve)`, ratio: 0 });
  }
  if (checks.length === 0) return { failed: false, detail: "no keel/raw pair measured on /hello or the param route; nothing to judge" };
  const bad = checks.filter((c) => c.ratio < GROSS_REGRESSION_RATIO);
  const summary = checks.map((c) => `${c.cell} ${c.ratio.toFixed(2)}×`).join(", ");
  return {
    failed: bad.length > 0,
    threshold: GROSS_REGRESSION_RATIO,
    checks,
    detail: bad.length > 0 ? `keel req/s below ${GROSS_REGRESSION_RATIO}× raw: ${summary}` : `keel req/s ÷ raw: ${summary} (fails below ${GROSS_REGRESSION_RATIO}×)`,
  };
}

async function runMicro(builds, pinning, quick) {
  if (builds["hot-path"] === undefined) return { error: "bench/micro/hot-path.ts did not bundle" };
  const [cmd, args] = nodeCommand(pinning, pinning.available ? pinning.serverCpu : null, [builds["hot-path"], "--json", ...(quick ? ["--quick"] : [])]);
  const r = await runCommand(cmd, args, { timeoutMs: 300_000 });
  if (r.code !== 0) return { error: `exit ${r.code}: ${r.stderr.trim().split("\n").slice(-3).join(" ")}` };
  try {
    return { results: JSON.parse(r.stdout.trim().split("\n").pop()) };
  } catch (e) {
    return { error: `unreadable output: ${e.message}` };
  }
}

/**
 * The other helpers' scripts, bench/*.bench.ts (router, validation, toon, ...), when present. In
 * their own --quick mode by default, so the full suite stays near 15 minutes (`--external-full`
 * runs them in full: about a minute each).
 */
async function runExternal(pinning, quick) {
  const out = [];
  const files = readdirSync(BENCH_DIR).filter((f) => f.endsWith(".bench.ts")).sort();
  for (const file of files) {
    const path = join(BENCH_DIR, file);
    const nodeArgs = ["--import", "tsx", path, ...(quick ? ["--quick"] : [])];
    const [cmd, args] = nodeCommand(pinning, pinning.available ? pinning.serverCpu : null, nodeArgs);
    log(`running bench/${file} ...`);
    const r = await runCommand(cmd, args, { cwd: ROOT_DIR, timeoutMs: quick ? 120_000 : 300_000 });
    out.push({ file: `bench/${file}`, command: `node ${nodeArgs.map((a) => (a === path ? relative(ROOT_DIR, path) : a)).join(" ")}`, ...r });
  }
  return out;
}

/**
 * bench/postgres-drivers.ts (opt-in: `--postgres` or `--only postgres`): keel/postgres vs
 * postgres.js vs pg under keel, against a throwaway PostgreSQL. Without PostgreSQL it prints
 * "skipped: <why>", which goes into the report as it is.
 */
async function runPostgresDrivers(opts, argv) {
  const script = join(BENCH_DIR, "postgres-drivers.ts");
  // Windows given on the command line apply to it too; its JSON goes beside the suite's.
  const given = (name) => argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  const args = [...(opts.quick ? ["--quick"] : [])];
  if (given("duration")) args.push("--duration", String(opts.duration));
  if (given("warmup")) args.push("--warmup", String(opts.warmup));
  if (given("starts")) args.push("--rounds", String(opts.starts));
  if (given("connections")) args.push("--connections", String(opts.connections));
  if (given("pipelining")) args.push("--pipelining", opts.pipelining.join(","));
  args.push("--out", join(dirname(opts.out), "postgres-drivers.json"));
  const nodeArgs = ["--import", "tsx", script, ...args];
  log("\nPostgreSQL drivers (bench/postgres-drivers.ts) ...");
  const r = await runCommand(process.execPath, nodeArgs, { cwd: ROOT_DIR, timeoutMs: 1_200_000 });
  const command = `node --import tsx bench/postgres-drivers.ts ${args.map((a) => (a.startsWith("/") ? relative(ROOT_DIR, a) : a)).join(" ")}`;
  const report = r.stdout.trim() || `failed (exit ${r.code}): ${r.stderr.trim().split("\n").slice(-3).join(" ")}`;
  log(report.startsWith("skipped") ? `PostgreSQL drivers: ${report}` : "PostgreSQL drivers: done");
  return { command, code: r.code, report };
}

async function main() {
  const opts = parseArgs(runUnderChosenNode(new URL(import.meta.url), process.argv.slice(2)));
  if (opts.help) {
    process.stdout.write(HELP + "\n");
    return 0;
  }
  const started = Date.now();
  GROSS_REGRESSION_RATIO = opts.gate;
  process.once("SIGINT", () => process.exit(130));
  const pinning = detectPinning();
  const clockTicks = clockTicksPerSecond();
  const results = {
    date: new Date().toISOString(),
    mode: opts.quick ? "quick" : "full",
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`,
    git: gitCommit(),
    machine: machineNotes({ pinning, clockTicks, rootDir: ROOT_DIR }),
    config: { duration: opts.duration, warmup: opts.warmup, starts: opts.starts, connections: opts.connections, pipelining: opts.pipelining },
    peers: { ok: false, versions: peerVersions(PEERS_DIR), note: opts.peers ? "" : "not used in this mode" },
    http: { scenarios: [] },
  };
  log(`keel bench (${results.mode}): ${results.machine.cpuModel} ×${results.machine.cpus}, node ${process.version}, pinning: ${results.machine.pinning}`);

  if (opts.peers && (opts.http || opts.external)) results.peers = await ensurePeers(PEERS_DIR, log);
  let impls = IMPLEMENTATIONS.filter((i) => i.only === undefined && i.optIn !== true && (!i.peer || results.peers.ok));
  if (opts.quick) impls = impls.filter((i) => i.id === "keel" || i.id === "raw");
  if (opts.impls) impls = IMPLEMENTATIONS.filter((i) => i.only === undefined && opts.impls.includes(i.id) && (!i.peer || results.peers.ok || existsSync(join(PEERS_DIR, "node_modules", i.id))));
  let scenarios = SCENARIOS.filter((s) => !opts.quick || s.quick);
  if (opts.only) scenarios = SCENARIOS.filter((s) => opts.only.includes(s.id));

  // `--only postgres` needs neither the HTTP servers nor this load generator (its script has its own).
  const serversNeeded = opts.http || opts.micro || opts.footprint || opts.profile;
  if (serversNeeded) log("bundling servers with esbuild ...");
  const entries = serversNeeded ? [...new Set([...impls.map((i) => i.entry), "servers/keel.ts", "servers/raw.ts", "micro/hot-path.ts"])] : [];
  const { builds, errors: buildErrors } = await buildBenchEntries({ benchDir: BENCH_DIR, outDir: BUILD_DIR, entries });
  for (const [name, why] of Object.entries(buildErrors)) log(`bundling ${name} failed:\n${why}`);
  results.buildErrors = buildErrors;
  impls = impls.filter((i) => builds[i.id] !== undefined);
  const loadgen = serversNeeded ? await startLoadGenerator(pinning) : null;
  try {
    if (opts.http) {
      const matrix = { impls, builds, loadgen, pinning, clockTicks, log };
      results.http = await runHttpMatrix({ ...matrix, scenarios, config: results.config });
      // A failing gate is confirmed before it fails CI: a busy neighbour can starve one server
      // for one window. The failing scenarios run again with 3 fresh starts each (A B A B A B).
      const first = regressionGate(results.http, buildErrors.keel);
      const suspects = scenarios.filter((s) => first.checks?.some((c) => c.ratio < GROSS_REGRESSION_RATIO && c.cell.startsWith(s.id)));
      if (first.failed && suspects.length > 0 && results.config.starts < 3) {
        log(`\ngate failed (${first.detail}); confirming with 3 more starts per server ...`);
        const again = await runHttpMatrix({ ...matrix, scenarios: suspects, config: { ...results.config, starts: 3 } });
        results.http.scenarios = results.http.scenarios.map((s) => {
          const redo = again.scenarios.find((x) => x.id === s.id);
          return redo === undefined ? s : { ...redo, confirmedAfter: first.detail };
        });
      }
    }
    if (opts.micro) {
      log("\nmicro-benchmarks ...");
      results.micro = await runMicro(builds, pinning, opts.quick);
    }
    if (opts.footprint && builds.keel !== undefined && builds.raw !== undefined) {
      log("\nfootprint ...");
      results.footprint = {
        bundle: await bundleSize({ rootDir: ROOT_DIR, outDir: BUILD_DIR, tryBuild: opts.build, log }),
        ...(await measureFootprint({ rootDir: ROOT_DIR, outDir: BUILD_DIR, builds, pinning, loadgen, clockTicks, starts: opts.quick ? 3 : 10, log })),
      };
    }
    if (opts.profile && builds.keel !== undefined) {
      log("\nprofiling keel under load ...");
      const which = SCENARIOS.filter((s) => s.id === "hello" || s.id === "param" || s.id === "post");
      results.profiles = await profileKeel({ rootDir: ROOT_DIR, builds, scenarios: which, loadgen, pinning, clockTicks, seconds: opts.quick ? 3 : 5, outDir: join(RESULTS_DIR, "profiles"), log });
    }
  } finally {
    await loadgen?.close();
  }
  if (opts.external) results.external = await runExternal(pinning, opts.quick || !opts.externalFull);
  if (opts.postgres) results.postgres = await runPostgresDrivers(opts, process.argv.slice(2));

  const allRuns = results.http.scenarios.flatMap((s) => s.cells.flatMap((c) => c.runs.filter(Boolean)));
  results.foreignCpuPct = median(allRuns.map((r) => r.foreignPct));
  results.foreignCpuPctMax = allRuns.length ? Math.max(...allRuns.map((r) => r.foreignPct ?? 0)) : null;
  results.loadavgEnd = currentLoadavg();
  results.regression = opts.http ? regressionGate(results.http, buildErrors.keel) : null;
  results.elapsedMs = Date.now() - started;

  let report = renderReport(results, impls);
  if (results.postgres !== undefined) report += `\n## PostgreSQL drivers (\`${results.postgres.command}\`)\n\n${results.postgres.report}\n`;
  mkdirSync(dirname(opts.out), { recursive: true });
  writeFileSync(opts.out, JSON.stringify(results, null, 2) + "\n");
  writeFileSync(opts.out.replace(/\.json$/, "") + ".md", report);
  if (opts.http) writeChartFile(results, join(dirname(opts.out), "chart.svg"), log); // keel, raw, Fastify, Hono per scenario (docs/operations/performance.md)
  process.stdout.write("\n" + report);
  log(`results: ${relative(process.cwd(), opts.out)} (+ .md), ${(results.elapsedMs / 1000).toFixed(0)} s`);
  return results.regression?.failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`bench failed: ${err?.stack ?? err}`);
    // A broken harness is not a measured regression: say so loudly, but do not fail CI on it.
    process.exit(0);
  },
);
