// GET /users/{id} and POST /users served by keel against PostgreSQL on loopback, with the driver
// chosen per case: keel's own client (keel/postgres, `connectPostgres`), postgres.js and pg
// (node-postgres), in the same run (issue 35 item 6). One server file,
// bench/servers/keel-postgres.ts, bundled into bench/.peers/build; the route code is the same
// for every driver. PostgreSQL is a throwaway cluster (spec/support/postgres-server.ts: initdb +
// pg_ctl on a free loopback port, fsync off) with 10,000 users; the drivers are the test peers at
// their pinned versions (spec/support/postgres-peers.ts). keel's client is loaded from
// lib/postgres when it exists (bundled here); until then its case says "not built".
//
// With taskset and two CPUs the keel server runs on CPU 0 and the load generator (autocannon)
// on CPU 1, and PostgreSQL (postmaster and its backends) is pinned to CPU 1 too, like
// redis-server in bench/rate-limit-store.mjs: compare CPU per query first, req/s is partly
// bound by the shared CPU. Each request runs one statement, so queries/s = requests/s and CPU
// per query = the server process's CPU per request (the driver's cost sits in that process);
// Postgres's own CPU per query (all its processes) is reported beside it.
// Rounds interleave the drivers (A B C, B C A, ...); each gets a fresh server process per round.
//
//   node --import tsx bench/postgres-drivers.ts [--quick] [--rounds N] [--duration S] [--warmup S]
//                                               [--connections N] [--pipelining 1,10] [--pool N] [--out FILE]
//                                               [--drivers keel,pg] [--db-pipelining 1,default] [--profile DIR]
//                                               [--keel-baseline FILE]
// --keel-baseline FILE adds keel's client from another build (lib/postgres/index.ts of that build
// bundled into one .mjs: `git archive <commit> lib | tar -x -C /tmp/base && npx esbuild
// /tmp/base/lib/postgres/index.ts --bundle --platform=node --format=esm --outfile=/tmp/base/pg.mjs`)
// as the driver "keel-baseline", interleaved with the others: a before/after pair in one run.
// --db-pipelining: statements in flight per database connection, per table row. "1" is the same
// for all three (one statement at a time per connection, what pg always does); "default" is each
// driver's own (keel maxPipeline 32, postgres.js max_pipeline 100, pg 1: it cannot pipeline).
// Pool size (--pool) and prepared statements (all three prepare each statement once per
// connection: keel's statement cache, postgres.js's default `prepare: true`, pg's named query)
// are the same in every row.
// --profile DIR runs every server under `node --cpu-prof` (one profile per driver and round, in
// DIR) and prints each one's top self-time functions, keel's client mapped to lib/postgres.
//
// Markdown on stdout, progress on stderr, every number in bench/results/postgres-drivers.json.
// Without PostgreSQL it says why and exits 0. Exit 1 when a server answered wrongly.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { postgresUnavailable, startPostgres } from "../spec/support/postgres-server.js";
import { testPeer } from "../spec/support/test-peers.js";
import { PG_VERSION, POSTGRES_JS_VERSION } from "../spec/support/postgres-peers.js";

type Any = any;

// The shared harness is plain .mjs without declarations: loaded by URL, untyped.
const harness = (name: string): Promise<Any> => import(new URL(`./harness/${name}.mjs`, import.meta.url).href);
const [{ numberOption }, { buildBenchEntries }, { currentLoadavg, machineNotes }, { processTicks }, { clockTicksPerSecond, detectPinning, startLoadGenerator, startServer }, { median }] =
  await Promise.all([harness("args"), harness("build"), harness("machine"), harness("proc-stat"), harness("processes"), harness("stats")]);

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT_DIR = dirname(BENCH_DIR);
const BUILD_DIR = join(BENCH_DIR, ".peers", "build");
const DEFAULT_OUT = join(BENCH_DIR, "results", "postgres-drivers.json");
const USERS = 10_000;
const POST_BODY = JSON.stringify({ email: "bench@example.com" });

