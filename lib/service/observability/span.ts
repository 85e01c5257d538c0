// Spans: each request gets a server span (recorded by the access-log layer: its line is the span)
// and handlers can open child spans with `span(ctx, "load user", fn)` or the `tracer()`
// extractor. Finished spans go to the log and to any SpanSink (the OpenTelemetry exporter plugs
// in there). The context is passed explicitly: on Node 20, AsyncLocalStorage turns on promise
// hooks for every promise in the process, which costs far more than it gives here.
import type { Context } from "../../core/context.js";
import { LOG_LEVELS, type Logger } from "../../util/logger.js";
import { Extractor } from "../../core/extractor.js";
import { isPromise } from "../../util/is-promise.js";
import { newSpanId } from "./random-hex.js";

export type SpanAttributeValue = string | number | boolean;

/** A finished span, in the shape an exporter needs. */
export interface SpanRecord {
  readonly name: string;
  readonly kind: "server" | "internal";
  readonly traceId: string;
  readonly spanId: string;
  /** "" for a root span. */
  readonly parentSpanId: string;
  readonly traceFlags: string;
  /** Epoch milliseconds (fractional). */
  readonly startTime: number;
  readonly durationMs: number;
  readonly status: "ok" | "error";
  readonly requestId: string;
  readonly attributes: Readonly<Record<string, SpanAttributeValue>>;
}

export type SpanSink = (span: SpanRecord) => void;

/** Where finished spans go: one per access-log layer, shared by its requests. */
export interface SpanRecorder {
  readonly logger: Logger;
  /** Level of child-span lines (default info). */
  readonly childLevel: number;
  readonly sinks: readonly SpanSink[];
}

/** The request's server span, reachable from the context so child spans can name their parent. */
export class RequestSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** The caller's span id from an incoming traceparent, or "". */
  readonly parentSpanId: string;
  readonly traceFlags: string;
  readonly recorder: SpanRecorder;

  constructor(traceId: string, spanId: string, parentSpanId: string, traceFlags: string, recorder: SpanRecorder) {
    this.traceId = traceId;
    this.spanId = spanId;
    this.parentSpanId = parentSpanId;
    this.traceFlags = traceFlags;
    this.recorder = recorder;
  }
}

// Kept in the context's dedicated `span` slot (no per-request locals object needed).
export function setRequestSpan(ctx: Context, span: RequestSpan): void {
  ctx.span = span;
}

/** The request's server span, or null when no tracing layer ran. */
export function getRequestSpan(ctx: Context): RequestSpan | null {
  const s = ctx.span;
  return s instanceof RequestSpan ? s : null;
}

/** A child span while it runs: add attributes, open nested spans. */
export class ActiveSpan {
  readonly name: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  private readonly root: RequestSpan | null;
  private readonly requestId: string;
  private attrs: Record<string, SpanAttributeValue> | null = null;

  constructor(root: RequestSpan | null, requestId: string, name: string, parentSpanId: string) {
    this.root = root;
    this.requestId = requestId;
    this.name = name;
    this.spanId = root === null ? "" : newSpanId();
    this.parentSpanId = parentSpanId;
  }

  get traceId(): string {
    return this.root?.traceId ?? "";
  }

  /** Set an attribute (logged as `attr.<key>` fields). */
  set(key: string, value: SpanAttributeValue): this {
    if (key === "__proto__" || key === "constructor" || key === "prototype") return this;
    (this.attrs ??= Object.create(null) as Record<string, SpanAttributeValue>)[key] = value;
    return this;
  }

  /** A nested child span. */
  span<T>(name: string, fn: (span: ActiveSpan) => T): T {
    return runSpan(new ActiveSpan(this.root, this.requestId, name, this.spanId), fn);
  }

  /** Internal: record the finished span. */
  finish(start: number, error: unknown): void {
    const root = this.root;
    if (root === null) return;
    const durationMs = Math.round((performance.now() - start) * 1000) / 1000;
    const rec = root.recorder;
    const failed = error !== undefined;
    const logger = rec.logger;
    if (rec.childLevel >= logger.level) {
      const fields: Record<string, unknown> = {
        span: this.name,
        req_id: this.requestId || undefined,
        trace_id: root.traceId,
        span_id: this.spanId,
        parent_span_id: this.parentSpanId,
        duration_ms: durationMs,
        span_status: failed ? "error" : "ok",
        error: failed ? errorMessage(error) : undefined,
      };
      if (this.attrs !== null) for (const k in this.attrs) fields["attr." + k] = this.attrs[k];
      logger.log(rec.childLevel, "span", fields);
    }
    if (rec.sinks.length > 0) {
      const record: SpanRecord = {
        name: this.name,
        kind: "internal",
        traceId: root.traceId,
        spanId: this.spanId,
        parentSpanId: this.parentSpanId,
        traceFlags: root.traceFlags,
        startTime: performance.timeOrigin + start,
        durationMs,
        status: failed ? "error" : "ok",
        requestId: this.requestId,
        attributes: { ...this.attrs },
      };
      for (const sink of rec.sinks) safeSink(sink, record, logger);
    }
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Call a sink; a failing sink is logged, never thrown into the request. */
export function safeSink(sink: SpanSink, record: SpanRecord, logger: Logger): void {
  try {
    sink(record);
  } catch (err) {
    if (LOG_LEVELS.warn >= logger.level) logger.log(LOG_LEVELS.warn, "span sink failed", { message: errorMessage(err) });
  }
}


function runSpan<T>(active: ActiveSpan, fn: (span: ActiveSpan) => T): T {
  const start = performance.now();
  let out: T;
  try {
    out = fn(active);
  } catch (err) {
    active.finish(start, err ?? "error");
    throw err;
  }
  if (isPromise(out)) {
    return (out as PromiseLike<unknown>).then(
      (v) => {
        active.finish(start, undefined);
        return v;
      },
      (err: unknown) => {
        active.finish(start, err ?? "error");
        throw err;
      },
    ) as T;
  }
  active.finish(start, undefined);
  return out;
}

/**
 * Run `fn` inside a child span of the request's span: `await span(ctx, "load user", () => db.get(id))`.
 * Sync and async functions both work; a throw or rejection marks the span "error" and propagates.
 * Without a tracing layer, `fn` just runs.
 */
export function span<T>(ctx: Context, name: string, fn: (span: ActiveSpan) => T): T {
  const root = getRequestSpan(ctx);
  return runSpan(new ActiveSpan(root, ctx.requestId, name, root?.spanId ?? ""), fn);
}

/** What the `tracer()` extractor hands a handler: child spans without passing the context. */
export class Tracer {
  private readonly ctx: Context;

  constructor(ctx: Context) {
    this.ctx = ctx;
  }

  /** The request's trace id ("" without a tracing layer). */
  get traceId(): string {
    return getRequestSpan(this.ctx)?.traceId ?? "";
  }

  span<T>(name: string, fn: (span: ActiveSpan) => T): T {
    return span(this.ctx, name, fn);
  }
}

/** Extractor: `route.get("/u/{id}", [path("id", t.u64()), tracer()], (id, tr) => tr.span("load", ...))`. */
export function tracer(): Extractor<Tracer> {
  return new Extractor<Tracer>("tracer", (ctx) => new Tracer(ctx), false);
}
