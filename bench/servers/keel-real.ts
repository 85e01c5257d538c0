// keel's half of the `real` scenario (issue 34): the routes behind the stack services run, each
// part keel's own and at its defaults, composed as lib/sample/app.ts composes them:
//   production()  request id (x-request-id in and out) and one JSON access line per request on
//                 stdout (buffered logger; the harness points stdout at /dev/null); spans off,
//                 as neither peer traces
//   cors()        for ALLOWED_ORIGIN
//   securityHeaders()  the defaults
//   rateLimit()   memory store, a bucket the load never empties (REAL_RATE_LIMIT)
//   jwt()         HS256, `Authorization: Bearer`; 401 without a valid token
// Outermost first, so a 401 or a 429 still gets its id, CORS and security headers and a log line.
import type { Writable } from "node:stream";
import type { App } from "../../lib/index.js";
import { jwt } from "../../lib/auth/index.js";
import { cors, rateLimit, securityHeaders } from "../../lib/middleware/index.js";
import { production } from "../../lib/service/index.js";
import { ALLOWED_ORIGIN, REAL_JWT_SECRET, REAL_RATE_LIMIT } from "./common.js";

/** Which parts `withRealStack` adds (all by default); bench/README.md's per-layer table removes one at a time. */
export interface RealStackParts {
  log?: boolean;
  cors?: boolean;
  securityHeaders?: boolean;
  rateLimit?: boolean;
  jwt?: boolean;
}

/** `destination`: where the access lines go (default stdout, as in the bench). */
export function withRealStack(app: App, parts: RealStackParts = {}, destination?: Writable): App {
  const on = (k: keyof RealStackParts) => parts[k] !== false;
  if (on("log")) production({ service: "bench", probes: false, spans: false, ...(destination === undefined ? {} : { destination }) }).register(app);
  if (on("cors")) app.layer(cors({ origin: ALLOWED_ORIGIN }));
  if (on("securityHeaders")) app.layer(securityHeaders());
  if (on("rateLimit")) {
    app.layer(rateLimit({ capacity: REAL_RATE_LIMIT.max, refillPerSecond: REAL_RATE_LIMIT.max / (REAL_RATE_LIMIT.windowMs / 1000) }));
  }
  if (on("jwt")) app.layer(jwt({ algorithms: ["HS256"], key: REAL_JWT_SECRET }));
  return app;
}

/** `--real-without log,jwt`: the parts left out (for the per-layer instruction table). */
export function realStackPartsFrom(argv: readonly string[]): RealStackParts {
  const i = argv.indexOf("--real-without");
  const parts: RealStackParts = {};
  if (i === -1) return parts;
  for (const name of (argv[i + 1] ?? "").split(",")) {
    if (name === "log" || name === "cors" || name === "securityHeaders" || name === "rateLimit" || name === "jwt") parts[name] = false;
    else if (name !== "") throw new Error(`--real-without: unknown part ${name} (log, cors, securityHeaders, rateLimit, jwt)`);
  }
  return parts;
}
