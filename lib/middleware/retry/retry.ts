// Server-side retry of the inner chain, for transient failures of idempotent requests only.
// Methods: GET, HEAD, OPTIONS, PUT, DELETE (RFC 9110 idempotent methods), or any method on a
// route declared `config: { idempotent: true }`. POST and PATCH are never re-run otherwise:
// running a non-idempotent handler twice is worse than a 503.
// An attempt is retried when its answer has a status in `retryOn` (default 502, 503, 504), its
// body is not a stream (a stream cannot be produced twice, and an answer being streamed is not
// a failure we can undo), and it carries no Retry-After (the server named a time: an open
// circuit breaker, a rate limit). Delays are exponential with full jitter:
// random(0, min(maxDelayMs, baseDelayMs * 2^(attempt-1))). It stops at `maxAttempts` runs
// (the first one included), when the next delay would cross `budgetMs` since the first run, or
// when the request is aborted (client gone, timeout). The last answer is returned as it is.
// The request body can be read again on a retry: `ctx.body()` caches it.
import type { Context, Layer, Next, Reply } from "../../index.js";
import { isStreamBody } from "../../plugin.js";
import { fullJitterDelay, type BackoffPolicy } from "../../shared/backoff.js";

export interface RetryOptions {
  /** Runs in total, the first included (default 3). */
  maxAttempts?: number;
  /** First backoff cap, ms (default 50). */
  baseDelayMs?: number;
  /** Largest backoff cap, ms (default 1000). */
  maxDelayMs?: number;
  /** No retry starts later than this after the first run began, ms (default 3000). */
  budgetMs?: number;
  /** Statuses worth retrying (default 502, 503, 504), or your own test. */
  retryOn?: readonly number[] | ((reply: Reply) => boolean);
  /** Methods retried without route opt-in (default GET, HEAD, OPTIONS, PUT, DELETE). */
  methods?: readonly string[];
  /** Random source in [0, 1) (default Math.random), clock and sleep: injectable for tests. */
  random?: () => number;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Called before each retry. */
  onRetry?: (info: { attempt: number; delayMs: number; status: number; ctx: Context }) => void;
}

const IDEMPOTENT = ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"];

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** The full-jitter delay before retry number `attempt` (1 for the first retry): uniform in [0, min(max, base * 2^(attempt-1))). */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number, random: () => number): number {
  return fullJitterDelay(attempt, { baseMs: baseDelayMs, factor: 2, maxMs: maxDelayMs }, random);
}

/**
 * Re-runs the inner chain of an idempotent request after a 502/503/504, with full-jitter
 * backoff, at most `maxAttempts` runs within `budgetMs`.
 *
 * @example
 * ```ts
 * app.layer(retry({ maxAttempts: 3, budgetMs: 2_000 }));
 * route.post("/sync", { config: { idempotent: true } }, [], sync); // POST retried only on opt-in
 * ```
 * @see docs/features/middleware.md
 */
export function retry(options: RetryOptions = {}): Layer {
  const maxAttempts = options.maxAttempts ?? 3;
  const base = options.baseDelayMs ?? 50;
  const maxDelay = options.maxDelayMs ?? 1000;
  const budget = options.budgetMs ?? 3000;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 10) throw new TypeError("retry: maxAttempts must be an integer from 1 to 10");
  if (!(base >= 0) || !(maxDelay >= 0) || !(budget >= 0)) throw new TypeError("retry: delays and budget must be non-negative");
  const retryOn = options.retryOn ?? [502, 503, 504];
  const statusSet = typeof retryOn === "function" ? null : new Set(retryOn);
  const test = typeof retryOn === "function" ? retryOn : (r: Reply) => statusSet!.has(r.status);
  const methods = new Set((options.methods ?? IDEMPOTENT).map((m) => m.toUpperCase()));
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const onRetry = options.onRetry;
  const policy: BackoffPolicy = { baseMs: base, factor: 2, maxMs: maxDelay };

  const retryable = (reply: Reply): boolean =>
    !isStreamBody(reply.body) && reply.headers["retry-after"] === undefined && test(reply);

  const eligible = (ctx: Context): boolean => {
    if (methods.has(ctx.method)) return true;
    const c = ctx.route?.meta.config;
    return c !== undefined && c["idempotent"] === true;
  };

  const again = async (ctx: Context, next: Next, first: Reply, start: number): Promise<Reply> => {
    let reply = first;
    for (let attempt = 1; attempt < maxAttempts; attempt++) {
      const delay = fullJitterDelay(attempt, policy, random);
      if (now() - start + delay > budget) return reply;
      const signal = ctx.signal;
      if (signal.aborted) return reply;
      onRetry?.({ attempt, delayMs: delay, status: reply.status, ctx });
      await sleep(delay, signal);
      if (signal.aborted) return reply;
      reply = await next(ctx);
      if (!retryable(reply)) return reply;
    }
    return reply;
  };

  return async function retryLayer(ctx: Context, next: Next): Promise<Reply> {
    if (maxAttempts === 1 || !eligible(ctx)) return next(ctx);
    const start = now();
    const reply = await next(ctx);
    if (!retryable(reply)) return reply;
    return again(ctx, next, reply, start);
  };
}
