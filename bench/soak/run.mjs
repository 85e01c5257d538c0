// Soak: the built sample service (dist/server.js) under a fixed request rate over a mix of routes
// for --duration seconds (default 600), sampled each second (RSS, heap, event-loop delay) by a
// preloaded sampler. Reports memory growth after --warmup seconds (default 120) as a total and as
// a least-squares slope, event-loop delay p99, latency p99 and every status by route (V8 settles
// its heap reservation in about two minutes under this load, hence the default warm-up). Exits 1
// when RSS grows more than --max-growth MiB after warm-up (default 20) or when any request gets
// a 5xx or a socket error.
//
//   node bench/soak/run.mjs                                   # 10 minutes at 500 req/s
//   node bench/soak/run.mjs --duration 45 --warmup 15 --rate 300 --max-growth 15   # the CI run
import { spawn, spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const opts = { duration: 600, warmup: 120, rate: 500, "max-growth": 20, "no-build": false, gc: false };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i].replace(/^--/, "");
  if (a === "no-build") opts["no-build"] = true;
  else if (a === "gc") opts.gc = true;
  else if (a in opts) opts[a] = Number(process.argv[++i]);
  else {
    console.error(`unknown option --${a}`);
    process.exit(2);
  }
}
if (!(opts.warmup < opts.duration)) {
  console.error("--warmup must be shorter than --duration");
  process.exit(2);
}

// --- the service --------------------------------------------------------------------------------
if (!opts["no-build"] || !existsSync(join(root, "dist/server.js"))) {
  const b = spawnSync(process.execPath, ["scripts/build.mjs", "--no-typecheck"], { cwd: root, stdio: "inherit" });
  if (b.status !== 0) process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), "keel-soak-"));
const samplesFile = join(work, "samples.jsonl");
const secret = "soak-secret-".padEnd(40, "x");
// --gc: a full collection before each sample (diagnosis: is a slope live memory or garbage?).
const server = spawn(process.execPath, [...(opts.gc ? ["--expose-gc"] : []), "--import", join(root, "bench/soak/sampler.mjs"), join(root, "dist/server.js")], {
  cwd: root,
  env: { ...process.env, PORT: "0", LOG_LEVEL: "info", KEEL_ENV: "production", KEEL_JWT_SECRET: secret, SOAK_SAMPLES: samplesFile, SOAK_GC: opts.gc ? "1" : "0" },
  stdio: ["ignore", "pipe", "inherit"],
});
const port = await new Promise((resolve, reject) => {
  let out = "";
  const timer = setTimeout(() => reject(new Error(`the service did not start: ${out}`)), 30_000);
  server.stdout.on("data", (d) => {
    out += d;
    const m = /"url":"http:\/\/[^"]*:(\d+)"/.exec(out);
    if (m) {
      clearTimeout(timer);
      resolve(Number(m[1]));
    }
  });
  server.on("exit", (code) => reject(new Error(`the service exited (${code}): ${out}`)));
});
// Access log lines (info) are read and dropped: the pipe must not fill up.
server.stdout.removeAllListeners("data");
server.stdout.resume();

