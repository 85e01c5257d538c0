// Circuit breakers: closed -> open after `failureThreshold` consecutive failures; open answers
// 503 `service_unavailable` with Retry-After for `resetTimeoutMs`; then half-open, where at most
// `halfOpenMaxProbes` requests at a time go through as probes: `successThreshold` successes
// close it, one failure opens it again. Only 5xx answers (timeouts included: 503/504 from a
// timeout() inside the breaker) and thrown errors count as failures; a 4xx is the caller's fault
// and counts as success. State is kept per key in a Store, with an injectable clock.
//
// Two shapes:
// - `circuitBreaker(options)`, a layer: one breaker per route (method + pattern), or one shared
//   breaker for all routes it covers with `name`. Unrouted requests (404/405) pass untouched.
//   Put a timeout() inside it (in the route's layers after it) so hung handlers count.
// - `dependencyBreaker(name, options)`, for a handler's outgoing calls:
//   `await db.run((signal) => query(sql, { signal }))` throws 503 while the dependency is open,
//   and 504 `timeout` (aborting `signal`) when a call outlives `callTimeoutMs`.
// Both expose `state(key?)` and `snapshot(key?)`, and call `onStateChange` on transitions.
import { ApiError, type Context, describeLayer, type Layer, type LayerDoc, type Next, type Reply } from "../../index.js";
import { isPromise } from "../../plugin.js";
import { MemoryStore, type MaybePromise, type Store } from "../../stores/index.js";

export type BreakerState = "closed" | "open" | "half-open";

export interface BreakerRecord {
  state: BreakerState;
  /** State before the last update (for transition events). */
  prev: BreakerState;
  /** Consecutive failures while closed. */
  failures: number;
  /** Successful probes while half-open. */
  successes: number;
  /** Probes in flight while half-open. */
  probes: number;
  openedAt: number;
  /** The last admission decision. */
  verdict: "pass" | "probe" | "reject";
}

export interface BreakerOptions {
  /** Consecutive failures that open the circuit (default 5). */
  failureThreshold?: number;
  /** How long it stays open before probing, ms (default 30 s). */
  resetTimeoutMs?: number;
  /** Concurrent probes while half-open (default 1). */
  halfOpenMaxProbes?: number;
  /** Successful probes that close it (default 2). */
  successThreshold?: number;
  store?: Store<BreakerRecord>;
  /** Clock in ms (default Date.now). */
  now?: () => number;
  onStateChange?: (key: string, from: BreakerState, to: BreakerState) => void;
}

export interface BreakerSnapshot {
  state: BreakerState;
  failures: number;
  successes: number;
  probes: number;
  openedAt: number;
}

const CLOSED_SNAPSHOT: BreakerSnapshot = Object.freeze({ state: "closed", failures: 0, successes: 0, probes: 0, openedAt: 0 });

/** The shared state machine behind the layer and the dependency wrapper. */
export class BreakerCore {
  private readonly store: Store<BreakerRecord>;
  private readonly now: () => number;
  private readonly resetMs: number;
  private readonly onStateChange: BreakerOptions["onStateChange"];
  private readonly admitFn: (r: BreakerRecord | undefined) => BreakerRecord;
  private readonly passOk: (r: BreakerRecord | undefined) => BreakerRecord | undefined;
  private readonly passFail: (r: BreakerRecord | undefined) => BreakerRecord | undefined;
  private readonly probeOk: (r: BreakerRecord | undefined) => BreakerRecord | undefined;
  private readonly probeFail: (r: BreakerRecord | undefined) => BreakerRecord | undefined;

