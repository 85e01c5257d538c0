// Exact instruction counts for response contracts: `app.inject` in a loop on the benchmark routes,
// with and without declared response schemas. Run through bench/callgrind/run.mjs, which bundles
// this file, runs it under valgrind --tool=callgrind at N and 2N iterations and prints the
// difference per request (fixed costs cancel). Alone: node contract-loop.mjs <case> <schemas 0|1> <n>
import { freemem, totalmem } from "node:os";
import { App, silentLogger } from "../../lib/index.js";
import { scenarioRoutes } from "../servers/keel-routes.js";
import { VALID_USER } from "../servers/route-table.js";

function buildApp(schemas: boolean): App {
  return new App({ logger: silentLogger }).routes(scenarioRoutes(schemas)).compile();
}

const CASES = {
  hello: { url: "/hello", status: 200 },
  param: { url: "/users/42", status: 200 },
  post: { method: "POST", url: "/users", headers: { "content-type": "application/json" }, body: JSON.stringify(VALID_USER), status: 201 },
  big: { url: "/big", status: 200 },
} as const;

const [name = "hello", schemas = "0", count = "1000"] = process.argv.slice(2);
const c = CASES[name as keyof typeof CASES];
if (c === undefined) throw new Error(`unknown case ${name}: ${Object.keys(CASES).join(", ")}`);
const app = buildApp(schemas === "1");
const { status, ...request } = c;
const once = async () => {
  const res = await app.inject(request);
  if (res.status !== status) throw new Error(`${name}: status ${res.status}, expected ${status}`);
};
for (let i = 0; i < 3000; i++) await once(); // the optimised tier
freemem(); // callgrind: --zero-before=uv_get_free_memory
for (let i = 0, n = Number(count); i < n; i++) await once();
totalmem(); // callgrind: --dump-before=uv_get_total_memory
