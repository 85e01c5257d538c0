// fetchHandler(app): the app as a Web fetch handler, `(request) => Promise<Response>`, for tests
// with `new Request(...)`, edge and serverless adapters (`export default { fetch: fetchHandler(app) }`)
// and other runtimes. The request enters through the same front door as node:http and inject
// (app.contextFor, then app.chainFor: routing, layers, extractors, errors, response contracts); the
// body streams in from request.body under the route's body limit and out as a ReadableStream.
//
// Why a function of a feature and not an `app.fetch` method: every App method ships in every app
// (a class is not tree-shaken), and the kernel's size budget (spec/build/budgets.test.ts) has no
// room for code that only some apps run. `Object.assign(app, { fetch: fetchHandler(app) })` gives
// the method where a runtime wants one.
import type { App, Context } from "../../index.js";
import { LOG_LEVELS, requestChannel, traced, tracedReply } from "../../plugin.js";
import { standInRequest } from "./stand-in-request.js";
import { toResponse } from "./to-response.js";

export interface FetchInfo {
  /** The client's address, for `ctx.remoteAddress` (a Request does not carry one; default ""). */
  remoteAddress?: string;
}

/** A Web fetch handler; `info` is what a runtime knows beyond the Request (Deno's `info`, Bun's `server.requestIP`). */
export type FetchHandler = (request: Request, info?: FetchInfo) => Promise<Response>;

/**
 * The context's after-response callbacks (multipart temp files...): a request without a socket
 * keeps them on the context; they run once the Response's body is over, failures logged.
 */
function runAfterResponse(ctx: Context): void {
  const done = ctx.injectedDone;
  if (done === null) return;
  ctx.injectedDone = null;
  const failed = (err: unknown): void => {
    const logger = ctx.runtime.logger;
    if (LOG_LEVELS.warn >= logger.level) logger.log(LOG_LEVELS.warn, "cleanup after the response failed", { message: err instanceof Error ? err.message : String(err) });
  };
  for (const fn of done) {
    try {
      const p = fn();
      if (p !== undefined) p.catch(failed);
    } catch (err) {
      failed(err);
    }
  }
}

/**
 * `app` as `(request, info?) => Promise<Response>`.
 *
 * @example
 * const fetch = fetchHandler(app);
 * const res = await fetch(new Request("http://localhost/hello"));
 *
 * @see docs/features/fetch.md
 */
export function fetchHandler(app: App): FetchHandler {
  return async (request, info) => {
    const req = standInRequest(request, info?.remoteAddress ?? "");
    const ctx = app.contextFor(req, null);
    // The caller giving up (request.signal) is the client going away: ctx.signal aborts.
    const signal = request.signal;
    const onAbort = (): void => ctx.abortRequest(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    const done = (): void => {
      signal.removeEventListener("abort", onAbort);
      // Whatever of request.body is left unread is cancelled, not left pending.
      req.destroy();
      runAfterResponse(ctx);
    };
    try {
      // Inside keel.request's events when someone subscribes, as over node:http and inject.
      const chain = app.compile().chainFor(ctx);
      return toResponse(ctx, await (traced(requestChannel) ? tracedReply(ctx, chain) : chain(ctx)), done);
    } catch (err) {
      done();
      throw err;
    }
  };
}
