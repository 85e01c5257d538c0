// The HTTP scenarios of the benchmark (issue 4). Every server in bench/servers answers all of
// them; request bodies mirror VALID_USER / INVALID_USER in bench/servers/route-table.ts (the
// pre-flight check in http-matrix.mjs fails loudly if a server answers another status).

const JSON_HEADERS = { "content-type": "application/json" };

/**
 * @typedef {{ id: string, number: number, title: string, method: string, path: string,
 *   headers?: Record<string, string>, body?: string, expectStatus: number, stack?: boolean,
 *   quick: boolean }} Scenario
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
