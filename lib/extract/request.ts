// Extractors for application state and facts about the request itself.
import type { Context } from "../core/context.js";
import { ApiError } from "../core/errors.js";
import { Extractor } from "../core/extractor.js";

/** A value from the app's shared state (`new App({ state: { db } })`). Missing is a 500 (a wiring bug). */
export function state<T = unknown>(key: string): Extractor<T> {
  return new Extractor<T>("state:" + key, (ctx) => {
    const v = ctx.runtime.state[key];
    if (v === undefined) throw ApiError.internal("Internal server error", { detail: `app state "${key}" is not set` });
    return v as T;
  }, false);
}

export interface RequestInfo {
  method: string;
  /** Raw request target (path and query). */
  url: string;
  path: string;
  /** The matched route pattern (`/users/{id}`), or "" when none matched. */
  route: string;
  remoteAddress: string;
  requestId: string;
  /** Aborts when the client disconnects or a timeout layer gives up. */
  signal: AbortSignal;
}

/** Facts about the request: method, url, remote address, request id, route pattern, abort signal. */
export function requestContext(): Extractor<RequestInfo> {
  return new Extractor<RequestInfo>("requestContext", (ctx: Context) => ({
    method: ctx.method,
    url: ctx.req.url ?? ctx.path,
    path: ctx.path,
    route: ctx.route?.pattern ?? "",
    remoteAddress: ctx.remoteAddress,
    requestId: ctx.requestId,
    get signal() {
      return ctx.signal;
    },
  }), false);
}

/** The raw Context, for custom needs. */
export function context(): Extractor<Context> {
  return new Extractor<Context>("context", (ctx) => ctx, false);
}
