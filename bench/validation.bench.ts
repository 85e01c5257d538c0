/**
 * Validation throughput: keel's compileSchema against ajv 8 on the same schemas and data.
 *   node --import tsx bench/validation.bench.ts [--quick]
 * ajv is a peer for comparison only, installed on demand into the git-ignored bench/.peers:
 *   npm install --prefix bench/.peers ajv@8 ajv-formats --no-save
 * Note: `--no-save` installs prune whatever else is in bench/.peers, so this script re-installs the
 * peers already present (e.g. find-my-way for the router bench) in the same command.
 * Reported: ops/s (median of rounds, keel and ajv alternating) and keel/ajv ratios. ajv runs both
 * with allErrors (what keel does: every failed rule is reported) and with its default (first error).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { compileSchema, t, type JsonSchema } from "../lib/json-schema/index.js";

const quick = process.argv.includes("--quick");
const ROUND_MS = quick ? 60 : 250;
const ROUNDS = quick ? 3 : 7;

const peersDir = fileURLToPath(new URL("./.peers", import.meta.url));
const peerModules = `${peersDir}/node_modules`;

type AjvValidate = (data: unknown) => boolean;
interface AjvLike { compile(schema: unknown): AjvValidate }

function loadAjv(allErrors: boolean): AjvLike | null {
  if (!existsSync(`${peerModules}/ajv`) || !existsSync(`${peerModules}/ajv-formats`)) {
    const keep = existsSync(peerModules) ? readdirSync(peerModules).filter((n) => ["find-my-way", "fastify", "hono"].includes(n)) : [];
    console.log(`installing ajv into ${peersDir} ...`);
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const run = spawnSync(npm, ["install", "--prefix", peersDir, "ajv@8", "ajv-formats", ...keep, "--no-save"], { stdio: "inherit" });
    if (run.status !== 0) return null;
  }
  const require = createRequire(`${peerModules}/`);
  const AjvClass = require("ajv") as { default: new (o: object) => AjvLike };
  const addFormats = require("ajv-formats") as { default: (a: AjvLike) => void };
  const ajv = new AjvClass.default({ allErrors, strict: false });
  addFormats.default(ajv);
  return ajv;
}

// Schemas built with `t` are plain JSON Schema: ajv gets the very same objects.
const createUser = t.object({ email: t.string({ email: true }), password: t.string({ length: { min: 8 } }) });

const profile = t.object({
  id: t.u64(),
  name: t.string({ length: { min: 1, max: 100 } }),
  age: t.integer({ range: { min: 0, max: 150 } }),
  role: t.enum(["admin", "editor", "viewer"]),
  address: t.object({
    street: t.string({ minLength: 1 }),
    city: t.string({ minLength: 1 }),
    zip: t.string({ regex: "^[0-9]{5}$" }),
    country: t.string({ minLength: 2, maxLength: 2 }),
  }),
  tags: t.array(t.string({ maxLength: 20 }), { maxItems: 10 }),
  settings: t.object({ newsletter: t.boolean(), theme: t.optional(t.enum(["light", "dark"])) }),
});

const item = t.object({
  id: t.integer({ minimum: 1 }),
  name: t.string({ minLength: 1 }),
  price: t.number({ minimum: 0 }),
  tags: t.array(t.string()),
});
const itemList = t.array(item, { maxItems: 1000 });

const validProfile = {
  id: 42, name: "Ada", age: 36, role: "admin",
  address: { street: "1 Main St", city: "London", zip: "12345", country: "GB" },
  tags: ["math", "engines"], settings: { newsletter: true, theme: "dark" },
};
const invalidProfile = {
  id: -1, name: "", age: 200, role: "owner",
  address: { street: "1 Main St", city: "", zip: "ABCDE", country: "GBR" },
  tags: ["math"], settings: { newsletter: "yes" },
};
const validItems = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, name: `item ${i}`, price: i * 1.5, tags: ["a", "b"] }));
const invalidItems = validItems.map((x, i) => (i % 25 === 7 ? { ...x, price: -1, name: "" } : x));

interface Case { name: string; schema: JsonSchema; data: unknown; valid: boolean }
const cases: Case[] = [
  { name: "small (create-user) valid", schema: createUser, data: { email: "ada@example.com", password: "correct horse" }, valid: true },
  { name: "small (create-user) invalid", schema: createUser, data: { email: "not-an-email", password: "short" }, valid: false },
  { name: "medium nested valid", schema: profile, data: validProfile, valid: true },
  { name: "medium nested invalid", schema: profile, data: invalidProfile, valid: false },
  { name: "array of 100 valid", schema: itemList, data: validItems, valid: true },
  { name: "array of 100 invalid", schema: itemList, data: invalidItems, valid: false },
];

let sink = 0;
function opsPerSecond(fn: (d: unknown) => boolean, data: unknown): number {
  let n = 0;
  const end = performance.now() + ROUND_MS;
  const start = performance.now();
  while (performance.now() < end) {
    for (let i = 0; i < 200; i++) if (fn(data)) sink++;
    n += 200;
  }
  return n / ((performance.now() - start) / 1000);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

const fmt = (n: number): string => Math.round(n).toLocaleString("en-US").padStart(12);

function main(): void {
  const ajvAll = loadAjv(true);
  const ajvFirst = loadAjv(false);
  if (ajvAll === null || ajvFirst === null) console.log("(ajv not available: keel only)");
  console.log(`validation bench (${quick ? "quick" : "full"}: ${ROUNDS} rounds x ${ROUND_MS} ms, median ops/s)`);
  console.log(`${"case".padEnd(30)}${"keel".padStart(12)}${"closures".padStart(12)}${"ajv all".padStart(12)}${"ajv first".padStart(12)}  keel/ajv-all  keel/ajv-first  closures/keel`);
  for (const c of cases) {
    const compiled = compileSchema(c.schema);
    const keel = (d: unknown): boolean => compiled.validate(d) === null;
    const closureCompiled = compileSchema(c.schema, { codegen: false });
    const closures = (d: unknown): boolean => closureCompiled.validate(d) === null;
    const all = ajvAll?.compile(c.schema) ?? null;
    const first = ajvFirst?.compile(c.schema) ?? null;
    for (const [name, fn] of [["keel", keel], ["keel closures", closures], ["ajv", all], ["ajv first", first]] as const) {
      if (fn !== null && fn(c.data) !== c.valid) throw new Error(`${name} disagrees on ${c.name}`);
    }
    const samples: number[][] = [[], [], [], []];
    for (let r = 0; r < ROUNDS; r++) {
      samples[0]?.push(opsPerSecond(keel, c.data));
      samples[1]?.push(opsPerSecond(closures, c.data));
      if (all !== null) samples[2]?.push(opsPerSecond(all, c.data));
      if (first !== null) samples[3]?.push(opsPerSecond(first, c.data));
    }
    const [k, cl, a, f] = samples.map((s) => (s.length > 0 ? median(s) : NaN)) as [number, number, number, number];
    const ratio = (x: number, y = k): string => (Number.isNaN(x) ? "-" : (y / x).toFixed(2)).padStart(14);
    console.log(`${c.name.padEnd(30)}${fmt(k)}${fmt(cl)}${fmt(a)}${fmt(f)}${ratio(a)}${ratio(f)}${ratio(k, cl)}`);
  }
  if (sink < 0) console.log(sink);
}

main();
