// Soak: the built sample service (dist/server.js, production mode, HTTP and gRPC on ephemeral
// ports) under a fixed mix of traffic for --duration seconds (default 600), sampled each second
// (RSS, heap, event-loop delay) by a preloaded sampler (sampler.mjs). Side by side:
//
//   kind                 what                                                       file
//   http                 --rate req/s over 13 weighted routes, 50 clients          http-mix.mjs
//   ws_echo              4 readers: text and binary echoes (1 B-32 KiB), each read  ws-echo.mjs
//                        and compared, ~10 a second each; reconnect every 60 s
//   ws_chat              3 members of room "soak" (JWT as subprotocol or header),   ws-chat.mjs
//                        4 messages/s each; every broadcast checked, no gaps
//   sse                  3 readers of /api/v1/events?max=20, reconnecting with      sse.mjs
//                        Last-Event-ID; ticks consecutive across streams
//   uploads              --upload-rate multipart uploads/s (100-300 KiB), SHA-256   uploads.mjs
//                        of every receipt checked, over 8 client addresses
//   grpc                 --grpc-rate GetUser/s (OK / NOT_FOUND / INVALID_ARGUMENT   grpc.mjs
//                        as the id asks) and one ListUsers stream/s read fully
//   and the non-reading peers (off with --no-hostile), each replaced every --recycle s:
//   ws_echo_nonreading   2 echo clients sending 16 KiB frames at --hostile-kib KiB/s (waiting for
//                        their own socket's 'drain') and never reading
//   ws_chat_nonreading   1 member sending 16 KB messages 32 times a second, never reading
//   sse_nonreading       4 subscribers that take the 200 and never read the stream
//   grpc_nonreading      2 ListUsers streams on connections with a 1 KiB stream window, never read
//
// A reader's error, wrong echo or broadcast, gap, wrong SHA-256, unexpected gRPC status, close it
// did not start, or an HTTP 5xx is unexpected and fails the run. What the server does to the
// non-readers (closes them, drops for them) is policy: counted and printed, not failed. The run
// also fails when, after --warmup seconds (default 120), RSS outside the V8 heap (rss - heapTotal,
// the median of the first quarter after warm-up against that of the last) grows more than
// --max-growth MiB (20), or the heap's floor (the lowest heapUsed of each of those quarters) more
// than --max-heap-growth MiB (10); raw RSS saw-tooths by tens of MiB as V8 grows and returns its
// heap reservation, so it is reported, not judged (memory.mjs). It fails when the service dies or
// its RSS passes --max-rss MiB (1536; the soak stops there), or when it does not exit 0 on
// SIGTERM. Reported, not judged: rss_outside_heap_rise_mib, the peak over the first seconds of
// load: the plateau of what non-readers pin while they live, which growth after warm-up cannot
// see once they are replaced (bench/README.md "Soak"). The soak process's own memory is bounded:
// rates are paced, requests in flight capped, latencies a fixed-size sample, parser buffers
// capped, and non-readers never queue more than their socket's high-water mark.
//
//   node bench/soak/run.mjs                                   # 10 minutes at 500 req/s, everything
//   node bench/soak/run.mjs --duration 45 --warmup 15 --rate 300 --max-growth 15 --gc   # the CI run
//   node bench/soak/run.mjs --no-hostile                      # readers only
//   node bench/soak/run.mjs --http-only                       # the HTTP mix alone (the old soak)
//
// Other flags: --gc (a full collection before each sample: is a slope live memory or garbage?),
// --no-build (use dist/ as it is), --upload-rate N (4), --grpc-rate N (20), --recycle S (30),
// --hostile-kib N (1024; 0: as fast as the socket takes), --hostile LIST (which non-readers:
// ws_echo,ws_chat,sse,grpc, all by default), --samples FILE (keep the sampler's JSON lines).
import { spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { setMaxListeners } from "node:events";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runHttpMix } from "./http-mix.mjs";
import { runUploads } from "./uploads.mjs";
import { startGrpc } from "./grpc.mjs";
import { memoryReport } from "./memory.mjs";
import { sleep } from "./recycle.mjs";
import { startService } from "./service.mjs";
import { startSse } from "./sse.mjs";
import { Tally } from "./tally.mjs";
import { startWsChat } from "./ws-chat.mjs";
import { startWsEcho } from "./ws-echo.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const FLAGS = ["no-build", "gc", "no-hostile", "http-only"];
const opts = {
  duration: 600, warmup: 120, rate: 500, "max-growth": 20, "max-heap-growth": 10, "max-rss": 1536,
  "upload-rate": 4, "grpc-rate": 20, recycle: 30, "hostile-kib": 1024, hostile: "ws_echo,ws_chat,sse,grpc", samples: "",
  ...Object.fromEntries(FLAGS.map((f) => [f, false])),
};
const HOSTILE_KINDS = ["ws_echo", "ws_chat", "sse", "grpc"];
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i].replace(/^--/, "");
  if (FLAGS.includes(a)) opts[a] = true;
  else if ((a === "hostile" || a === "samples") && i + 1 < process.argv.length) opts[a] = process.argv[++i];
  else if (a in opts && Number.isFinite(Number(process.argv[i + 1]))) opts[a] = Number(process.argv[++i]);
  else {
    console.error(`unknown option or missing number: --${a}`);
    process.exit(2);
  }
}
if (!(opts.warmup < opts.duration)) {
  console.error("--warmup must be shorter than --duration");
  process.exit(2);
}
const hostileKinds = new Set(opts["no-hostile"] || opts["http-only"] ? [] : opts.hostile.split(",").filter(Boolean));
for (const k of hostileKinds) {
  if (!HOSTILE_KINDS.includes(k)) {
    console.error(`--hostile takes a list of ${HOSTILE_KINDS.join(", ")}; not ${k}`);
    process.exit(2);
  }
}
const hostile = hostileKinds.size > 0;

