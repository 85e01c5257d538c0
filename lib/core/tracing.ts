// diagnostics_channel events (Node's answer for APM agents, which cannot patch a bundled file;
// Fastify's `tracing:fastify.request.handler:*` is the model). The channel names are public API,
// listed in docs/features/tracing.md. Nothing is built unless someone subscribes: the request
// path asks `traced()` once, a few inlined getters that answer false.
import { channel, tracingChannel, type Channel, type TracingChannel } from "node:diagnostics_channel";
import { isPromise } from "../util/is-promise.js";
import type { Context } from "./context.js";
import type { Reply } from "./reply.js";
import { settledReply } from "../server/write.js";

/** The context object of `keel.request` and `keel.handler` events (one per request, shared by its events). */
export interface RequestTrace {
  /** The keel request context (req, res, requestId, locals). */
  readonly context: Context;
  readonly method: string;
  /** The matched route's pattern (`/users/{id}`); null when no route matched (404, 405, OPTIONS, 400). */
  readonly route: string | null;
  /** Decoded path parameters. */
  readonly params: Readonly<Record<string, string>>;
  /** The answer's status (0 until known: set before `error`, `end` of a sync request, `asyncStart`). */
  status: number;
  /**
   * keel.request: the error the answer was made of (an ApiError; a thrown value that was not one
   * is its `cause`). keel.handler: what the handler threw or rejected with.
   */
  error?: unknown;
  /** keel.handler: what the handler returned; at `end` of an async handler its promise, from `asyncStart` on the value. */
  result?: unknown;
}

export const requestChannel: TracingChannel<unknown, RequestTrace> = tracingChannel("keel.request");
export const handlerChannel: TracingChannel<unknown, RequestTrace> = tracingChannel("keel.handler");
/** A route was registered: `{ app, route, method, pattern }`. */
export const routeChannel: Channel = /* @__PURE__ */ channel("keel.route.register");
/** A WebSocket upgrade request was answered: `{ context, route, params, status, websocket }` (101 and the connection: accepted; otherwise the refusal, written next). */
export const upgradeChannel: Channel = /* @__PURE__ */ channel("keel.upgrade");

/**
 * Whether any of the five channels has a subscriber (what TracingChannel#hasSubscribers says on
 * Node 20.13+/22, spelled out so it is the same on every supported Node).
 */
export function traced(tc: TracingChannel<unknown, RequestTrace>): boolean {
  return tc.start.hasSubscribers || tc.end.hasSubscribers || tc.asyncStart.hasSubscribers || tc.asyncEnd.hasSubscribers || tc.error.hasSubscribers;
}

function traceOf(ctx: Context): RequestTrace {
  return { context: ctx, method: ctx.method, route: ctx.route?.pattern ?? null, params: ctx.params, status: 0 };
}

/** asyncStart then asyncEnd, around `fn` (TracingChannel#tracePromise's end of a settled promise). */
function settled(tc: TracingChannel<unknown, RequestTrace>, t: RequestTrace, fn?: () => void): void {
  tc.asyncStart.publish(t);
  fn?.();
  tc.asyncEnd.publish(t);
}

/**
 * `chain(ctx)`, its reply settled and written (`write`), inside keel.request's events
 * (TracingChannel#traceSync for the synchronous part: start through runStores, end): start,
 * [error], end when the chain answers synchronously; start, end, then [error], asyncStart,
 * asyncEnd around the write when it answers later. The chain never throws (every step is
 * guarded): `error` means the answer is an error reply.
 */
export function traceRequest(ctx: Context, chain: (ctx: Context) => Reply | Promise<Reply>, write: (ctx: Context, r: Reply) => void): void {
  const tc = requestChannel;
  const t = traceOf(ctx);
  const answer = (r: Reply): Reply => {
    const reply = settledReply(ctx, r);
    t.status = reply.status;
    if (reply.error !== null) {
      t.error = reply.error;
      tc.error.publish(t);
    }
    return reply;
  };
  tc.traceSync(() => {
    const r = chain(ctx);
    if (!isPromise(r)) return write(ctx, answer(r));
    r.then((v) => {
      const reply = answer(v);
      settled(tc, t, () => write(ctx, reply));
    });
  }, t);
}

/**
 * The settled reply of `chain(ctx)` inside keel.request's events, for a transport that hands the
 * reply on instead of writing it to a socket (`app.inject`, keel/web's `fetchHandler`).
 */
export function tracedReply(ctx: Context, chain: (ctx: Context) => Reply | Promise<Reply>): Promise<Reply> {
  return new Promise<Reply>((resolve) => traceRequest(ctx, chain, (_, reply) => resolve(reply)));
}

/**
 * `handler(...args)` inside keel.handler's events: traceSync (start, [error], end; `result` is
 * what it returned), then for a promise [error], asyncStart, asyncEnd when it settles
 * (tracePromise cannot take a result that may or may not be a promise).
 */
export function traceHandler(ctx: Context, handler: (...args: any[]) => unknown, args: readonly unknown[]): unknown {
  const tc = handlerChannel;
  const t = traceOf(ctx);
  const out = tc.traceSync(handler, t, undefined, ...args);
  if (!isPromise(out)) return out;
  return out.then(
    (v) => {
      t.result = v;
      settled(tc, t);
      return v;
    },
    (err: unknown) => {
      t.error = err;
      tc.error.publish(t);
      settled(tc, t);
      throw err;
    },
  );
}
