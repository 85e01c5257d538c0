// Composing a route's chain once, at startup: global layers -> route layers -> extractors ->
// handler. Each step turns a thrown error into the uniform error Reply, so every layer outside
// it sees a Reply (and can add its headers to error responses too).
import type { AnyExtractor } from "./extractor.js";
import { isPromise } from "../util/is-promise.js";
import type { Context } from "./context.js";
import { errorReply } from "./error-reply.js";
import { Reply, toReply } from "./reply.js";
import type { ResponseContract } from "./response-contract.js";
import type { Layer, Next } from "./route.js";
import { handlerChannel, traceHandler, traced } from "./tracing.js";

/** Internal chain step: may answer synchronously to skip a promise on the fast path. */
export type Chain = (ctx: Context) => Reply | Promise<Reply>;

const guarded = new WeakSet<Chain>();

/** Errors thrown (or rejected) by `step` become error Replies. Guarding twice is a no-op. */
export function guard(step: Chain): Chain {
  if (guarded.has(step)) return step;
  const safe: Chain = (ctx) => {
    try {
      const r = step(ctx);
      return isPromise(r) ? r.then(undefined, (err: unknown) => errorReply(ctx, err)) : r;
    } catch (err) {
      return errorReply(ctx, err);
    }
  };
  guarded.add(safe);
  return safe;
}

/**
 * A layer that may answer synchronously: it gets the inner chain itself, whose result is a
 * `Reply` or a promise of one and which never throws or rejects (every step is guarded). Layers
 * that run on every request (metrics, the access log) use it so a synchronous route stays free
 * of promises and microtask hops.
 */
export type DirectLayer = (ctx: Context, next: Chain) => Reply | Promise<Reply>;

const directLayers = new WeakMap<Layer, DirectLayer>();

/**
 * A `Layer` made from a direct layer: `composeLayers` calls `fn` with the raw inner chain; anyone
 * else calling the returned layer gets the usual promise.
 */
export function directLayer(fn: DirectLayer): Layer {
  const layer: Layer = (ctx, next) => {
    const r = fn(ctx, next);
    return isPromise(r) ? r : Promise.resolve(r);
  };
  Object.defineProperty(layer, "name", { value: fn.name });
  directLayers.set(layer, fn);
  return layer;
}

/**
 * `direct` around `inner`, guarded, as one step: the guard's try/catch calls the layer itself
 * rather than a closure that calls it (one call less per layer per request, and the call site
 * sees only the app's few direct layers, so V8 can inline them).
 */
function guardedDirect(direct: DirectLayer, inner: Chain): Chain {
  const safe: Chain = (ctx) => {
    try {
      const r = direct(ctx, inner);
      return isPromise(r) ? r.then(undefined, (err: unknown) => errorReply(ctx, err)) : r;
    } catch (err) {
      return errorReply(ctx, err);
    }
  };
  guarded.add(safe);
  return safe;
}

function asNext(step: Chain): Next {
  return (ctx) => {
    const r = step(ctx);
    return isPromise(r) ? r : Promise.resolve(r);
  };
}

/** Wrap `inner` in `layers` (first is outermost). */
export function composeLayers(layers: readonly Layer[], inner: Chain): Chain {
  let next = guard(inner);
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i]!;
    const direct = directLayers.get(layer);
    if (direct !== undefined) {
      next = guardedDirect(direct, next);
      continue;
    }
    const n = asNext(next);
    next = guard((ctx) => layer(ctx, n));
  }
  return next;
}

type AnyHandler = (...args: any[]) => unknown;

type Finish = (out: unknown) => Reply | Promise<Reply>;

function finishPlain(out: unknown): Reply | Promise<Reply> {
  return isPromise(out) ? out.then(toReply) : toReply(out);
}

/** The handler's result as a Reply whose JSON body its declared response schema wrote. */
function contractFinish(contract: ResponseContract): Finish {
  const settle = (out: unknown): Reply => {
    if (out instanceof Reply) {
      if (out.pendingJson) contract.writeReply(out);
      return out;
    }
    return out === undefined ? new Reply(204, null) : contract.valueReply(out);
  };
  return (out) => (isPromise(out) ? out.then(settle) : settle(out));
}

const NO_ARGS: readonly unknown[] = [];

/**
 * Run the extractors in order (awaiting only those that are async), then the handler; with a
 * response contract, its serializers write the handler's JSON replies. With `trace`, the handler
 * runs inside keel.handler's events whenever someone subscribes (checked per request, before
 * anything is built for it).
 */
export function handlerStep(extractors: readonly AnyExtractor[], handler: AnyHandler, contract: ResponseContract | null = null, trace = true): Chain {
  const finish: Finish = contract === null ? finishPlain : contractFinish(contract);
  const n = extractors.length;
  if (n === 0) return (ctx) => finish(trace && traced(handlerChannel) ? traceHandler(ctx, handler, NO_ARGS) : handler());
  if (n === 1) {
    const e0 = extractors[0]!.extract;
    // Made once: the continuation after an async extractor needs no per-request closure.
    const run = (x: unknown): Reply | Promise<Reply> => finish(handler(x));
    return (ctx) => {
      const v = e0(ctx);
      if (trace && traced(handlerChannel)) {
        const call = (x: unknown): Reply | Promise<Reply> => finish(traceHandler(ctx, handler, [x]));
        return isPromise(v) ? v.then(call) : call(v);
      }
      return isPromise(v) ? v.then(run) : run(v);
    };
  }
  const extract = extractors.map((e) => e.extract);
  const call = (ctx: Context, args: unknown[]): Reply | Promise<Reply> => finish(trace && traced(handlerChannel) ? traceHandler(ctx, handler, args) : handler(...args));
  const resume = async (ctx: Context, args: unknown[], from: number, pending: Promise<unknown>): Promise<Reply> => {
    args[from] = await pending;
    for (let i = from + 1; i < n; i++) args[i] = await extract[i]!(ctx);
    return call(ctx, args);
  };
  return (ctx) => {
    const args = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      const v = extract[i]!(ctx);
      if (isPromise(v)) return resume(ctx, args, i, v);
      args[i] = v;
    }
    return call(ctx, args);
  };
}