// --- the service --------------------------------------------------------------------------------
if (!opts["no-build"] || !existsSync(join(root, "dist/server.js"))) {
  const b = spawnSync(process.execPath, ["scripts/build.mjs", "--no-typecheck"], { cwd: root, stdio: "inherit" });
  if (b.status !== 0) process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), "keel-soak-"));
const samplesFile = join(work, "samples.jsonl");
const secret = "soak-secret-".padEnd(40, "x");
const service = await startService({ root, gc: opts.gc, samplesFile, secret });
const { port, grpcUrl } = service;

// --- the load -----------------------------------------------------------------------------------
const b64 = (v) => Buffer.from(JSON.stringify(v)).toString("base64url");
const now = Math.floor(Date.now() / 1000);
const jwtInput = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub: "soak", roles: ["user"], iat: now, exp: now + 7200 })}`;
const token = `${jwtInput}.${createHmac("sha256", secret).update(jwtInput).digest("base64url")}`;

const kinds = {};
const tally = (kind) => (kinds[kind] = new Tally(kind));
const stop = new AbortController();
const signal = stop.signal;
setMaxListeners(100, signal); // every waiting client listens for the end
const recycleMs = opts.recycle * 1000;
const net = (third) => (i) => `127.0.${third}.${1 + i}`;
const http = tally("http");
const loads = [runHttpMix({ port, signal, rate: opts.rate, token, tally: http })];
if (!opts["http-only"]) {
  const n = (kind, count) => (hostileKinds.has(kind) ? count : 0);
  loads.push(
    startWsEcho({ port, signal, readers: 4, hostile: n("ws_echo", 2), recycleMs, hostileKiBps: opts["hostile-kib"], tally: tally("ws_echo"), hostileTally: tally("ws_echo_nonreading"), address: net(3) }),
    startWsChat({ port, signal, token, readers: 3, hostile: n("ws_chat", 1), recycleMs, tally: tally("ws_chat"), hostileTally: tally("ws_chat_nonreading"), address: net(4) }),
    startSse({ port, signal, readers: 3, hostile: n("sse", 4), recycleMs, tally: tally("sse"), hostileTally: tally("sse_nonreading"), address: net(5) }),
    runUploads({ port, signal, rate: opts["upload-rate"], tally: tally("uploads"), address: net(2) }),
    startGrpc({ url: grpcUrl, signal, rate: opts["grpc-rate"], hostile: n("grpc", 2), recycleMs, tally: tally("grpc"), hostileTally: tally("grpc_nonreading") }),
  );
}
const mix = opts["http-only"] ? "HTTP only" : hostile ? `HTTP, WebSocket, SSE, uploads, gRPC and non-reading peers (${[...hostileKinds].join(", ")})` : "HTTP, WebSocket, SSE, uploads and gRPC (no non-reading peers)";
console.log(`soak: ${opts.duration} s of ${mix} at ${opts.rate} req/s against dist/server.js (production, port ${port}, gRPC ${grpcUrl}); warm-up ${opts.warmup} s`);

const problems = [];
const startedAt = Date.now();
let clientRssMax = 0;
while (Date.now() - startedAt < opts.duration * 1000) {
  await sleep(1000);
  clientRssMax = Math.max(clientRssMax, process.memoryUsage().rss);
  const rss = service.rssMiB();
  if (service.exitCode !== undefined) {
    problems.push(`the service died during the soak (exit ${service.exitCode}) after ${Math.round((Date.now() - startedAt) / 1000)} s`);
    break;
  }
  if (rss !== undefined && rss > opts["max-rss"]) {
    problems.push(`the service's RSS reached ${rss.toFixed(0)} MiB after ${Math.round((Date.now() - startedAt) / 1000)} s (limit ${opts["max-rss"]}): stopped early`);
    break;
  }
}
const ranFor = (Date.now() - startedAt) / 1000;
stop.abort();
const settled = await Promise.race([Promise.all(loads).then(() => true), new Promise((r) => setTimeout(r, 30_000, false).unref())]);
if (!settled) problems.push("the clients did not finish within 30 s of the end");
await sleep(1500); // one more sample after the load
const exitCode = await service.stop();

