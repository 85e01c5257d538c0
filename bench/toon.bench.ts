/**
 * TOON codec throughput against JSON.stringify / JSON.parse, plus the token saving of TOON over JSON.
 *   npx tsx bench/toon.bench.ts [--quick]
 * Reported per data set: ops/s (median of rounds, the four codecs alternating within each round),
 * million characters/s of text produced/consumed, the TOON/JSON speed ratio, and estimated tokens (estimateTokens
 * and bytes/4) for compact JSON, pretty JSON and TOON.
 */
import { decodeToon, encodeToon } from "../lib/toon/codec/index.js";
import { estimateTokens } from "../lib/toon/tokens.js";

const quick = process.argv.includes("--quick");
const ROUND_MS = quick ? 60 : 250;
const ROUNDS = quick ? 3 : 7;

const ROLES = ["admin", "editor", "viewer"];
const CITIES = ["Berlin", "Oslo", "São Paulo", "Zürich", "Tokyo"];

function uniformRows(count: number): { users: object[] } {
  const users = [];
  for (let i = 0; i < count; i++) {
    users.push({
      id: i + 1,
      name: `User ${i}`,
      email: `user${i}@example.com`,
      age: 18 + ((i * 7) % 60),
      score: Math.round(((i * 37) % 1000) * 1.25) / 10,
      active: i % 3 !== 0,
      role: ROLES[i % 3]!,
      city: CITIES[i % 5]!,
    });
  }
  return { users };
}

function nestedDocument(): object {
  const services: Record<string, object> = {};
  for (let i = 0; i < 40; i++) {
    services[`svc${i}`] = {
      image: `registry.example.com/team/svc${i}:1.${i}.0`,
      replicas: 1 + (i % 4),
      env: { LOG_LEVEL: i % 2 === 0 ? "info" : "debug", TIMEOUT_MS: 1000 + i, FEATURE_FLAGS: ["a", "b", `f${i}`] },
      ports: i % 3 === 0 ? [] : [{ name: "http", port: 8000 + i }, { name: "metrics", port: 9000 + i, path: "/metrics" }],
      health: { path: "/healthz", interval: "10s", retries: 3 },
      labels: i % 5 === 0 ? {} : { team: `team-${i % 7}`, tier: i % 2 === 0 ? "web" : "worker" },
      notes: i % 4 === 0 ? "restart: on-failure, max 5" : null,
    };
  }
  return { version: 3, name: "demo-stack", services, volumes: { data: { driver: "local" }, cache: { driver: "tmpfs", size: "512m" } } };
}

function opsPerSecond(fn: () => unknown): number {
  let ops = 0;
  const end = performance.now() + ROUND_MS;
  let now = performance.now();
  const start = now;
  while (now < end) {
    for (let i = 0; i < 4; i++) fn();
    ops += 4;
    now = performance.now();
  }
  return (ops * 1000) / (now - start);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(2);
}

function benchDataSet(label: string, value: object): void {
  const json = JSON.stringify(value);
  const pretty = JSON.stringify(value, null, 2);
  const toon = encodeToon(value);
  // Sanity: the codec round-trips the data set (compared as JSON text).
  if (JSON.stringify(decodeToon(toon)) !== json) throw new Error(`${label}: TOON round-trip mismatch`);
  const cases: [string, () => unknown, number][] = [
    ["JSON.stringify", () => JSON.stringify(value), json.length],
    ["encodeToon", () => encodeToon(value), toon.length],
    ["JSON.parse", () => JSON.parse(json), json.length],
    ["decodeToon", () => decodeToon(toon), toon.length],
  ];
  for (const [, fn] of cases) opsPerSecond(fn); // warm-up
  const samples = cases.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) cases.forEach(([, fn], i) => samples[i]!.push(opsPerSecond(fn)));
  const ops = samples.map(median);
  console.log(`\n## ${label}  (JSON ${json.length.toLocaleString("en-US")} chars, TOON ${toon.length.toLocaleString("en-US")} chars)`);
  console.log("| codec | ops/s | Mchar/s | vs JSON |");
  console.log("| --- | ---: | ---: | ---: |");
  cases.forEach(([name, , size], i) => {
    const ratio = i % 2 === 1 ? `${(ops[i]! / ops[i - 1]!).toFixed(2)}×` : "1.00×";
    console.log(`| ${name} | ${fmt(ops[i]!)} | ${fmt((ops[i]! * size) / 1e6)} | ${ratio} |`);
  });
  const rows: [string, string][] = [["JSON (compact)", json], ["JSON (pretty, 2)", pretty], ["TOON", toon]];
  const base = estimateTokens(json);
  console.log("| text | bytes | estimateTokens | bytes/4 | est. vs compact JSON |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const [name, text] of rows) {
    const bytes = Buffer.byteLength(text);
    const est = estimateTokens(text);
    const change = ((est / base - 1) * 100).toFixed(1);
    console.log(`| ${name} | ${bytes.toLocaleString("en-US")} | ${est.toLocaleString("en-US")} | ${Math.ceil(bytes / 4).toLocaleString("en-US")} | ${change.startsWith("-") ? change : `+${change}`}% |`);
  }
}

console.log(`TOON bench (node ${process.version}, ${ROUNDS} rounds × ${ROUND_MS} ms per codec, medians)`);
benchDataSet("1,000 uniform objects (tabular)", uniformRows(1000));
benchDataSet("nested document (keyed tables, lists, nested objects)", nestedDocument());
