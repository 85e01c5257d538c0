// The HTTP scenarios of the benchmark (issue 4). Every server in bench/servers answers all of
// them; request bodies mirror VALID_USER / INVALID_USER in bench/servers/route-table.ts (the
// pre-flight check in http-matrix.mjs fails loudly if a server answers another status).

import { createHmac } from "node:crypto";

const JSON_HEADERS = { "content-type": "application/json" };

/** The same string as REAL_JWT_SECRET in bench/servers/common.ts (the servers verify with it). */
const REAL_JWT_SECRET = "keel-bench-real-scenario-hs256-secret-0123456789";

/** A compact HS256 JWT over `claims`, signed with `secret`. */
export function signHs256(claims, secret) {
  const b64 = (s) => Buffer.from(s).toString("base64url");
  const input = `${b64(JSON.stringify({ alg: "HS256", typ: "JWT" }))}.${b64(JSON.stringify(claims))}`;
  return `${input}.${createHmac("sha256", secret).update(input).digest("base64url")}`;
}

/** The load's bearer token: fixed claims (iat and an exp in 2100), so every run sends the same bytes. */
export const REAL_TOKEN = signHs256({ sub: "42", role: "user", iat: 1_700_000_000, exp: 4_102_444_800 }, REAL_JWT_SECRET);

/** What a browser app behind the real stack sends: its origin and the bearer token. */
const REAL_HEADERS = { origin: "https://app.example.com", authorization: `Bearer ${REAL_TOKEN}` };

/**
 * @typedef {{ id: string, number: number, title: string, method: string, path: string,
 *   headers?: Record<string, string>, body?: string, expectStatus: number, stack?: boolean,
 *   args?: string[], impls?: string[], quick: boolean }} Scenario
 * `args` are the server's arguments for the scenario (default `--stack` when `stack`, else none);
 * `impls` limits the scenario to those implementations (default all).
 */

/** @type {Scenario[]} */
export const SCENARIOS = [
  { id: "hello", number: 1, title: "GET /hello → small JSON object", method: "GET", path: "/hello", expectStatus: 200, quick: true },
  {
    id: "param",
    number: 2,
    title: "GET /users/{id} with 55 other static and parameter routes registered",
    method: "GET",
    path: "/users/42",
    expectStatus: 200,
    quick: true,
  },
  {
    id: "post",
    number: 3,
    title: "POST /users, JSON body validated (email format, password ≥ 8) → 201 JSON",
    method: "POST",
    path: "/users",
    headers: JSON_HEADERS,
    body: JSON.stringify({ email: "alice@example.com", password: "correct-horse-battery" }),
    expectStatus: 201,
    quick: true,
  },
  {
    id: "stack",
    number: 4,
    title: "GET /hello behind the production stack (request id, CORS, security headers, JSON access log)",
    method: "GET",
    path: "/hello",
    headers: { origin: "https://app.example.com" },
    expectStatus: 200,
    stack: true,
    quick: false,
  },
  {
    id: "real-get",
    number: 6,
    title: "GET /users/{id} behind HS256 JWT, memory rate limit, CORS, security headers, request id, JSON access log",
    method: "GET",
    path: "/users/42",
    headers: REAL_HEADERS,
    expectStatus: 200,
    args: ["--real"],
    impls: ["keel", "fastify", "hono"],
    quick: false,
  },
  {
    id: "real-post",
    number: 6,
    title: "POST /users (validated JSON → 201) behind the same real-world stack",
    method: "POST",
    path: "/users",
    headers: { ...REAL_HEADERS, ...JSON_HEADERS },
    body: JSON.stringify({ email: "alice@example.com", password: "correct-horse-battery" }),
    expectStatus: 201,
    args: ["--real"],
    impls: ["keel", "fastify", "hono"],
    quick: false,
  },
  { id: "big", number: 5, title: "GET /big → 64 KB JSON response", method: "GET", path: "/big", expectStatus: 200, quick: true },
  { id: "notfound", number: 5, title: "GET /does/not/exist → 404 uniform error", method: "GET", path: "/does/not/exist", expectStatus: 404, quick: true },
  {
    id: "invalid",
    number: 5,
    title: "POST /users with an invalid body → 422 uniform error (both fields reported)",
    method: "POST",
    path: "/users",
    headers: JSON_HEADERS,
    body: JSON.stringify({ email: "not-an-email", password: "short" }),
    expectStatus: 422,
    quick: true,
  },
];

/**
 * Implementations, in table order. `peer` ones need bench/.peers. `only` limits an implementation
 * to some scenarios; such a one (the node:http floor) is left out of the throughput run. `optIn`
 * ones run only when named in `--impls` (keel with metrics + tracing, for issue 19's budget).
 */
export const IMPLEMENTATIONS = [
  { id: "keel", label: "keel", entry: "servers/keel.ts", peer: false },
  { id: "keel-schemas", label: "keel (response schemas)", entry: "servers/keel-schemas.ts", peer: false },
  { id: "keel-observed", label: "keel + metrics + tracing (OTLP export)", entry: "servers/keel-observed.ts", peer: false, optIn: true },
  { id: "keel-obs-production", label: "keel + production() spans", entry: "servers/keel-obs-production.ts", peer: false, optIn: true },
  { id: "keel-obs-metrics", label: "+ metrics()", entry: "servers/keel-obs-metrics.ts", peer: false, optIn: true },
  { id: "keel-obs-export-off", label: "+ OTLP exporter, export off (ratio 0)", entry: "servers/keel-obs-export-off.ts", peer: false, optIn: true },
  { id: "keel-obs-export-1pct", label: "+ OTLP export, 1% sampled", entry: "servers/keel-obs-export-1pct.ts", peer: false, optIn: true },
  { id: "keel-obs-export-1pct-batched", label: "+ OTLP export, 1% sampled, batches of 50", entry: "servers/keel-obs-export-1pct-batched.ts", peer: false, optIn: true },
  { id: "raw", label: "raw node:http", entry: "servers/raw.ts", peer: false },
  { id: "floor", label: "node:http floor", entry: "servers/floor.ts", peer: false, only: ["hello"] },
  { id: "fastify", label: "Fastify 5", entry: "servers/fastify.mjs", peer: true },
  { id: "hono", label: "Hono 4 (node-server)", entry: "servers/hono.mjs", peer: true },
];

/** The server arguments of `scenario`. */
export function scenarioArgs(scenario) {
  return scenario.args ?? (scenario.stack ? ["--stack"] : []);
}

/** Whether `implId` serves `scenario`. */
export function servesScenario(scenario, implId) {
  return scenario.impls === undefined || scenario.impls.includes(implId);
}
