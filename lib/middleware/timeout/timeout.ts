// Request timeout. When the duration passes before the rest of the chain answers, the request's
// AbortSignal (`ctx.signal`, which handlers pass to their own I/O) fires with a TimeoutError and
// the client gets 503 `timeout` in the uniform body (504 with `status: 504`, for a service that
// is itself a gateway to slower upstreams). Not 408: that code says the *client* was too slow.
// JavaScript cannot stop a running handler: its late result is discarded (a streamed body is
// destroyed) and a late error is swallowed, so nothing is written twice.
// Per route: `config: { timeoutMs: 200 }` overrides the layer's duration (or add a second
// timeout() to the route's own layers).
import { Readable } from "node:stream";
import { ApiError, type Context, describeLayer, type Layer, type Next, type Reply } from "../../index.js";

export interface TimeoutOptions {
  /** Duration in ms. */
  ms: number;
  /** Status of the timeout answer (default 503). */
  status?: 503 | 504;
}

/** Destroy what a late reply holds (a stream nobody will read). */
export function discardReply(reply: Reply): void {
  const b = reply.body;
  if (b instanceof Readable) b.destroy();
  else if (b !== null && typeof b === "object" && !(b instanceof Uint8Array)) {
    const it = b as { return?: () => unknown };
    if (typeof it.return === "function") {
      try {
        const r = it.return() as { catch?: (f: () => void) => void } | undefined;
        r?.catch?.(() => {});
      } catch {
        // an iterator that refuses to close: nothing more to do
      }
    }
  }
}

function routeTimeout(ctx: Context, fallback: number): number {
  const c = ctx.route?.meta.config;
  if (c === undefined) return fallback;
  const v = c["timeoutMs"];
  return typeof v === "number" && v > 0 ? v : fallback;
}

/**
 * `timeout(5000)` or `timeout({ ms: 5000, status: 504 })`.
 *
 * @example
 * ```ts
 * app.layer(timeout(5_000));
 * route.get("/report", { config: { timeoutMs: 30_000 } }, [], buildReport);
 * ```
 * @see docs/features/middleware.md
 */
export function timeout(options: number | TimeoutOptions): Layer {
  const o: TimeoutOptions = typeof options === "number" ? { ms: options } : options;
  const ms = o.ms;
  if (!(ms > 0) || !Number.isFinite(ms) || ms > 2_147_483_647) throw new TypeError("timeout: ms must be a positive number of milliseconds (at most 2^31-1)");
  const status = o.status ?? 503;
  if (status !== 503 && status !== 504) throw new TypeError("timeout: status must be 503 or 504");

  return describeLayer(function timeoutLayer(ctx: Context, next: Next): Promise<Reply> {
    const limit = routeTimeout(ctx, ms);
    return new Promise<Reply>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        const message = `The request took longer than ${limit} ms`;
        ctx.abortRequest(new DOMException(message, "TimeoutError"));
        reject(new ApiError(status, "timeout", message));
      }, limit);
      next(ctx).then(
        (reply) => {
          if (settled) return discardReply(reply);
          settled = true;
          clearTimeout(timer);
          resolve(reply);
        },
        (err: unknown) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  }, { responses: { [status]: { description: `The request took longer than its time limit (${ms} ms unless the route sets config.timeoutMs)` } } });
}
