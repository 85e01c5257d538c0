// Replay redaction, fuzzed through replay() (issue 32 item 7): for random query strings, form
// bodies and JSON values, nothing a client sent under a name that is not allow-listed survives
// into the record, allow-listed values and non-string JSON scalars survive unchanged, the pairs
// keep their order and count, and recording never fails on any input.
import assert from "node:assert/strict";
import { test } from "node:test";
import { App, route, silentLogger } from "../../lib/index.js";
import { MemoryReplayStore, replay, type ReplayRecord } from "../../lib/replay/index.js";
import { runProperty, type Rng } from "./property.js";

const NAMES = ["page", "Page", "q", "sort", "token", "access_token", "api-key", "passwd", "name", "a b", "x%20y", "é", "", "__proto__", "constructor", "tags"];
const ALLOWED = ["page", "q", "name", "tags", "api-key"];
const NOISE = ["%", "%2", "%zz", "+", "=", "==", ";", "&&", "%26", "%3D"];
/** Names the recorder treats as secret whatever the allow-list (see REPLAY_SECRET_FIELDS). */
const isSecret = (name: string): boolean => /password|secret|token/.test(name.toLowerCase().replace(/[-_]/g, "")) || ["passwd", "apikey"].includes(name.toLowerCase().replace(/[-_]/g, ""));

const store = new MemoryReplayStore({ capacity: 1 });
const app = new App({ logger: silentLogger }).register(replay({ store, allowQuery: ALLOWED, allowFields: ALLOWED, maxRequestBody: 1 << 20 })).routes(route.post("/r", [], () => "ok"));

async function recordOf(url: string, contentType: string, body: string): Promise<ReplayRecord> {
  const res = await app.inject({ method: "POST", url, headers: { "content-type": contentType }, body });
  assert.equal(res.status, 200);
  const [r] = await store.list();
  return r!;
}

interface Pairs {
  pairs: Array<{ name: string; value: string }>;
  noise: string[];
}

let serial = 0;
/** A value no other value contains (fixed width, unique). */
const token = (): string => `V${String(serial++ % 1_000_000).padStart(6, "0")}Z`;

test("fuzz: query strings and forms keep only allow-listed values", async () => {
  await runProperty<Pairs>({
    name: "replay/redact-pairs",
    generate: (rng: Rng) => ({
      pairs: Array.from({ length: rng.range(0, 8) }, () => ({ name: rng.pick(NAMES), value: token() })),
      noise: Array.from({ length: rng.range(0, 3) }, () => rng.pick(NOISE)),
    }),
    check: async ({ pairs, noise }) => {
      const text = [...pairs.map((p) => `${encodeURIComponent(p.name)}=${p.value}`), ...noise].join("&");
      const r = await recordOf("/r?" + text, "application/x-www-form-urlencoded", text);
      for (const out of [r.request.query, r.request.body ?? ""]) {
        assert.equal(out.split("&").length, text.split("&").length, "same number of pairs, in order");
        for (const p of pairs) {
          const keep = ALLOWED.includes(p.name.toLowerCase()) && !isSecret(p.name);
          assert.equal(out.includes(p.value), keep, `${p.name}=${p.value} in ${out}`);
        }
      }
    },
  });
});

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function json(rng: Rng, depth: number): Json {
  switch (depth > 3 ? rng.int(4) : rng.int(6)) {
    case 0: return null;
    case 1: return rng.chance(0.5);
    case 2: return rng.range(-1000, 1000);
    case 3: return token();
    case 4: return Array.from({ length: rng.range(0, 3) }, () => json(rng, depth + 1));
    default: {
      const o: { [k: string]: Json } = {};
      for (let i = rng.range(0, 4); i > 0; i--) o[rng.pick(NAMES)] = json(rng, depth + 1);
      return o;
    }
  }
}

/** Every string token under an allowed (non-secret) name: what may survive. */
function survivors(v: Json, key: string | null, out: Set<string>): void {
  if (typeof v === "string") {
    if (key !== null && ALLOWED.includes(key.toLowerCase())) out.add(v);
  } else if (Array.isArray(v)) for (const x of v) survivors(x, key, out);
  else if (v !== null && typeof v === "object") for (const k of Object.keys(v)) if (!isSecret(k)) survivors(v[k]!, k, out);
}

function strings(v: Json, out: string[]): void {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v !== null && typeof v === "object") for (const k of Object.keys(v)) strings(v[k]!, out);
}

test("fuzz: JSON bodies keep only allow-listed strings, and numbers and booleans outside secret names", async () => {
  await runProperty<Json>({
    name: "replay/redact-json",
    generate: (rng) => json(rng, 0),
    check: async (value) => {
      const text = JSON.stringify(value);
      const input = JSON.parse(text) as Json; // as the recorder sees it
      const out = (await recordOf("/r", "application/json", text)).request.body ?? "null";
      const keep = new Set<string>();
      survivors(input, null, keep);
      const all: string[] = [];
      strings(input, all);
      for (const s of all) assert.equal(out.includes(s), keep.has(s), `${s} in ${out}`);
      const shape = (v: unknown): unknown => (typeof v === "string" ? "s" : Array.isArray(v) ? v.map(shape) : v !== null && typeof v === "object" ? Object.keys(v).length : v);
      if (typeof input !== "object" || input === null) assert.deepEqual(shape(JSON.parse(out)), shape(input));
    },
  });
});
