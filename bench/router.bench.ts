/**
 * Router micro-benchmark: lookups per second for keel's Router, and find-my-way side by side
 * when it is installed in bench/.peers (`npm install --prefix bench/.peers find-my-way@9 --no-save`).
 *
 *   npx tsx bench/router.bench.ts              full run (5 runs per cell, median)
 *   npx tsx bench/router.bench.ts --quick      short run
 *   npx tsx bench/router.bench.ts --fresh      every lookup gets a string never seen before, as
 *                                              with real requests (no cached string hash)
 *   node --allow-natives-syntax --import tsx bench/router.bench.ts --only keel:50:param --iterations N
 *       one measured loop for callgrind: run it with N and 3N under
 *       `valgrind --tool=callgrind node --single-threaded --hash-seed=1 --random-seed=1 ...` and
 *       divide the difference of the two totals by 2N (instructions per lookup).
 *
 * Tables of 10, 50 and 200 routes shaped like a REST API (per resource: two static routes, a
 * one-parameter route, a two-parameter route, a tail wildcard). Scenarios: static hit, param
 * hit, wildcard hit, miss; each cycles over 16 request paths.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Router } from "../lib/router/index.js";

type Scenario = "static" | "param" | "wildcard" | "miss";
const SCENARIOS: readonly Scenario[] = ["static", "param", "wildcard", "miss"];
const SIZES = [10, 50, 200] as const;
/** Strings per run in --fresh mode; each is used once per run. */
const FRESH_POOL = 1 << 18;

interface FindMyWayLike {
  on(method: string, path: string, handler: () => void): void;
  find(method: string, path: string): unknown;
}

/** Route patterns in keel syntax for a table of `size` routes. */
function routeTable(size: number): string[] {
  const routes: string[] = [];
  for (let k = 0; routes.length < size; k++) {
    routes.push(`/api/v1/res${k}`);
    routes.push(`/api/v1/res${k}/search`);
    routes.push(`/api/v1/res${k}/{id}`);
    routes.push(`/api/v1/res${k}/{id}/items/{itemId}`);
    routes.push(`/assets/res${k}/{*path}`);
  }
  return routes.slice(0, size);
}

/** A flat copy, like the strings node:http hands over (template literals make cons strings). */
function flat(text: string): string {
  return Buffer.from(text, "latin1").toString("latin1");
}

function requestPaths(size: number, scenario: Scenario): string[] {
  const resources = Math.ceil(size / 5);
  const paths: string[] = [];
  for (let i = 0; i < 16; i++) {
    const k = (i * 7) % resources;
    switch (scenario) {
      case "static":
        paths.push(i % 2 === 0 ? `/api/v1/res${k}` : `/api/v1/res${k}/search`);
        break;
      case "param":
        paths.push(`/api/v1/res${k}/${1000 + i * 37}`);
        break;
      case "wildcard":
        paths.push(`/assets/res${k}/css/site-${i}.css`);
        break;
      case "miss":
        paths.push(i % 2 === 0 ? `/api/v2/res${k}/${i}` : `/api/v1/res${k}/${i}/nothing`);
        break;
    }
  }
  return paths.map(flat);
}

/** `count` distinct string objects cycling over `paths` (hash not computed yet). */
function freshPool(paths: string[], count: number): string[] {
  const pool = new Array<string>(count);
  for (let i = 0; i < count; i++) pool[i] = flat(paths[i & 15] as string);
  return pool;
}

function toFindMyWaySyntax(pattern: string): string {
  return pattern.replace(/\{\*[A-Za-z0-9_]*\}/g, "*").replace(/\{([A-Za-z0-9_]+)\}/g, ":$1");
}

function buildKeel(size: number): Router<number> {
  const router = new Router<number>();
  routeTable(size).forEach((pattern, i) => router.add("GET", pattern, i));
  return router;
}

type FindMyWayFactory = (opts?: object) => FindMyWayLike;

function loadFindMyWay(): FindMyWayFactory | null {
  const peers = fileURLToPath(new URL("./.peers/node_modules/find-my-way", import.meta.url));
  if (!existsSync(peers)) return null;
  const require = createRequire(import.meta.url);
  return require(peers) as FindMyWayFactory;
}

function buildFindMyWay(factory: FindMyWayFactory, size: number): FindMyWayLike {
  const router = factory();
  for (const pattern of routeTable(size)) router.on("GET", toFindMyWaySyntax(pattern), () => {});
  return router;
}

// Two separate loops so the routers do not share call-site feedback. `mask` is 15 to cycle
// over 16 paths, or pool length - 1 for a fresh-string pool.
function loopKeel(router: Router<number>, paths: string[], iterations: number, mask: number): number {
  let hits = 0;
  for (let i = 0; i < iterations; i++) {
    if (router.find("GET", paths[i & mask] as string) !== null) hits++;
  }
  return hits;
}

function loopFindMyWay(router: FindMyWayLike, paths: string[], iterations: number, mask: number): number {
  let hits = 0;
  for (let i = 0; i < iterations; i++) {
    if (router.find("GET", paths[i & mask] as string) !== null) hits++;
  }
  return hits;
}

type Loop = (paths: string[], iterations: number, mask: number) => number;

