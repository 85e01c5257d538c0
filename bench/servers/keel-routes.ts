// keel's routes for the benchmark scenarios (hello, the param route, the validated POST, the 64 KB
// list), with or without declared response schemas. One definition for the HTTP server
// (servers/keel.ts), the micro benchmarks and the callgrind runner, so they measure the same code.
import { App, created, json, path, route, silentLogger, t, type RouteDefinition } from "../../lib/index.js";
import { benchExtraRoutes, EXTRA_ROUTE_BODY, HELLO_BODY, makeBigPayload } from "./route-table.js";

export const CreateUser = t.object({
  email: t.string({ email: true }),
  password: t.string({ length: { min: 8 } }),
});

const BigItem = t.object({
  id: t.integer(),
  name: t.string(),
  email: t.string(),
  active: t.boolean(),
  score: t.number(),
  tags: t.array(t.string()),
  created_at: t.string({ format: "date-time" }),
});

/** The scenario routes; with `schemas`, their responses are declared (compiled serializers write them). */
export function scenarioRoutes(schemas: boolean): RouteDefinition[] {
  const big = makeBigPayload();
  // Without schemas the meta is empty: the bodies go through JSON.stringify.
  const r = <R>(responses: R) => (schemas ? { responses } : {});
  return [
    route.get("/hello", r({ 200: t.object({ hello: t.string() }) }), [], () => HELLO_BODY),
    route.get("/users/{id}", r({ 200: t.object({ id: t.u64(), name: t.string() }) }), [path("id", t.u64())], (id) => ({ id, name: "user" })),
    route.post("/users", r({ 201: t.object({ id: t.integer(), email: t.string() }) }), [json(CreateUser)], (u) => created({ id: 1, email: u.email })),
    route.get("/big", r({ 200: t.object({ items: t.array(BigItem), total: t.integer() }) }), [], () => big),
  ];
}

/** The app every keel bench server starts from: the scenario routes and the ~50 others. */
export function scenarioApp(schemas: boolean): App {
  const app = new App({ logger: silentLogger }).routes(scenarioRoutes(schemas));
  for (const r of benchExtraRoutes()) app.route(extraRoute(r.method, r.path));
  return app;
}

function extraRoute(method: string, p: string): RouteDefinition {
  const handler = () => EXTRA_ROUTE_BODY;
  switch (method) {
    case "POST":
      return route.post(p, [], handler);
    case "PUT":
      return route.put(p, [], handler);
    case "DELETE":
      return route.delete(p, [], handler);
    default:
      return route.get(p, [], handler);
  }
}