// --- the load -----------------------------------------------------------------------------------
const b64 = (v) => Buffer.from(JSON.stringify(v)).toString("base64url");
const jwtInput = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub: "soak", roles: ["user"], iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 7200 })}`;
const token = `${jwtInput}.${createHmac("sha256", secret).update(jwtInput).digest("base64url")}`;
let userSeq = 0;
/** [weight, name, method, path(), body?(), headers?] */
const MIX = [
  [25, "GET /hello", "GET", () => "/hello"],
  [12, "GET /users/{id}", "GET", () => `/users/${1 + (userSeq++ % 12)}`],
  [5, "GET /users/{id} 404", "GET", () => "/users/99999"],
  [10, "GET /api/v1/users", "GET", () => "/api/v1/users?limit=20"],
  [5, "GET unrouted 404", "GET", () => "/does/not/exist"],
  [1, "POST /users", "POST", () => "/users", () => JSON.stringify({ email: `soak${userSeq++}@example.com`, password: "correct horse" })],
  [6, "POST /users 422", "POST", () => "/users", () => JSON.stringify({ email: "nope", password: "short" })],
  [10, "GET /api/v1/me", "GET", () => "/api/v1/me", undefined, { authorization: `Bearer ${token}` }],
  [2, "GET /docs/openapi.json", "GET", () => "/docs/openapi.json"],
  [3, "POST /api/v1/reports", "POST", () => "/api/v1/reports", () => JSON.stringify({ kind: "usage", month: `2024-0${1 + (userSeq++ % 9)}` })],
  [8, "GET /health", "GET", () => "/health"],
  [5, "GET /ready", "GET", () => "/ready"],
  [5, "GET /api/v1/ping", "GET", () => "/api/v1/ping"],
];
const totalWeight = MIX.reduce((n, m) => n + m[0], 0);
const pickRoute = (r) => {
  let x = r * totalWeight;
  for (const m of MIX) if ((x -= m[0]) < 0) return m;
  return MIX[0];
};
const CLIENTS = 50;
const agents = Array.from({ length: CLIENTS }, () => new Agent({ keepAlive: true, maxSockets: 4 }));
const stats = new Map(); // route -> { statuses: {code: n}, errors: n }
const latencies = [];
let inFlight = 0;
let sent = 0;
let unexpected = 0;
const unexpectedSamples = [];

function fire() {
  const [, name, method, path, body, headers] = pickRoute(Math.random());
  const payload = body ? body() : undefined;
  const started = process.hrtime.bigint();
  inFlight++;
  sent++;
  const s = stats.get(name) ?? { statuses: {}, errors: 0 };
  stats.set(name, s);
  // 50 clients (127.0.1.1-50), each within the sample's per-client rate limits at the default rate.
  const client = 1 + (sent % CLIENTS);
  const req = request({ host: "127.0.0.1", port, method, path: path(), agent: agents[client - 1], localAddress: `127.0.1.${client}`, headers: { ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}), ...headers } }, (res) => {
    res.resume();
    res.on("end", () => {
      inFlight--;
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      s.statuses[res.statusCode] = (s.statuses[res.statusCode] ?? 0) + 1;
      if (res.statusCode >= 500) {
        unexpected++;
        if (unexpectedSamples.length < 10) unexpectedSamples.push(`${name}: ${res.statusCode}`);
      }
    });
  });
  req.on("error", (err) => {
    inFlight--;
    s.errors++;
    unexpected++;
    if (unexpectedSamples.length < 10) unexpectedSamples.push(`${name}: ${err.code ?? err.message}`);
  });
  req.end(payload);
}

console.log(`soak: ${opts.duration} s at ${opts.rate} req/s against dist/server.js (production, port ${port}); warm-up ${opts.warmup} s`);
const tickMs = 10;
let owed = 0;
const startedAt = Date.now();
await new Promise((resolve) => {
  const tick = setInterval(() => {
    owed += (opts.rate * tickMs) / 1000;
    for (; owed >= 1; owed--) fire();
    if (Date.now() - startedAt >= opts.duration * 1000) {
      clearInterval(tick);
      resolve();
    }
  }, tickMs);
});
while (inFlight > 0) await new Promise((r) => setTimeout(r, 20));
await new Promise((r) => setTimeout(r, 1500)); // one more sample after the load
server.kill("SIGTERM");
const exitCode = await new Promise((r) => server.on("exit", (code) => r(code)));
for (const a of agents) a.destroy();

// --- the report ---------------------------------------------------------------------------------
const samples = readFileSync(samplesFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
rmSync(work, { recursive: true, force: true });
const MiB = (n) => n / 1048576;
const after = samples.filter((s) => s.t >= opts.warmup && s.t <= opts.duration);
function slopePerMinute(points, key) {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, p) => a + p.t, 0) / n;
  const my = points.reduce((a, p) => a + MiB(p[key]), 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mx) * (MiB(p[key]) - my);
    den += (p.t - mx) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60;
}
const pct = (arr, p) => {
  if (arr.length === 0) return 0;
  const sorted = [...arr].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const first = samples[0];
const atWarmup = after[0];
const last = after[after.length - 1];
const growth = MiB(last.rss - atWarmup.rss);
const summary = {
  duration_s: opts.duration,
  warmup_s: opts.warmup,
  rate: opts.rate,
  requests: sent,
  achieved_rate: Math.round(sent / opts.duration),
  rss_mib: { start: +MiB(first.rss).toFixed(1), after_warmup: +MiB(atWarmup.rss).toFixed(1), end: +MiB(last.rss).toFixed(1), max: +MiB(Math.max(...samples.map((s) => s.rss))).toFixed(1) },
  heap_used_mib: { after_warmup: +MiB(atWarmup.heapUsed).toFixed(1), end: +MiB(last.heapUsed).toFixed(1) },
  // One sample a minute: where the memory is (rss, V8 heap reserved/used, external).
  by_minute: samples.filter((s, i) => i === 0 || Math.floor(s.t / 60) !== Math.floor(samples[i - 1].t / 60)).map((s) => ({
    t: Math.round(s.t),
    rss: +MiB(s.rss).toFixed(1),
    heapTotal: +MiB(s.heapTotal).toFixed(1),
    heapUsed: +MiB(s.heapUsed).toFixed(1),
    external: +MiB(s.external).toFixed(1),
  })),
  rss_growth_after_warmup_mib: +growth.toFixed(1),
  rss_slope_mib_per_min: +slopePerMinute(after, "rss").toFixed(2),
  heap_used_slope_mib_per_min: +slopePerMinute(after, "heapUsed").toFixed(2),
  event_loop_delay_p99_ms: { median_second: +pct(after.map((s) => s.eldP99Ms), 50).toFixed(1), worst_second: +Math.max(...after.map((s) => s.eldP99Ms)).toFixed(1) },
  latency_ms: { p50: +pct(latencies, 50).toFixed(2), p99: +pct(latencies, 99).toFixed(2) },
  unexpected,
  server_exit_code: exitCode,
  statuses: Object.fromEntries([...stats].map(([k, v]) => [k, v.errors > 0 ? { ...v.statuses, socket_errors: v.errors } : v.statuses])),
};
console.log(JSON.stringify(summary, null, 2));
const problems = [];
if (growth > opts["max-growth"]) problems.push(`RSS grew ${growth.toFixed(1)} MiB after warm-up (limit ${opts["max-growth"]})`);
if (unexpected > 0) problems.push(`${unexpected} 5xx answers or socket errors: ${unexpectedSamples.join("; ")}`);
if (exitCode !== 0) problems.push(`the service exited ${exitCode} on SIGTERM`);
if (problems.length > 0) {
  console.error("soak failed:\n- " + problems.join("\n- "));
  process.exit(1);
}
console.log(`soak ok: RSS ${summary.rss_mib.after_warmup} -> ${summary.rss_mib.end} MiB after warm-up (${summary.rss_slope_mib_per_min} MiB/min), event-loop p99 ${summary.event_loop_delay_p99_ms.median_second} ms`);
