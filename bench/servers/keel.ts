// keel, serving the benchmark scenarios. Bundled by bench/run.mjs into bench/.peers/build/keel.mjs.
//   node keel.mjs            scenarios 1, 2, 3, 5 (and the 404/422 error paths)
//   node keel.mjs --stack    scenario 4: GET /hello behind the production stack
import { App, created, json, path, route, silentLogger, t, type RouteDefinition } from "../../lib/index.js";
import { announcePending, announceReady, exitOnSignal, wantsProductionStack } from "./common.js";
import { benchExtraRoutes, EXTRA_ROUTE_BODY, HELLO_BODY, makeBigPayload } from "./route-table.js";

/**
 * Scenario 4 waits for keel's own layers. When production()/cors()/securityHeaders() exist, add
 * them here with the options in bench/servers/common.ts (ALLOWED_ORIGIN, SECURITY_HEADERS, a JSON
 * access log on stdout) and return the app; the harness measures it as soon as this stops
 * announcing "pending".
 */
function withProductionStack(_app: App): App | string {
  return "pending: needs production()/cors()/securityHeaders() layers";
}

const CreateUser = t.object({
  email: t.string({ email: true }),
  password: t.string({ length: { min: 8 } }),
});

function buildApp(): App {
  const big = makeBigPayload();
  const app = new App({ logger: silentLogger });
  app.route(route.get("/hello", [], () => HELLO_BODY));
  app.route(route.get("/users/{id}", [path("id", t.u64())], (id) => ({ id, name: "user" })));
  app.route(route.post("/users", [json(CreateUser)], (u) => created({ id: 1, email: u.email })));
  app.route(route.get("/big", [], () => big));
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

async function main(): Promise<void> {
  exitOnSignal();
  let app = buildApp();
  if (wantsProductionStack()) {
    const stacked = withProductionStack(app);
    if (typeof stacked === "string") return announcePending(stacked);
    app = stacked;
  }
  const server = await app.listen({ port: 0, host: "127.0.0.1" });
  announceReady(server.port);
}

void main();
