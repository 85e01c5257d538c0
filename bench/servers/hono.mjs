// Hono 4 on @hono/node-server, serving the benchmark scenarios as its users would write them:
// the default router, hono/body-limit, and ajv (with ajv-formats) for the JSON body, since Hono
// has no JSON Schema validator of its own. JavaScript, because the peers live in the git-ignored
// bench/.peers and are not type-checked. Bundled by bench/run.mjs with the peers external.
//   node hono.mjs [--stack | --real]
// --real (issue 34's `real` scenario): hono/request-id, hono/cors for ALLOWED_ORIGIN,
// hono/secure-headers at its defaults and hono/jwt (HS256), with two small pieces written here
// because Hono ships none: a memory rate limiter (Hono has no official one; third-party
// hono-rate-limiter exists) and a JSON access logger (hono/logger prints text lines).
import { serve } from "@hono/node-server";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { jwt } from "hono/jwt";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import {
  ALLOWED_ORIGIN,
  announceReady,
  benchErrorBody,
  exitOnSignal,
  parseIdParam,
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

const JSON_HEADERS = { "content-type": "application/json" };

function errorResponse(c, status, type, message, fields) {
  return c.body(benchErrorBody(type, message, fields), status, JSON_HEADERS);
}

/**
 * A fixed-window memory rate limiter per client address, with the draft RateLimit-* headers:
 * at most `maxKeys` addresses are counted per window (further ones pass uncounted until the
 * window turns), and the whole table is dropped when it does.
 */
function memoryRateLimit({ max, windowMs, maxKeys = 10_000 }) {
  const hits = new Map();
  let windowStart = Date.now();
  return async (c, next) => {
    const now = Date.now();
    if (now - windowStart >= windowMs) {
      hits.clear();
      windowStart = now;
    }
    const key = c.env.incoming.socket.remoteAddress ?? "";
    const n = (hits.get(key) ?? 0) + 1;
    if (n <= max && (hits.size < maxKeys || hits.has(key))) hits.set(key, n);
    const reset = Math.ceil((windowStart + windowMs - now) / 1000);
    if (n > max) {
      return c.body(benchErrorBody("rate_limit_exceeded", "Too many requests"), 429, { ...JSON_HEADERS, "retry-after": String(reset) });
    }
    c.header("ratelimit-limit", String(max));
    c.header("ratelimit-remaining", String(max - n));
    c.header("ratelimit-reset", String(reset));
    await next();
  };
}

/** One JSON access line per request on stdout, with hono/request-id's id. */
async function jsonAccessLog(c, next) {
  const start = performance.now();
  await next();
  writeAccessLog(c.get("requestId"), c.req.method, c.req.path, c.res.status, start);
}

function useRealStack(app) {
  app.use("*", requestId());
  app.use("*", jsonAccessLog);
  app.use("*", cors({ origin: ALLOWED_ORIGIN }));
  app.use("*", secureHeaders());
  app.use("*", memoryRateLimit(REAL_RATE_LIMIT));
  app.use("*", jwt({ secret: REAL_JWT_SECRET, alg: "HS256" }));
  // hono/jwt throws HTTPException(401); answer it with the uniform error body like the others.
  app.onError((err, c) => {
    if (err instanceof HTTPException) {
      const res = err.getResponse();
      const challenge = res.headers.get("www-authenticate");
      if (challenge !== null) c.header("www-authenticate", challenge);
      return errorResponse(c, err.status, err.status === 401 ? "unauthorized" : "bad_request", err.message || "Request failed");
    }
    return errorResponse(c, 500, "internal_error", "Internal server error");
  });
}

function buildApp(stack, real) {
  const big = makeBigPayload();
  const ajv = new Ajv({ allErrors: true });
  addFormats(ajv);
  const validateUser = ajv.compile(CREATE_USER_SCHEMA);
  const app = new Hono();
  if (real) useRealStack(app);

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
const app = buildApp(wantsProductionStack(), wantsRealStack());
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => announceReady(info.port));
// As keel's server (servers/keel.ts): a stall under valgrind must not outlast the keep-alive timeout.
if (wantsRealStack()) server.keepAliveTimeout = 75_000;