const USAGE = "usage: node --import tsx bench/postgres-drivers.ts [--quick] [--rounds N] [--duration S] [--warmup S] [--connections N] [--pipelining 1,10] [--pool N] [--out FILE] [--drivers keel,postgres.js,pg] [--db-pipelining 1,default] [--profile DIR] [--keel-baseline FILE]";

interface Options {
  quick: boolean;
  rounds: number;
  duration: number;
  warmup: number;
  connections: number;
  pipelining: number[];
  pool: number;
  out: string;
  drivers: string[] | null;
  profile: string | null;
  /** A bundled keel/postgres of another build (an .mjs), run as one more driver: before/after in one run. */
  keelBaseline: string | null;
  /** Statements in flight per database connection: "1" (all three drivers alike) and/or "default" (each driver's own). */
  dbPipelining: string[];
  help?: boolean;
}

function parseArgs(argv: string[]): Options {
  const quick = argv.includes("--quick");
  const o: Options = { quick, rounds: quick ? 1 : 3, duration: quick ? 1 : 3, warmup: quick ? 0.5 : 1, connections: 10, pipelining: [1, 10], pool: 10, out: DEFAULT_OUT, drivers: null, profile: null, keelBaseline: null, dbPipelining: ["1", "default"] };
  const number = (name: string, raw: string | undefined, min: number, integer: boolean): number => numberOption(name, raw, { min, integer });
  for (let i = 0; i < argv.length; i++) {
    const eq = argv[i]!.indexOf("=");
    const name = eq === -1 ? argv[i] : argv[i]!.slice(0, eq);
    const value = (): string | undefined => (eq === -1 ? argv[++i] : argv[i]!.slice(eq + 1));
    if (name === "--quick") continue;
    else if (name === "--rounds") o.rounds = number("rounds", value(), 1, true);
    else if (name === "--duration") o.duration = number("duration", value(), 0.1, false);
    else if (name === "--warmup") o.warmup = number("warmup", value(), 0, false);
    else if (name === "--connections") o.connections = number("connections", value(), 1, true);
    else if (name === "--pool") o.pool = number("pool", value(), 1, true);
    else if (name === "--pipelining") o.pipelining = String(value() ?? "").split(",").map((p) => number("pipelining", p.trim(), 1, true));
    else if (name === "--out") o.out = value()!;
    else if (name === "--drivers") o.drivers = String(value() ?? "").split(",").map((d) => d.trim());
    else if (name === "--profile") o.profile = value()!;
    else if (name === "--keel-baseline") o.keelBaseline = value()!;
    else if (name === "--db-pipelining") {
      o.dbPipelining = String(value() ?? "").split(",").map((m) => m.trim());
      for (const m of o.dbPipelining) if (m !== "default") number("db-pipelining", m, 1, true);
    }
    else if (name === "--help" || name === "-h") o.help = true;
    else throw new Error(`unknown argument ${argv[i]} (${USAGE})`);
  }
  return o;
}

