// Hono 4 on @hono/node-server, serving the benchmark scenarios as its users would write them:
// the default router, hono/body-limit, and ajv (with ajv-formats) for the JSON body, since Hono
// has no JSON Schema validator of its own. JavaScript, because the peers live in the git-ignored
// bench/.peers and are not type-checked. Bundled by bench/run.mjs with the peers external.
//   node hono.mjs [--stack]
import { serve } from "@hono/node-server";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import {
  ALLOWED_ORIGIN,
  announceReady,
  benchErrorBody,
  exitOnSignal,
  parseIdParam,
  requestIdFor,
  SECURITY_HEADERS,
  wantsProductionStack,
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

const JSON_HEADERS = { "content-type": "application/json" };

function errorResponse(c, status, type, message, fields) {
  return c.body(benchErrorBody(type, message, fields), status, JSON_HEADERS);
}

function buildApp(stack) {
  const big = makeBigPayload();
  const ajv = new Ajv({ allErrors: true });
  addFormats(ajv);
  const validateUser = ajv.compile(CREATE_USER_SCHEMA);
  const app = new Hono();

  if (stack) {
    app.use("*", async (c, next) => {
      const start = performance.now();
      const reqId = requestIdFor(c.req.header("x-request-id"));
      await next();
      c.header("x-request-id", reqId);
      for (const name in SECURITY_HEADERS) c.header(name, SECURITY_HEADERS[name]);
      if (c.req.header("origin") === ALLOWED_ORIGIN) {
        c.header("access-control-allow-origin", ALLOWED_ORIGIN);
        c.header("access-control-expose-headers", "x-request-id");
        c.header("vary", "origin");
      }
      writeAccessLog(reqId, c.req.method, c.req.path, c.res.status, start);
    });
  }

  app.get("/hello", (c) => c.json(HELLO_BODY));
  app.get("/users/:id", (c) => {
    const id = parseIdParam(c.req.param("id"));
    if (id < 0) return errorResponse(c, 422, "validation_error", "Request validation failed", [{ field: "id", code: "type", message: "must be an unsigned integer" }]);
    return c.json({ id, name: "user" });
  });
  app.post(
    "/users",
    bodyLimit({ maxSize: 1024 * 1024, onError: (c) => errorResponse(c, 413, "payload_too_large", "Request body too large") }),
    async (c) => {
      const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
      if (type !== "application/json") return errorResponse(c, 415, "unsupported_media_type", "Expected application/json");
      let body;
      try {
        body = await c.req.json();
      } catch {
        return errorResponse(c, 400, "bad_request", "Malformed JSON body");
      }
      if (!validateUser(body)) {
        const fields = validateUser.errors.map((e) => ({
          field: e.instancePath.replace(/^\//, "") || e.params?.missingProperty || "",
          code: e.keyword,
          message: e.message ?? "invalid",
        }));
        return errorResponse(c, 422, "validation_error", "Request validation failed", fields);
      }
      return c.json({ id: 1, email: body.email }, 201);
    },
  );
  app.get("/big", (c) => c.json(big));
  for (const r of benchExtraRoutes()) app.on(r.method, toColonPath(r.path), (c) => c.json(EXTRA_ROUTE_BODY));
  app.notFound((c) => errorResponse(c, 404, "not_found", "Not found"));
  return app;
}

exitOnSignal();
const app = buildApp(wantsProductionStack());
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => announceReady(info.port));
void server;
