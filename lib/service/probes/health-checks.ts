// Readiness/health checks: named async functions, run concurrently, each with its own timeout
// (default 2 s; its AbortSignal fires when it runs out). Results are cached for a short interval
// (default 1 s) and concurrent probes share one run in flight, so a probe storm cannot turn into
// a storm of database pings.
import type { Logger } from "../../index.js";
import { LOG_LEVELS } from "../../plugin.js";

export type CheckStatus = "ok" | "degraded" | "fail";

/**
 * A check. Resolving (to anything but the values below) means "ok"; throwing, rejecting or
 * timing out means "fail". It may also return `false` ("fail"), `"degraded"`, or
 * `{ status, error? }` to say so explicitly.
 */
export type HealthCheck = (signal: AbortSignal) => unknown;

export interface HealthCheckOptions {
  /** Per-check timeout, ms (default: the registry's, 2000). */
  timeoutMs?: number;
  /**
   * A failing critical check (the default) makes the service unready and unhealthy (503).
   * A failing non-critical one only degrades `/health` (still 200) and leaves `/ready` alone.
   */
  critical?: boolean;
}

export interface CheckOutcome {
  status: CheckStatus;
  duration_ms: number;
  /** Why it failed or degraded (message of the thrown error, truncated). */
  error?: string;
}

export interface HealthReport {
  /** fail: a critical check failed; degraded: something else is not ok; ok otherwise. */
  readonly status: CheckStatus;
  /** True unless a critical check failed. */
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, CheckOutcome>>;
  /** Epoch ms when this run finished (cached reports keep it). */
  readonly checkedAt: number;
}

export interface HealthChecksOptions {
  /** Default per-check timeout, ms (default 2000). */
  timeoutMs?: number;
  /** How long a report is reused, ms (default 1000; 0 runs the checks on every probe). */
  cacheMs?: number;
  /** Status changes of checks are logged here (warn when failing, info when recovered). */
  logger?: Logger;
}

interface Entry {
  readonly name: string;
  readonly fn: HealthCheck;
  readonly timeoutMs: number;
  readonly critical: boolean;
  last: CheckStatus | null;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 2000;
export const DEFAULT_CHECK_CACHE_MS = 1000;
const MAX_ERROR_LENGTH = 200;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

class CheckTimeoutError extends Error {}

function describe(err: unknown): string {
  const msg = err instanceof Error ? err.message : typeof err === "string" ? err : "check failed";
  const text = msg === "" ? "check failed" : msg;
  return text.length > MAX_ERROR_LENGTH ? text.slice(0, MAX_ERROR_LENGTH - 3) + "..." : text;
}

function interpret(value: unknown): { status: CheckStatus; error?: string } {
  if (value === false) return { status: "fail", error: "check returned false" };
  if (value === "degraded" || value === "fail") return { status: value };
  if (typeof value === "object" && value !== null && "status" in value) {
    const v = value as { status: unknown; error?: unknown };
    if (v.status === "ok" || v.status === "degraded" || v.status === "fail") {
      return v.error === undefined ? { status: v.status } : { status: v.status, error: describe(v.error) };
    }
  }
  return { status: "ok" };
}

export class HealthChecks {
  private readonly entries: Entry[] = [];
  private readonly timeoutMs: number;
  private readonly cacheMs: number;
  private logger: Logger | undefined;
  private cached: HealthReport | null = null;
  private inflight: Promise<HealthReport> | null = null;

  constructor(options: HealthChecksOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
    this.cacheMs = options.cacheMs ?? DEFAULT_CHECK_CACHE_MS;
    this.logger = options.logger;
    if (!(this.timeoutMs > 0)) throw new RangeError("health checks: timeoutMs must be positive");
    if (!(this.cacheMs >= 0)) throw new RangeError("health checks: cacheMs must be >= 0");
  }

  /** Register a check. Names are 1-64 characters of [A-Za-z0-9_.-], unique. */
  add(name: string, fn: HealthCheck, options: HealthCheckOptions = {}): this {
    if (!NAME.test(name)) throw new TypeError(`health check name ${JSON.stringify(name)} must match [A-Za-z0-9][A-Za-z0-9_.-]{0,63}`);
    if (typeof fn !== "function") throw new TypeError(`health check ${name}: not a function`);
    if (this.entries.some((e) => e.name === name)) throw new TypeError(`health check ${name} is already registered`);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    if (!(timeoutMs > 0)) throw new RangeError(`health check ${name}: timeoutMs must be positive`);
    this.entries.push({ name, fn, timeoutMs, critical: options.critical ?? true, last: null });
    this.cached = null;
    return this;
  }

  /** Names of the registered checks. */
  get names(): string[] {
    return this.entries.map((e) => e.name);
  }

  /** Use this logger for status changes (production() sets its own). */
  setLogger(logger: Logger): void {
    this.logger = logger;
  }

  /** The latest report: cached when fresh, shared when a run is in flight. */
  run(): Promise<HealthReport> {
    const c = this.cached;
    if (c !== null && Date.now() - c.checkedAt < this.cacheMs) return Promise.resolve(c);
    if (this.inflight !== null) return this.inflight;
    const p = this.runAll().then((report) => {
      this.cached = report;
      this.inflight = null;
      return report;
    });
    this.inflight = p;
    return p;
  }

  private async runAll(): Promise<HealthReport> {
    const outcomes = await Promise.all(this.entries.map((e) => this.runOne(e)));
    const checks: Record<string, CheckOutcome> = Object.create(null);
    let status: CheckStatus = "ok";
    let ready = true;
    for (let i = 0; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      const o = outcomes[i]!;
      checks[e.name] = o;
      if (o.status === "fail" && e.critical) {
        status = "fail";
        ready = false;
      } else if (o.status !== "ok" && status === "ok") {
        status = "degraded";
      }
      this.noteTransition(e, o);
    }
    return { status, ready, checks, checkedAt: Date.now() };
  }

  private runOne(e: Entry): Promise<CheckOutcome> {
    const start = performance.now();
    const controller = new AbortController();
    const done = (status: CheckStatus, error?: string): CheckOutcome => {
      const out: CheckOutcome = { status, duration_ms: Math.round((performance.now() - start) * 100) / 100 };
      if (error !== undefined) out.error = error;
      return out;
    };
    return new Promise<CheckOutcome>((resolve) => {
      const timer = setTimeout(() => {
        controller.abort(new CheckTimeoutError(`timed out after ${e.timeoutMs} ms`));
        resolve(done("fail", `timed out after ${e.timeoutMs} ms`));
      }, e.timeoutMs);
      let value: unknown;
      try {
        value = e.fn(controller.signal);
      } catch (err) {
        clearTimeout(timer);
        resolve(done("fail", describe(err)));
        return;
      }
      Promise.resolve(value).then(
        (v) => {
          clearTimeout(timer);
          const r = interpret(v);
          resolve(done(r.status, r.error));
        },
        (err: unknown) => {
          clearTimeout(timer);
          resolve(done("fail", describe(err)));
        },
      );
    });
  }

  private noteTransition(e: Entry, o: CheckOutcome): void {
    const prev = e.last;
    e.last = o.status;
    const logger = this.logger;
    if (logger === undefined || prev === o.status) return;
    if (o.status === "ok") {
      if (prev !== null && LOG_LEVELS.info >= logger.level) logger.log(LOG_LEVELS.info, "health check recovered", { check: e.name });
    } else if (LOG_LEVELS.warn >= logger.level) {
      logger.log(LOG_LEVELS.warn, "health check " + (o.status === "fail" ? "failing" : "degraded"), { check: e.name, critical: e.critical, error: o.error });
    }
  }
}
