// mountFetch(prefix, handler): a Web fetch handler (`(Request) => Response`: a Hono app's
// `app.fetch`, better-auth's `auth.handler`, Auth.js, an SDK's webhook handler) under a path
// prefix, as routes of this app, so the app's layers (request ids, CORS, security headers, auth,
// rate limits, access log) run around it as around any route. It carries, both ways: the method,
// every header (several set-cookie), the status, bodies as streams (under the route's body
// limit), and the client going away (the Request's signal aborts; a response stream the client
// stops reading is cancelled).
//
// The handler sees the full URL by default (`/api/auth/session`, not `/session`): auth libraries
// match their own basePath and build callback URLs from it. `stripPrefix: true` hands it the path
// below the prefix, as Hono's `app.mount` does.
import { Readable } from "node:stream";
import { type App, context, type Context, type HeaderValue, type Layer, Reply, RouteDefinition, route, type RouteMeta } from "../../index.js";
import { normalizePattern } from "../../plugin.js";
import { RequestBodyStream, requestBody } from "./request-body.js";

export type WebFetchHandler = (request: Request) => Response | Promise<Response>;

export interface MountFetchOptions {
  /** Methods routed to the handler (default GET, POST, PUT, PATCH, DELETE, OPTIONS; HEAD follows GET). */
  methods?: readonly string[];
  /** Hand the handler the path below the prefix (`/session`) instead of the full one (default false). */
  stripPrefix?: boolean;
  /** Layers around the handler only (inside the app's own). */
  layers?: readonly Layer[];
  /** Body limit of the mounted routes, bytes (default: the app's). */
  bodyLimit?: number;
  /** Per-route settings read by layers (`{ csrf: false }` for a handler that checks its own). */
  config?: Readonly<Record<string, unknown>>;
}

const DEFAULT_METHODS: readonly string[] = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** Connection-specific headers: they describe keel's connection, not the request or response. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "http2-settings"]);

function requestHeaders(ctx: Context): Headers {
  const out = new Headers();
  const h = ctx.req.headers;
  for (const name in h) {
    // HTTP/2 pseudo-headers (`:authority`) are not headers of a Request.
    if (name.charCodeAt(0) === 58 || HOP_BY_HOP.has(name)) continue;
    const v = h[name];
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) out.append(name, item);
    else out.set(name, v);
  }
  return out;
}

/** The Response as a keel Reply: status, headers (set-cookie as a list), the body streamed. */
function replyFrom(response: Response): Reply {
  if (!(response instanceof Response)) throw new TypeError("the mounted fetch handler did not return a Response");
  // Response.error() (status 0) is a network error: the handler could not answer.
  if (response.status === 0) throw new TypeError("the mounted fetch handler returned a network error");
  const headers: Record<string, HeaderValue> = Object.create(null);
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie" && !HOP_BY_HOP.has(name)) headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  // Readable.from cancels the ReadableStream when destroyed (the client went away, HEAD).
  const body = response.body === null ? null : Readable.from(response.body, { objectMode: false });
  return new Reply(response.status, body, headers);
}

/**
 * The plugin that runs a Web fetch handler (Hono, better-auth, Auth.js) under a prefix, inside
 * the app's layers.
 *
 * @example
 * app.register(mountFetch("/api/auth", auth.handler));
 * app.register(mountFetch("/legacy", honoApp.fetch, { stripPrefix: true }));
 *
 * @see docs/features/fetch.md
 */
export function mountFetch(prefix: string, handler: WebFetchHandler, options: MountFetchOptions = {}): (app: App) => void {
  if (typeof handler !== "function") throw new TypeError("mountFetch: the handler must be a function (Request) => Response");
  const base = normalizePattern(prefix).pattern.replace(/\/+$/, "");
  if (base.includes("{")) throw new TypeError(`mountFetch: the prefix ${JSON.stringify(prefix)} must be a plain path (no parameters)`);
  const strip = options.stripPrefix === true;

  const serve = async (ctx: Context): Promise<Reply> => {
    const body = await requestBody(ctx);
    const host = ctx.header("host") ?? ctx.header(":authority") ?? "localhost";
    const path = strip ? ctx.path.slice(base.length) || "/" : ctx.path;
    const url = `${ctx.secure ? "https" : "http"}://${host}${path}${ctx.rawQuery === "" ? "" : "?" + ctx.rawQuery}`;
    const stream = body instanceof RequestBodyStream ? body : null;
    if (stream !== null) ctx.afterResponse(() => stream.release());
    const init: RequestInit & { duplex?: "half" } = { method: ctx.method, headers: requestHeaders(ctx), signal: ctx.signal };
    if (body !== null) {
      init.body = stream !== null ? stream.stream : (body as Uint8Array);
      init.duplex = "half";
    }
    let response: Response;
    try {
      response = await handler(new Request(url, init));
    } catch (err) {
      // The handler failed because the body could not be read: that is the answer (413, 400).
      if (stream?.failure != null) throw stream.failure;
      throw err;
    }
    // keel's limit wins over whatever the handler made of the stream's error (often a 500 or 400).
    if (stream?.failure != null) {
      await response.body?.cancel().catch(() => undefined);
      throw stream.failure;
    }
    return replyFrom(response);
  };

  const meta: RouteMeta = { hidden: true, summary: "Mounted fetch handler" };
  if (options.layers !== undefined) meta.layers = options.layers;
  if (options.bodyLimit !== undefined) meta.bodyLimit = options.bodyLimit;
  if (options.config !== undefined) meta.config = options.config;
  const routes: RouteDefinition[] = [];
  for (const method of options.methods ?? DEFAULT_METHODS) {
    const declare = route.method(method.toUpperCase());
    routes.push(declare(`${base}/{*path}`, meta, [context()], serve));
    if (base !== "") routes.push(declare(base, meta, [context()], serve));
  }
  return (app) => {
    app.routes(routes);
  };
}