  constructor(options: BreakerOptions = {}) {
    const threshold = options.failureThreshold ?? 5;
    const resetMs = options.resetTimeoutMs ?? 30_000;
    const maxProbes = options.halfOpenMaxProbes ?? 1;
    const successThreshold = options.successThreshold ?? 2;
    for (const [name, v] of [["failureThreshold", threshold], ["halfOpenMaxProbes", maxProbes], ["successThreshold", successThreshold]] as const) {
      if (!Number.isInteger(v) || v < 1) throw new TypeError(`circuit breaker: ${name} must be a positive integer`);
    }
    if (!(resetMs > 0)) throw new TypeError("circuit breaker: resetTimeoutMs must be positive");
    const now = options.now ?? Date.now;
    this.now = now;
    this.resetMs = resetMs;
    this.store = options.store ?? new MemoryStore<BreakerRecord>({ maxEntries: 10_000, now });
    this.onStateChange = options.onStateChange;
    const open = (r: BreakerRecord): void => {
      r.state = "open";
      r.openedAt = now();
      r.failures = 0;
      r.successes = 0;
    };
    // The updaters are made once: no per-request closures.
    this.admitFn = (current) => {
      const r = current ?? { state: "closed", prev: "closed", failures: 0, successes: 0, probes: 0, openedAt: 0, verdict: "pass" };
      r.prev = r.state;
      if (r.state === "open") {
        if (now() - r.openedAt < resetMs) {
          r.verdict = "reject";
          return r;
        }
        r.state = "half-open";
        r.probes = 0;
        r.successes = 0;
      }
      if (r.state === "half-open") {
        if (r.probes >= maxProbes) {
          r.verdict = "reject";
          return r;
        }
        r.probes++;
        r.verdict = "probe";
        return r;
      }
      r.verdict = "pass";
      return r;
    };
    this.passOk = (r) => {
      if (r === undefined) return r;
      r.prev = r.state;
      if (r.state === "closed") r.failures = 0;
      return r;
    };
    this.passFail = (r) => {
      if (r === undefined) return r;
      r.prev = r.state;
      if (r.state === "closed" && ++r.failures >= threshold) open(r);
      return r;
    };
    this.probeOk = (r) => {
      if (r === undefined) return r;
      r.prev = r.state;
      if (r.probes > 0) r.probes--;
      if (r.state === "half-open" && ++r.successes >= successThreshold) {
        r.state = "closed";
        r.failures = 0;
        r.successes = 0;
      }
      return r;
    };
    this.probeFail = (r) => {
      if (r === undefined) return r;
      r.prev = r.state;
      if (r.probes > 0) r.probes--;
      if (r.state === "half-open") open(r);
      return r;
    };
  }

  private notify(key: string, r: BreakerRecord | undefined): void {
    if (r !== undefined && r.prev !== r.state && this.onStateChange !== undefined) this.onStateChange(key, r.prev, r.state);
  }

  private settle<T>(key: string, v: MaybePromise<BreakerRecord | undefined>, then: (r: BreakerRecord | undefined) => T): MaybePromise<T> {
    if (isPromise(v)) return v.then((r) => (this.notify(key, r), then(r)));
    this.notify(key, v);
    return then(v);
  }

  /** Decide whether a call may go ahead: "pass", "probe" (half-open) or "reject". */
  admit(key: string): MaybePromise<BreakerRecord> {
    return this.settle(key, this.store.update(key, this.admitFn), (r) => r!);
  }

  /** Record how an admitted call ended. */
  record(key: string, verdict: "pass" | "probe", failed: boolean): MaybePromise<void> {
    const fn = verdict === "probe" ? (failed ? this.probeFail : this.probeOk) : failed ? this.passFail : this.passOk;
    return this.settle(key, this.store.update(key, fn), () => undefined);
  }

  /** Seconds a rejected caller should wait. */
  retryAfter(r: BreakerRecord): number {
    if (r.state !== "open") return 1;
    return Math.max(1, Math.ceil((r.openedAt + this.resetMs - this.now()) / 1000));
  }

  /** Current state as a caller would meet it (an open circuit past its reset time reads half-open). */
  snapshot(key: string): MaybePromise<BreakerSnapshot> {
    const toSnapshot = (r: BreakerRecord | undefined): BreakerSnapshot => {
      if (r === undefined) return CLOSED_SNAPSHOT;
      const state = r.state === "open" && this.now() - r.openedAt >= this.resetMs ? "half-open" : r.state;
      return { state, failures: r.failures, successes: r.successes, probes: r.probes, openedAt: r.openedAt };
    };
    const v = this.store.get(key);
    return isPromise(v) ? v.then(toSnapshot) : toSnapshot(v);
  }

  state(key: string): MaybePromise<BreakerState> {
    const s = this.snapshot(key);
    return isPromise(s) ? s.then((x) => x.state) : s.state;
  }

  reset(key: string): MaybePromise<boolean> {
    return this.store.delete(key);
  }
}

function openError(what: string, seconds: number): ApiError {
  return ApiError.serviceUnavailable(`${what} is temporarily unavailable (circuit open); retry in ${seconds} s`, {
    headers: { "retry-after": String(seconds) },
  });
}

export interface CircuitBreakerOptions extends BreakerOptions {
  /** One breaker, under this name, for every route the layer covers (default: one per route). */
  name?: string;
  /** What counts as a failure (default: status >= 500). */
  isFailure?: (reply: Reply) => boolean;
}

export type CircuitBreakerLayer = Layer & {
  /** The breaker key of a route: "GET /users/{id}", or the layer's `name`. */
  keyOf(method: string, pattern: string): string;
  state(key: string): MaybePromise<BreakerState>;
  snapshot(key: string): MaybePromise<BreakerSnapshot>;
  reset(key: string): MaybePromise<boolean>;
};

const serverError = (reply: Reply): boolean => reply.status >= 500;

