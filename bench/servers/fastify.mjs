// Fastify 5, serving the benchmark scenarios as its users would write them: JSON schemas for the
// body and the id (its built-in ajv, with formats), an error handler giving keel's error shape.
// JavaScript, because fastify lives in the git-ignored bench/.peers and is not type-checked.
// Bundled by bench/run.mjs into bench/.peers/build/ with fastify left external (resolved from
// bench/.peers/node_modules).   node fastify.mjs [--stack | --real]
// --real (issue 34's `real` scenario): the official plugins at their defaults, as a Fastify user
// would compose the same stack: @fastify/rate-limit (memory store), @fastify/cors for
// ALLOWED_ORIGIN, @fastify/helmet, @fastify/jwt (HS256, verified in an onRequest hook), request
// ids taken from / sent as x-request-id (UUIDs, like keel's), and Fastify's own pino logger at
// info on stdout (its defaults: an "incoming request" and a "request completed" line).
import { randomUUID } from "node:crypto";
import fastifyCors from "@fastify/cors";
import fastifyHelmet from "@fastify/helmet";
import fastifyJwt from "@fastify/jwt";
import fastifyRateLimit from "@fastify/rate-limit";
import Fastify from "fastify";
import {
  ALLOWED_ORIGIN,
  announceReady,
  benchErrorBody,
  exitOnSignal,
  REAL_JWT_SECRET,
  REAL_RATE_LIMIT,
  requestIdFor,
  SECURITY_HEADERS,
  wantsProductionStack,
  wantsRealStack,
  writeAccessLog,
} from "./common.ts";
import { benchExtraRoutes, EXTRA_ROUTE_BODY, HELLO_BODY, makeBigPayload, toColonPath } from "./route-table.ts";

const CREATE_USER_SCHEMA = {
  type: "object",
  required: ["email", "password"],
  properties: {
    email: { type: "string", format: "email" },
    password: { type: "string", minLength: 8 },
  },
};
const ID_PARAMS_SCHEMA = {
  type: "object",
  required: ["id"],
  properties: { id: { type: "integer", minimum: 0 } },
};

function validationFields(validation) {
  return validation.map((v) => ({
    field: (v.instancePath || "").replace(/^\//, "") || v.params?.missingProperty || "",
    code: v.keyword,
    message: v.message ?? "invalid",
  }));
}

/**
 * The real stack's plugins and hooks, registered before the routes. @fastify/rate-limit applies
 * to the routes added after it loaded (its README: `await fastify.register(...)` first).
 */
async function registerRealStack(app) {
  await app.register(fastifyRateLimit, { max: REAL_RATE_LIMIT.max, timeWindow: REAL_RATE_LIMIT.windowMs });
  app.register(fastifyCors, { origin: ALLOWED_ORIGIN });
  app.register(fastifyHelmet);
  app.register(fastifyJwt, { secret: REAL_JWT_SECRET });
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
    await request.jwtVerify();
  });
}

async function buildApp(stack, real) {
  const big = makeBigPayload();
  // allErrors: keel reports every failed field, so the 422 cell does the same work.
  const app = Fastify({
    logger: real ? { level: "info" } : false,
    ajv: { customOptions: { allErrors: true } },
    ...(real ? { requestIdHeader: "x-request-id", genReqId: () => randomUUID() } : {}),
  });
  if (real) await registerRealStack(app);

  if (stack) {
    // Declared up front so every request object keeps one shape (Fastify's advice).
    app.decorateRequest("benchStart", 0);
    app.decorateRequest("benchId", "");
    app.addHook("onRequest", (request, reply, done) => {
      request.benchStart = performance.now();
      request.benchId = requestIdFor(request.headers["x-request-id"]);
      done();
    });
    app.addHook("onSend", (request, reply, payload, done) => {
      reply.header("x-request-id", request.benchId);
      reply.headers(SECURITY_HEADERS);
      if (request.headers.origin === ALLOWED_ORIGIN) {
        reply.header("access-control-allow-origin", ALLOWED_ORIGIN);
        reply.header("access-control-expose-headers", "x-request-id");
        reply.header("vary", "origin");
      }
      done(null, payload);
    });
    app.addHook("onResponse", (request, reply, done) => {
      writeAccessLog(request.benchId, request.method, request.url, reply.statusCode, request.benchStart);
      done();
    });
  }

  app.setErrorHandler((err, request, reply) => {
    if (err.validation) {
      reply.code(422).type("application/json").send(benchErrorBody("validation_error", "Request validation failed", validationFields(err.validation)));
      return;
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    reply.code(status).type("application/json").send(benchErrorBody(status === 500 ? "internal_error" : status === 401 ? "unauthorized" : "bad_request", err.message));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).type("application/json").send(benchErrorBody("not_found", "Not found"));
  });

  app.get("/hello", () => HELLO_BODY);
  app.get("/users/:id", { schema: { params: ID_PARAMS_SCHEMA } }, (request) => ({ id: request.params.id, name: "user" }));
  app.post("/users", { schema: { body: CREATE_USER_SCHEMA } }, (request, reply) => {
    reply.code(201);
    return { id: 1, email: request.body.email };
  });
  app.get("/big", () => big);
  for (const r of benchExtraRoutes()) app.route({ method: r.method, url: toColonPath(r.path), handler: () => EXTRA_ROUTE_BODY });
  return app;
}

exitOnSignal();
const app = await buildApp(wantsProductionStack(), wantsRealStack());
await app.listen({ port: 0, host: "127.0.0.1" });
announceReady(app.server.address().port);