interface Cell {
  opsPerSec: number;
  hits: number;
}

function measure(loop: Loop, paths: string[], iterations: number, runs: number, fresh: boolean): Cell {
  const rates: number[] = [];
  let hits = 0;
  for (let r = 0; r < runs; r++) {
    const input = fresh ? freshPool(paths, FRESH_POOL) : paths;
    const count = fresh ? FRESH_POOL : iterations;
    const start = process.hrtime.bigint();
    hits = loop(input, count, input.length - 1);
    const ns = Number(process.hrtime.bigint() - start);
    rates.push((count * 1e9) / ns);
  }
  rates.sort((a, b) => a - b);
  return { opsPerSec: rates[Math.floor(rates.length / 2)] ?? 0, hits };
}

function format(opsPerSec: number): string {
  return (opsPerSec / 1e6).toFixed(2).padStart(8) + " M/s";
}

/** Callgrind mode: warm up, force a regular optimised compile when natives syntax is on, run once. */
function runOnly(spec: string, iterations: number, fmwFactory: FindMyWayFactory | null): void {
  const [which, sizeText, scenarioText] = spec.split(":");
  const size = Number(sizeText);
  const scenario = scenarioText as Scenario;
  if (!SIZES.includes(size as (typeof SIZES)[number]) || !SCENARIOS.includes(scenario)) {
    throw new Error(`--only wants keel|fmw:${SIZES.join("|")}:${SCENARIOS.join("|")}`);
  }
  const paths = requestPaths(size, scenario);
  let loop: Loop;
  if (which === "fmw") {
    if (fmwFactory === null) throw new Error("find-my-way is not installed in bench/.peers");
    const router = buildFindMyWay(fmwFactory, size);
    loop = (p, n, m) => loopFindMyWay(router, p, n, m);
  } else {
    const router = buildKeel(size);
    loop = (p, n, m) => loopKeel(router, p, n, m);
  }
  const hot = which === "fmw" ? loopFindMyWay : loopKeel;
  for (let c = 0; c < 100; c++) loop(paths, 5000, 15);
  if (process.execArgv.includes("--allow-natives-syntax")) {
    // Without this the loop often runs as on-stack-replacement code entered from baseline code.
    new Function("f", "%PrepareFunctionForOptimization(f)")(hot);
    loop(paths, 1000, 15);
    new Function("f", "%OptimizeFunctionOnNextCall(f)")(hot);
    loop(paths, 1000, 15);
  }
  let hits = 0;
  for (let done = 0; done < iterations; done += 5000) hits += loop(paths, Math.min(5000, iterations - done), 15);
  console.log(`${spec}: ${iterations} lookups, ${hits} hits`);
}

function main(): void {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const fresh = args.includes("--fresh");
  const onlyIndex = args.indexOf("--only");
  const iterationsIndex = args.indexOf("--iterations");
  const iterations = iterationsIndex >= 0 ? Number(args[iterationsIndex + 1]) : quick ? 300_000 : 2_000_000;
  const runs = quick ? 3 : 5;
  const fmwFactory = loadFindMyWay();

  if (onlyIndex >= 0) {
    runOnly(args[onlyIndex + 1] ?? "", iterations, fmwFactory);
    return;
  }

  const what = fresh ? `${FRESH_POOL} lookups on fresh strings` : `${iterations} lookups`;
  console.log(`router lookups, median of ${runs} runs x ${what}, node ${process.version}`);
  if (fmwFactory === null) console.log("(find-my-way not installed in bench/.peers: keel only)");
  const header = ["routes", "scenario", "keel".padStart(12)];
  if (fmwFactory !== null) header.push("find-my-way".padStart(12), "keel/fmw".padStart(9));
  console.log(header.join("  "));

  const tables = SIZES.map((size) => ({
    size,
    keel: buildKeel(size),
    fmw: fmwFactory === null ? null : buildFindMyWay(fmwFactory, size),
  }));
  // Warm every router on every kind of path first, as a server would be: type feedback is
  // complete before anything is measured, so no cell pays for a deoptimisation.
  for (let round = 0; round < 3; round++) {
    for (const { size, keel, fmw } of tables) {
      for (const scenario of SCENARIOS) {
        const paths = requestPaths(size, scenario);
        loopKeel(keel, paths, 50_000, 15);
        if (fmw !== null) loopFindMyWay(fmw, paths, 50_000, 15);
      }
    }
  }
  for (const { size, keel, fmw } of tables) {
    for (const scenario of SCENARIOS) {
      const paths = requestPaths(size, scenario);
      const k = measure((p, n, m) => loopKeel(keel, p, n, m), paths, iterations, runs, fresh);
      const row = [String(size).padStart(6), scenario.padEnd(8), format(k.opsPerSec)];
      if (fmw !== null) {
        const f = measure((p, n, m) => loopFindMyWay(fmw, p, n, m), paths, iterations, runs, fresh);
        row.push(format(f.opsPerSec), (k.opsPerSec / f.opsPerSec).toFixed(2).padStart(8) + "x");
        if (f.hits !== k.hits) row.push(`(hit counts differ: keel ${k.hits}, fmw ${f.hits})`);
      }
      console.log(row.join("  "));
    }
  }
}

main();
