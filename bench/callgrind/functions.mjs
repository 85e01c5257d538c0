// Self instructions per request by function, from a dump `instructions.mjs --keep DIR` kept:
//   node bench/callgrind/functions.mjs DIR/notfound-keel.cg [--requests 5000] [--top 60]
//                                      [--callers REGEX]
// JIT-compiled JS functions are bare addresses in the dump; the perf map kept beside it
// (DIR/notfound-keel.map, node --perf-basic-prof) names them. --callers REGEX lists who calls the
// functions matching REGEX, with calls and inclusive instructions per request.
// (callgrind_annotate works on the same file but shows only inclusive totals for these dumps.)
import { existsSync, readFileSync } from "node:fs";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
const file = args[0];
if (file === undefined || file.startsWith("--")) throw new Error("usage: functions.mjs DUMP.cg [--requests N] [--top N] [--callers REGEX]");
const requests = Number(opt("requests", "5000"));
const top = Number(opt("top", "60"));
const callersOf = opt("callers", "");

/** Sorted [start, end, name] of the perf map, to name `0x...` functions. */
function readPerfMap(path) {
  if (!existsSync(path)) return [];
  const rows = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (m !== null) rows.push([parseInt(m[1], 16), parseInt(m[1], 16) + parseInt(m[2], 16), m[3]]);
  }
  return rows.sort((a, b) => a[0] - b[0]);
}
const perf = readPerfMap(file.replace(/\.cg$/, ".map"));
function jsName(name) {
  const m = /^0x([0-9a-f]+)$/.exec(name);
  if (m === null || perf.length === 0) return name;
  const at = parseInt(m[1], 16);
  let lo = 0;
  let hi = perf.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (perf[mid][0] <= at) lo = mid + 1;
    else hi = mid - 1;
  }
  const row = perf[hi];
  return row !== undefined && at < row[1] ? `${row[2]} [${name}]` : name;
}

const names = new Map();
const named = (ref) => {
  const m = /^\((\d+)\)(?: (.*))?$/.exec(ref);
  if (m === null) return ref;
  if (m[2] !== undefined) names.set(m[1], m[2]);
  return names.get(m[1]) ?? ref;
};
const self = new Map();
const calls = new Map();
let fn = "";
let cfn = "";
let pendingCalls = -1;
for (const line of readFileSync(file, "utf8").split("\n")) {
  if (line.startsWith("fn=")) fn = named(line.slice(3));
  else if (line.startsWith("cfn=")) cfn = named(line.slice(4));
  else if (line.startsWith("calls=")) pendingCalls = Number(line.slice(6).split(" ")[0]);
  else if (/^[0-9+\-*]/.test(line)) {
    const cost = Number(line.split(" ")[1] ?? 0);
    if (pendingCalls >= 0) {
      const key = `${fn}\u0000${cfn}`;
      const c = calls.get(key) ?? { n: 0, cost: 0 };
      c.n += pendingCalls;
      c.cost += cost;
      calls.set(key, c);
      pendingCalls = -1;
    } else self.set(fn, (self.get(fn) ?? 0) + cost);
  }
}
const per = (n) => (n / requests).toFixed(1).padStart(9);
if (callersOf !== "") {
  const re = new RegExp(callersOf);
  const rows = [...calls].filter(([k]) => re.test(jsName(k.split("\u0000")[1]))).sort((a, b) => b[1].cost - a[1].cost);
  for (const [k, c] of rows.slice(0, top)) {
    const [from, to] = k.split("\u0000");
    console.log(`${per(c.cost)} incl ${(c.n / requests).toFixed(2).padStart(6)} calls  ${jsName(from).slice(0, 90)} -> ${jsName(to).slice(0, 70)}`);
  }
} else {
  // Named JS functions can span several code objects (tiers): sum them by name.
  const byName = new Map();
  for (const [f, c] of self) {
    const name = jsName(f).replace(/ \[0x[0-9a-f]+\]$/, "");
    byName.set(name, (byName.get(name) ?? 0) + c);
  }
  let total = 0;
  for (const c of byName.values()) total += c;
  console.log(`${per(total)} total per request`);
  for (const [name, c] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${per(c)}  ${name.slice(0, 160)}`);
}