/** What an open circuit answers, in the OpenAPI document. */
const CIRCUIT_BREAKER_DOC: LayerDoc = {
  responses: {
    503: {
      description: "The route failed too often recently (circuit open); retry after Retry-After seconds",
      headers: { "retry-after": { description: "Seconds until the circuit lets a trial request through", schema: { type: "integer", minimum: 0 } } },
    },
  },
};

/**
 * A circuit breaker per route (or one named): after `failureThreshold` consecutive 5xx it answers
 * 503 with `Retry-After` until `resetTimeoutMs` has passed and probes succeed.
 *
 * @example
 * ```ts
 * app.layer(circuitBreaker({ failureThreshold: 5, resetTimeoutMs: 30_000 }));
 * ```
 * @see docs/features/middleware.md
 */
export function circuitBreaker(options: CircuitBreakerOptions = {}): CircuitBreakerLayer {
  const core = new BreakerCore(options);
  const name = options.name;
  const isFailure = options.isFailure ?? serverError;
  const keyOf = (method: string, pattern: string): string => name ?? method + " " + pattern;

  const run = async (ctx: Context, next: Next, key: string, admitted: BreakerRecord): Promise<Reply> => {
    if (admitted.verdict === "reject") throw openError(name ?? key, core.retryAfter(admitted));
    const verdict = admitted.verdict;
    let failed = true;
    try {
      const reply = await next(ctx);
      failed = isFailure(reply);
      return reply;
    } finally {
      await core.record(key, verdict, failed);
    }
  };

  const layer = function circuitBreakerLayer(ctx: Context, next: Next): Promise<Reply> {
    const route = ctx.route;
    if (route === null) return next(ctx);
    const key = keyOf(ctx.method === "HEAD" && route.method === "GET" ? "GET" : ctx.method, route.pattern);
    const admitted = core.admit(key);
    return isPromise(admitted) ? admitted.then((a) => run(ctx, next, key, a)) : run(ctx, next, key, admitted);
  };

  return Object.assign(describeLayer(layer, CIRCUIT_BREAKER_DOC), {
    keyOf,
    state: (key: string) => core.state(key),
    snapshot: (key: string) => core.snapshot(key),
    reset: (key: string) => core.reset(key),
  });
}

export interface DependencyBreakerOptions extends BreakerOptions {
  /** Abort and fail a call after this many ms (default: no limit). */
  callTimeoutMs?: number;
  /** Which thrown errors count as failures (default: all). */
  isFailure?: (err: unknown) => boolean;
}

export interface DependencyBreaker {
  readonly name: string;
  /** Run an outgoing call through the breaker; 503 ApiError while open. */
  run<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T>;
  state(): MaybePromise<BreakerState>;
  snapshot(): MaybePromise<BreakerSnapshot>;
  reset(): MaybePromise<boolean>;
}

/** Our own call timeouts: always failures, whatever `isFailure` says. */
const timeoutErrors = new WeakSet<object>();

function timeoutError(message: string): ApiError {
  const err = new ApiError(504, "timeout", message);
  timeoutErrors.add(err);
  return err;
}

/**
 * A breaker for one named dependency (a database, an upstream API), used inside handlers.
 *
 * @example
 * ```ts
 * const payments = dependencyBreaker("payments", { callTimeoutMs: 2_000 });
 * const answer = await payments.run((signal) => fetch(url, { signal }));
 * ```
 * @see docs/features/middleware.md
 */
export function dependencyBreaker(name: string, options: DependencyBreakerOptions = {}): DependencyBreaker {
  if (typeof name !== "string" || name === "") throw new TypeError("dependencyBreaker: name must be a non-empty string");
  const core = new BreakerCore(options);
  const callTimeout = options.callTimeoutMs;
  const isFailure = options.isFailure ?? (() => true);
  return {
    name,
    async run<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
      const admitted = await core.admit(name);
      if (admitted.verdict === "reject") throw openError(name, core.retryAfter(admitted));
      const verdict = admitted.verdict;
      const controller = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      let failed = true;
      try {
        const pending = call(controller.signal);
        const result =
          callTimeout === undefined
            ? await pending
            : await Promise.race([
                pending,
                new Promise<never>((_, reject) => {
                  timer = setTimeout(() => {
                    const message = `${name} did not answer within ${callTimeout} ms`;
                    reject(timeoutError(message)); // first, so the race settles with it
                    controller.abort(new DOMException(message, "TimeoutError"));
                  }, callTimeout);
                }),
              ]);
        failed = false;
        return result;
      } catch (err) {
        failed = isFailure(err) || timeoutErrors.has(err as object);
        throw err;
      } finally {
        if (timer !== undefined) clearTimeout(timer);
        await core.record(name, verdict, failed);
      }
    },
    state: () => core.state(name),
    snapshot: () => core.snapshot(name),
    reset: () => core.reset(name),
  };
}