// --- the report ---------------------------------------------------------------------------------
const samples = existsSync(samplesFile) ? readFileSync(samplesFile, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
if (opts.samples !== "" && existsSync(samplesFile)) copyFileSync(samplesFile, opts.samples);
rmSync(work, { recursive: true, force: true });
const memory = samples.filter((s) => s.t >= opts.warmup).length >= 2 ? memoryReport(samples, opts.warmup, Math.min(opts.duration, ranFor)) : undefined;
const MiB = (n) => +(n / 1048576).toFixed(1);
for (const kind of Object.keys(kinds)) if (kind.endsWith("_nonreading") && !hostileKinds.has(kind.replace(/_nonreading$/, ""))) delete kinds[kind];
const report = Object.fromEntries(Object.entries(kinds).map(([k, t]) => [k, t.report()]));
for (const r of Object.values(report)) if (r.bytes_sent !== undefined) r.bytes_sent = `${MiB(r.bytes_sent)} MiB`;
const summary = {
  duration_s: opts.duration,
  ran_s: Math.round(ranFor),
  warmup_s: opts.warmup,
  rate: opts.rate,
  mix,
  requests: http.counts.requests ?? 0,
  achieved_rate: Math.round((http.counts.requests ?? 0) / ranFor),
  ...memory,
  latency_ms: report.http.latency_ms,
  kinds: report,
  unexpected: Object.values(kinds).reduce((n, t) => n + t.unexpected, 0),
  server_error_logs: service.errorLogs,
  soak_process_rss_max_mib: MiB(clientRssMax),
  server_exit_code: exitCode,
};
console.log(JSON.stringify(summary, null, 2));
if (memory === undefined) problems.push("too few samples after warm-up to judge memory");
else {
  if (memory.rss_outside_heap_growth_mib > opts["max-growth"]) problems.push(`RSS outside the V8 heap grew ${memory.rss_outside_heap_growth_mib} MiB after warm-up (limit ${opts["max-growth"]}; raw RSS ${memory.rss_mib.after_warmup} -> ${memory.rss_mib.end} MiB)`);
  if (memory.heap_growth_after_warmup_mib > opts["max-heap-growth"]) problems.push(`the heap's floor grew ${memory.heap_growth_after_warmup_mib} MiB after warm-up (limit ${opts["max-heap-growth"]})`);
}
for (const [kind, t] of Object.entries(kinds)) if (t.unexpected > 0) problems.push(`${kind}: ${t.unexpected} unexpected: ${t.samples.join("; ")}`);
if (exitCode !== 0) problems.push(`the service exited ${exitCode} on SIGTERM`);
if (problems.length > 0) {
  console.error("soak failed:\n- " + problems.join("\n- "));
  process.exit(1);
}
console.log(`soak ok: RSS ${summary.rss_mib.after_warmup} -> ${summary.rss_mib.end} MiB after warm-up (${summary.rss_slope_mib_per_min} MiB/min; outside the V8 heap ${summary.rss_outside_heap_mib.after_warmup} -> ${summary.rss_outside_heap_mib.end} MiB), heap floor ${summary.heap_used_mib.floor_after_warmup} -> ${summary.heap_used_mib.floor_end} MiB, event-loop p99 ${summary.event_loop_delay_p99_ms.median_second} ms`);
