// keel, serving the benchmark scenarios. Bundled by bench/run.mjs into bench/.peers/build/keel.mjs.
//   node keel.mjs            scenarios 1, 2, 3, 5 (and the 404/422 error paths)
//   node keel.mjs --stack    scenario 4: GET /hello behind the production stack
//   --response-schemas       the same routes with declared response schemas, so their compiled
//                            serializers write the bodies (bench/servers/keel-schemas.ts)
import { App, route, silentLogger, type RouteDefinition } from "../../lib/index.js";
import { cors, securityHeaders } from "../../lib/middleware/index.js";
import { production } from "../../lib/service/index.js";
import { ALLOWED_ORIGIN, announceReady, exitOnSignal, SECURITY_HEADERS, wantsProductionStack } from "./common.js";
import { scenarioRoutes } from "./keel-routes.js";
import { benchExtraRoutes, EXTRA_ROUTE_BODY } from "./route-table.js";

/**
 * Scenario 4: the same stack the other servers write by hand (bench/servers/common.ts): request
 * id, span and JSON access log on stdout (production(), probes off), CORS for ALLOWED_ORIGIN,
 * and the SECURITY_HEADERS set.
 */
function withProductionStack(app: App): App {
  production({ service: "bench", probes: false }).register(app);
  app.layer(cors({ origin: ALLOWED_ORIGIN }));
  app.layer(
    securityHeaders({
      referrerPolicy: SECURITY_HEADERS["referrer-policy"]!,
      contentSecurityPolicy: SECURITY_HEADERS["content-security-policy"]!,
      hsts: { maxAge: 31536000, includeSubDomains: true, always: true },
      extra: {
        "x-dns-prefetch-control": "off",
        "x-permitted-cross-domain-policies": "none",
        "origin-agent-cluster": "?1",
      },
    }),
  );
  return app;
}

function buildApp(schemas: boolean): App {
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

async function main(): Promise<void> {
  exitOnSignal();
  let app = buildApp(process.argv.includes("--response-schemas"));
  if (wantsProductionStack()) {
    app = withProductionStack(app);
  }
  const server = await app.listen({ port: 0, host: "127.0.0.1" });
  announceReady(server.port);
}

void main();
