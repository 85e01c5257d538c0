// Exact instruction counts for response contracts: `app.inject` in a loop on the benchmark routes,
// with and without declared response schemas. Run through bench/callgrind/run.mjs, which bundles
// this file, runs it under valgrind --tool=callgrind at N and 2N iterations and prints the
// difference per request (fixed costs cancel). Alone: node contract-loop.mjs <case> <schemas 0|1> <n>
import { freemem, totalmem } from "node:os";
import { App, created, json, path, route, silentLogger, t } from "../../lib/index.js";
import { HELLO_BODY, makeBigPayload, VALID_USER } from "../servers/route-table.js";

const BigItem = t.object({
  id: t.integer(),
  name: t.string(),
  email: t.string(),
  active: t.boolean(),
  score: t.number(),
  tags: t.array(t.string()),
  created_at: t.string({ format: "date-time" }),
});
const CreateUser = t.object({ email: t.string({ email: true }), password: t.string({ length: { min: 8 } }) });

function buildApp(schemas: boolean): App {
  const big = makeBigPayload();
  const r = <R>(responses: R) => (schemas ? { responses } : {});
  return new App({ logger: silentLogger })
    .route(route.get("/hello", r({ 200: t.object({ hello: t.string() }) }), [], () => HELLO_BODY))
    .route(route.get("/users/{id}", r({ 200: t.object({ id: t.u64(), name: t.string() }) }), [path("id", t.u64())], (id) => ({ id, name: "user" })))
    .route(route.post("/users", r({ 201: t.object({ id: t.integer(), email: t.string() }) }), [json(CreateUser)], (u) => created({ id: 1, email: u.email })))
    .route(route.get("/big", r({ 200: t.object({ items: t.array(BigItem), total: t.integer() }) }), [], () => big))
    .compile();
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
