// keel, serving the benchmark scenarios. Bundled by bench/run.mjs into bench/.peers/build/keel.mjs.
//   node keel.mjs            scenarios 1, 2, 3, 5 (and the 404/422 error paths)
//   node keel.mjs --stack    scenario 4: GET /hello behind the production stack
//   node keel.mjs --real     the `real` scenario: the routes behind JWT, rate limit, CORS,
//                            security headers, request id and access log (servers/keel-real.ts)
//   --response-schemas       the same routes with declared response schemas, so their compiled
//                            serializers write the bodies (bench/servers/keel-schemas.ts)
import type { App } from "../../lib/index.js";
import { cors, securityHeaders } from "../../lib/middleware/index.js";
import { production } from "../../lib/service/index.js";
import { ALLOWED_ORIGIN, announceReady, exitOnSignal, SECURITY_HEADERS, wantsProductionStack, wantsRealStack } from "./common.js";
import { realStackPartsFrom, withRealStack } from "./keel-real.js";
import { scenarioApp } from "./keel-routes.js";

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

async function main(): Promise<void> {
  exitOnSignal();
  let app = scenarioApp(process.argv.includes("--response-schemas"));
  if (wantsProductionStack()) {
    app = withProductionStack(app);
  }
  if (wantsRealStack()) app = withRealStack(app, realStackPartsFrom(process.argv));
  // The real stack is slow enough under valgrind on a loaded machine to stall the server past
  // node's 5 s keep-alive timeout (the load then sees ECONNRESET): keep connections as long as
  // Fastify does by default (72 s). The per-request work is the same either way.
  const limits = wantsRealStack() ? { keepAliveTimeout: 75_000, headersTimeout: 80_000, requestTimeout: 120_000 } : {};
  const server = await app.listen({ port: 0, host: "127.0.0.1", ...limits });
  announceReady(server.port);
}

void main();