const log = (line: string): void => void process.stderr.write(line + "\n");
const round = (x: number | null | undefined, digits: number): number | null => (x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10 ** digits) / 10 ** digits);
const fmt = (x: number | null | undefined, digits = 0): string => (x === null || x === undefined ? "–" : x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const times = (x: number | null | undefined): string => (x === null || x === undefined ? "–" : `${x.toFixed(2)}×`);

interface Driver {
  id: "keel" | "keel-baseline" | "postgres.js" | "pg";
  label: string;
  /** The --module argument for the server, or why the driver cannot run. */
  module: string | null;
  missing: string | null;
}

/** keel/postgres bundled for the server, or why not ("not built" until lib/postgres exists). */
async function keelModule(): Promise<{ module: string | null; missing: string | null }> {
  const entry = join(ROOT_DIR, "lib", "postgres", "index.ts");
  if (!existsSync(entry)) return { module: null, missing: "not built (lib/postgres/index.ts does not exist yet)" };
  const outDir = join(BUILD_DIR, "keel-postgres-client");
  const { builds, errors } = await buildBenchEntries({ benchDir: BENCH_DIR, outDir, entries: ["../lib/postgres/index.ts"] });
  if (builds["index"] === undefined) return { module: null, missing: `did not bundle: ${errors["index"]}` };
  const mod = (await import(join(ROOT_DIR, "lib", "postgres", "index.ts"))) as Any;
  if (typeof mod.connectPostgres !== "function") return { module: null, missing: "not built (lib/postgres exports no connectPostgres)" };
  return { module: builds["index"], missing: null };
}

/** Every process of the cluster: the postmaster and its children (backends, checkpointer...). */
function clusterPids(postmaster: number): number[] {
  const pids = [postmaster];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === postmaster) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

function clusterTicks(postmaster: number): number {
  let sum = 0;
  for (const pid of clusterPids(postmaster)) sum += processTicks(pid) ?? 0;
  return sum;
}

function probe(url: string, method: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(url, { method, headers: body === undefined ? {} : { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", (err) => resolve({ status: 0, body: String(err) }));
    req.end(body);
  });
}

const SCENARIOS = [
  { id: "get", label: "GET /users/{id}", method: "GET", path: "/users/4242", body: undefined as string | undefined, status: 200 },
  { id: "post", label: "POST /users", method: "POST", path: "/users", body: POST_BODY, status: 201 },
];

/** What "statements in flight per connection" means for a driver in a mode (the table's column). */
function pipelineSetting(driver: string, mode: string): string {
  if (mode !== "default") return driver === "pg" && mode !== "1" ? "1 (pg cannot pipeline)" : `${mode} (all)`;
  if (driver === "keel" || driver === "keel-baseline") return "default: 32 (maxPipeline)";
  if (driver === "postgres.js") return "default: 100 (max_pipeline)";
  return "default: 1 (no pipelining)";
}

function rotate<T>(list: T[], by: number): T[] {
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  if (options.help) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  const started = Date.now();
  const command = `node --import tsx bench/postgres-drivers.ts${process.argv.length > 2 ? " " + process.argv.slice(2).join(" ") : ""}`;
  const why = postgresUnavailable();
  if (why !== null) {
    process.stdout.write(`skipped: ${why}\n`);
    return 0;
  }
  const pinning = detectPinning();
  const clockTicks = clockTicksPerSecond();
  const machine = machineNotes({ pinning, clockTicks, rootDir: ROOT_DIR });

  const [pgDir, postgresDir] = await Promise.all([testPeer("pg", PG_VERSION), testPeer("postgres", POSTGRES_JS_VERSION)]);
  const keel = await keelModule();
  const drivers: Driver[] = [
    { id: "keel", label: "keel/postgres", ...keel },
    ...(options.keelBaseline === null
      ? []
      : [{ id: "keel-baseline" as const, label: `keel/postgres (${options.keelBaseline.split("/").pop()})`, module: options.keelBaseline, missing: existsSync(options.keelBaseline) ? null : "no such file" }]),
    { id: "postgres.js", label: `postgres.js ${POSTGRES_JS_VERSION}`, module: postgresDir, missing: postgresDir === null ? "could not be installed" : null },
    { id: "pg", label: `pg ${PG_VERSION}`, module: pgDir, missing: pgDir === null ? "could not be installed" : null },
  ];
  const running = drivers.filter((d) => d.missing === null && (options.drivers === null || options.drivers.includes(d.id)));
  for (const d of drivers) if (d.missing !== null) log(`${d.label}: ${d.missing}`);

  log("bundling the server with esbuild ...");
  const { builds, errors } = await buildBenchEntries({ benchDir: BENCH_DIR, outDir: BUILD_DIR, entries: ["servers/keel-postgres.ts"] });
  const serverFile = builds["keel-postgres"];
  if (serverFile === undefined) throw new Error(`servers/keel-postgres.ts did not bundle:\n${errors["keel-postgres"]}`);

  const pg = await startPostgres({ config: ["max_connections = 100"] });
  if (pg === null) throw new Error("postgres did not start");
  const postmaster = Number(readFileSync(join(pg.dir, "data", "postmaster.pid"), "utf8").split("\n", 1)[0]);
  // Backends fork from the postmaster after this, so they inherit its CPU.
  if (pinning.available) execFileSync("taskset", ["-a", "-p", "-c", String(pinning.clientCpu), String(postmaster)], { stdio: "ignore" });
  await pg.psql(`create table bench_users (id bigserial primary key, email text not null);
    insert into bench_users (email) select 'user' || g || '@example.com' from generate_series(1, ${USERS}) g; analyze bench_users;`);
  log(`PostgreSQL ${pg.version} on 127.0.0.1:${pg.port}${pinning.available ? ` (CPU ${pinning.clientCpu}, shared with the load generator)` : ""}; drivers: ${running.map((d) => d.label).join(", ")}`);

  if (options.profile !== null) mkdirSync(options.profile, { recursive: true });
  const profiles: Array<{ driver: string; mode: string; round: number; file: string }> = [];
  const loadgen = await startLoadGenerator(pinning);
  const runs = new Map<string, Array<Any | null>>(); // `${driver}|${scenario}|${p}` -> by round
  const problems: string[] = [];
  const record = (key: string, r: number, value: Any | null): void => {
    if (!runs.has(key)) runs.set(key, []);
    runs.get(key)![r] = value;
  };
  try {
    const variants = options.dbPipelining.flatMap((mode) => running.map((d) => ({ d, mode })));
    for (let r = 0; r < options.rounds; r++) {
      for (const { d, mode } of rotate(variants, r)) {
        let server: Any;
        const profileName = `${d.id}-db${mode}-r${r + 1}.cpuprofile`;
        const nodeFlags = options.profile === null ? [] : ["--cpu-prof", "--cpu-prof-dir", options.profile, "--cpu-prof-name", profileName];
        try {
          server = await startServer({ file: serverFile, args: ["--driver", d.id === "keel-baseline" ? "keel" : d.id, "--module", d.module!, "--url", pg.url, "--pool", String(options.pool), "--pipeline", mode], pinning, nodeFlags });
          if (server.pending) throw new Error(`pending: ${server.pending}`);
        } catch (err) {
          problems.push(`${d.id} r${r + 1}: server failed to start: ${String((err as Error).message).split("\n")[0]}`);
          continue;
        }
        try {
          for (const s of SCENARIOS) {
            const answer = await probe(server.url + s.path, s.method, s.body);
            if (answer.status !== s.status) throw new Error(`pre-flight ${s.label} answered ${answer.status} ${answer.body.slice(0, 200)}`);
            const spec = { url: server.url + s.path, method: s.method, headers: s.body === undefined ? {} : { "content-type": "application/json" }, body: s.body, connections: options.connections, serverPid: server.pid, clockTicks };
            if (options.warmup > 0) await loadgen.run({ ...spec, pipelining: Math.max(...options.pipelining), duration: options.warmup });
            const parts: string[] = [];
            for (const p of options.pipelining) {
              const pg0 = clusterTicks(postmaster);
              const m = await loadgen.run({ ...spec, pipelining: p, duration: options.duration });
              const pgCpuUs = ((clusterTicks(postmaster) - pg0) * 1e6) / clockTicks;
              m.pgCpuUsPerQuery = m.requests > 0 ? pgCpuUs / m.requests : null;
              const good = m.statusCounts[String(s.status)] ?? 0;
              const key = `${d.id}|${mode}|${s.id}|${p}`;
              if (m.requests === 0 || good < m.requests * 0.99 || m.errors > 0) {
                problems.push(`${d.id} ${s.id} p${p} r${r + 1}: ${m.requests} responses, ${good} with status ${s.status}, ${m.errors} errors`);
                record(key, r, null);
              } else record(key, r, m);
              parts.push(`${s.id} p${p} ${fmt(m.reqPerSec)} q/s ${fmt(m.cpuUsPerReq, 1)} µs/q pg ${fmt(m.pgCpuUsPerQuery, 1)} µs/q`);
            }
            log(`[r${r + 1} ${d.id} db-pipelining ${mode}] ${parts.join(" | ")}`);
          }
        } catch (err) {
          problems.push(`${d.id} r${r + 1}: ${(err as Error).message}`);
          log(`[r${r + 1} ${d.id}] failed: ${(err as Error).message}`);
        } finally {
          await server.stop();
        }
        if (options.profile !== null) profiles.push({ driver: d.id, mode, round: r + 1, file: join(options.profile, profileName) });
      }
    }
  } finally {
    await loadgen.close();
    await pg.stop();
  }

  // Ratios to keel's client when it ran; until then to postgres.js.
  const base = running.some((d) => d.id === "keel") ? "keel" : "postgres.js";
  const cells: Any[] = [];
  for (const mode of options.dbPipelining) for (const s of SCENARIOS) {
    for (const p of options.pipelining) {
      for (const d of drivers) {
        if (options.drivers !== null && !options.drivers.includes(d.id)) continue;
        const key = `${d.id}|${mode}|${s.id}|${p}`;
        const ok = (runs.get(key) ?? []).filter(Boolean);
        const baseRuns = runs.get(`${base}|${mode}|${s.id}|${p}`) ?? [];
        const paired = (pick: (m: Any) => number | null): number | null => {
          const values: number[] = [];
          for (let i = 0; i < options.rounds; i++) {
            const a = runs.get(key)?.[i];
            const b = baseRuns[i];
            if (a && b && pick(a) !== null && pick(b)! > 0) values.push(pick(a)! / pick(b)!);
          }
          return round(median(values), 3);
        };
        cells.push({
          driver: d.id,
          label: d.label,
          missing: d.missing,
          scenario: s.id,
          pipelining: p,
          dbPipelining: mode,
          dbPipeliningSetting: pipelineSetting(d.id, mode),
          runs: ok.length,
          queriesPerSec: round(median(ok.map((m: Any) => m.reqPerSec)), 0),
          cpuUsPerQuery: round(median(ok.map((m: Any) => m.cpuUsPerReq)), 2),
          pgCpuUsPerQuery: round(median(ok.map((m: Any) => m.pgCpuUsPerQuery)), 2),
          latencyP99Ms: round(median(ok.map((m: Any) => m.latencyP99Ms)), 2),
          ratioQueriesPerSec: paired((m) => m.reqPerSec),
          ratioCpuUsPerQuery: paired((m) => m.cpuUsPerReq),
          all: (runs.get(key) ?? []).map((m: Any) => (m ? { reqPerSec: round(m.reqPerSec, 0), cpuUsPerReq: round(m.cpuUsPerReq, 2), pgCpuUsPerQuery: round(m.pgCpuUsPerQuery, 2), statusCounts: m.statusCounts } : null)),
        });
      }
    }
  }
  const summary = { date: new Date().toISOString(), command, machine, postgres: pg.version, options: { ...options, out: relative(ROOT_DIR, options.out) }, base, cells, problems, loadavgEnd: currentLoadavg(), elapsedMs: Date.now() - started };
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, JSON.stringify(summary, null, 2) + "\n");

  const lines = [
    `PostgreSQL drivers under keel: GET /users/{id} (one indexed select) and POST /users (one insert ... returning), pool of ${options.pool} per driver, ` +
      `${options.connections} connections; ${options.rounds} round(s) × (${options.warmup} s warm-up + ${options.duration} s per pipelining level), drivers interleaved per round.`,
    `${machine.cpuModel}, ${machine.cpus} CPUs, node ${machine.node}, PostgreSQL ${pg.version}; ${machine.pinning}${pinning.available ? `; PostgreSQL on CPU ${pinning.clientCpu} with the load generator` : ""}; load average ${machine.loadavgStart.join(" ")} → ${summary.loadavgEnd.join(" ")}.`,
    "",
    `| driver | request | HTTP pipelining | statements in flight per connection | queries/s | server CPU µs/query | PostgreSQL CPU µs/query | p99 ms | queries/s ÷ ${base} | CPU/query ÷ ${base} |`,
    "|---|---|---:|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const c of cells) {
    if (c.missing !== null) {
      lines.push(`| ${c.label} | ${SCENARIOS.find((s) => s.id === c.scenario)!.label} | ${c.pipelining} | ${c.dbPipeliningSetting} | ${c.missing} | | | | | |`);
      continue;
    }
    lines.push(`| ${c.label} | ${SCENARIOS.find((s) => s.id === c.scenario)!.label} | ${c.pipelining} | ${c.dbPipeliningSetting} | ${fmt(c.queriesPerSec)} | ${fmt(c.cpuUsPerQuery, 2)} | ${fmt(c.pgCpuUsPerQuery, 2)} | ${fmt(c.latencyP99Ms)} | ${times(c.ratioQueriesPerSec)} | ${times(c.ratioCpuUsPerQuery)} |`);
  }
  lines.push(
    "",
    `Medians over rounds; ratios are paired per round (driver ÷ ${base} in round r, then the median): queries/s below 1.00× and CPU above 1.00× mean the driver costs more than ${base}. ` +
      "Server CPU is the keel process (HTTP + driver; utime+stime over the window ÷ requests, 10 ms ticks); PostgreSQL CPU is all the cluster's processes over the same window.",
  );
  lines.push(
    "",
    `Every driver has a pool of ${options.pool} connections and prepares each statement once per connection (keel: its statement cache; postgres.js: \`prepare: true\`, its default; pg: a named query — pg's default, an unnamed query, parses on every run). ` +
      "\"1 (all)\" rows run one statement at a time per connection in every driver; \"default\" rows leave each driver its own setting: keel pipelines up to 32 statements per connection (maxPipeline), postgres.js up to 100 (max_pipeline), pg never pipelines (a client runs one query at a time; the pool queues the rest).",
  );
  if (options.profile !== null) {
    const { topSelfTime } = await harness("profile");
    const clientBundle = keel.module;
    for (const prof of profiles) {
      if (!existsSync(prof.file)) {
        lines.push("", `Profile ${relative(ROOT_DIR, prof.file)}: not written`);
        continue;
      }
      // keel's client is its own bundle (with a source map): its frames map back to lib/postgres.
      const top = topSelfTime(prof.file, prof.driver === "keel-baseline" ? options.keelBaseline! : prof.driver === "keel" && clientBundle !== null ? clientBundle : serverFile, ROOT_DIR, 25);
      lines.push("", `Profile ${relative(ROOT_DIR, prof.file)} (${prof.driver}, db pipelining ${prof.mode}, round ${prof.round}): ${fmt(top.busyMs)} ms busy`, "", "| self ms | % | function | where |", "|---:|---:|---|---|");
      for (const t of top.top) lines.push(`| ${fmt(t.selfMs, 1)} | ${fmt(t.selfPct, 1)} | ${t.function} | ${t.where} |`);
    }
  }
  if (problems.length > 0) lines.push("", "**Problems:**", ...problems.map((p) => `- ${p}`));
  process.stdout.write("\n" + lines.join("\n") + "\n");
  log(`results: ${relative(ROOT_DIR, options.out)}; done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return problems.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`postgres-drivers failed: ${(err as Error)?.message ?? String(err)}`);
    process.exit(1);
  },
);
