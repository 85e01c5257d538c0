// Spans: each request gets a server span (recorded by the access-log layer: its line is the span)
// and handlers can open child spans with `span(ctx, "load user", fn)` or the `tracer()`
// extractor. Finished spans go to the log and to any SpanSink (the OpenTelemetry exporter plugs
// in there). The context is passed explicitly: on Node 20, AsyncLocalStorage turns on promise
// hooks for every promise in the process, which costs far more than it gives here.
import { performance } from "node:perf_hooks";
import { type Context, Extractor, type Logger } from "../../index.js";
import { isPromise, LOG_LEVELS } from "../../plugin.js";
import { newSpanId, newTraceId, traceIdEndingWith } from "./random-hex.js";
import { isSampledFlags, withSampledFlag } from "./traceparent.js";

export type SpanAttributeValue = string | number | boolean;

/** What a span stands for: the request (server), work inside it (internal), a call out (client). */
export type SpanKind = "server" | "internal" | "client";

/** A finished span, in the shape an exporter needs. */
export interface SpanRecord {
  readonly name: string;
  readonly kind: SpanKind;
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

/**
 * The request's server span, reachable from the context so child spans can name their parent.
 * An id given as "" is drawn when first read: a request whose ids nobody reads (no line, no
 * exported span, no child span, no traceparent sent) skips drawing them, ~300 instructions
 * per id of a `/hello` (issue 34).
 */
export class RequestSpan {
  // `declare`: every field is assigned in the constructor. Declared plainly, ES2022 class fields
  // are first defined as undefined by an initializer of their own, on every request (measured on
  // a `/hello` that exports 1% of spans: ~40 instructions, compiled apart from the layer).
  /** The caller's span id from an incoming traceparent, or "". */
  declare readonly parentSpanId: string;
  declare readonly recorder: SpanRecorder;
  private declare flags: string;
  private declare tid: string;
  private declare sid: string;
  /** The last 52 bits of a trace id not made yet (see endTraceIdWith), in two parts; -1: none. */
  private declare idHigh: number;
  private declare idLow: number;

  constructor(traceId: string, spanId: string, parentSpanId: string, traceFlags: string, recorder: SpanRecorder) {
    this.tid = traceId;
    this.sid = spanId;
    this.parentSpanId = parentSpanId;
    this.flags = traceFlags;
    this.recorder = recorder;
    this.idHigh = -1;
    this.idLow = 0;
  }

  /**
   * The trace id, still to be drawn (""), will end with these bits: the 52 (28 + 24) a sampler
   * decided on (drawTraceIdBits). Kept as two small integers, so nothing is allocated for them.
   */
  endTraceIdWith(high28: number, low24: number): void {
    this.idHigh = high28;
    this.idLow = low24;
  }

  /** The W3C trace id (32 hex characters). */
  get traceId(): string {
    if (this.tid === "") this.tid = this.idHigh < 0 ? newTraceId() : traceIdEndingWith(this.idHigh, this.idLow);
    return this.tid;
  }

  /** This span's id (16 hex characters). */
  get spanId(): string {
    return this.sid === "" ? (this.sid = newSpanId()) : this.sid;
  }

  /** The W3C trace flags sent on (two hex characters); bit 0 is "sampled". */
  get traceFlags(): string {
    return this.flags;
  }

  /** True when the trace is sampled (flag bit 0). */
  get sampled(): boolean {
    return isSampledFlags(this.flags);
  }

  /**
   * Record a sampler's decision: sets or clears the sampled bit, keeping the other flag bits.
   * Called before the handler runs, so child spans, the outgoing traceparent and the records
   * all carry the decision.
   */
  setSampled(sampled: boolean): void {
    const flags = this.flags;
    // The two flags nearly every trace has, without the call: it is inlined into the access-log
    // layer, where V8's inlining budget is short (issue 34).
    this.flags = flags === "01" || flags === "00" ? (sampled ? "01" : "00") : withSampledFlag(flags, sampled);
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

/**
 * The semantic-convention attributes of a server span that come from the request itself
 * (the access-log layer adds method, route and status): url.path, url.scheme, server.address,
 * server.port (from Host, else the scheme's default), user_agent.original, client.address.
 */
export function requestSpanAttributes(ctx: Context): Record<string, SpanAttributeValue> {
  const secure = ctx.secure;
  // A plain object built in the same key order every time stays in V8's fast mode (one shared
  // shape, an enum cache for iteration); a null-prototype one starts as a hash table, which costs
  // the exporter several times more to walk. Every key is set here from a fixed list, so nothing
  // inherited is ever read: consumers iterate own keys.
  const attrs: Record<string, SpanAttributeValue> = { "url.path": ctx.path, "url.scheme": secure ? "https" : "http" };
  const host = ctx.req.headers.host;
  if (typeof host === "string" && host !== "") {
    // "[v6]:port", "name:port" or a bare name; a port that is not a number is left out.
    const close = host.startsWith("[") ? host.indexOf("]") : -1;
    const colon = host.indexOf(":", close + 1);
    const name = colon === -1 ? host : host.substring(0, colon);
    attrs["server.address"] = close === -1 ? name : name.substring(1, close);
    const port = colon === -1 ? (secure ? 443 : 80) : Number(host.substring(colon + 1));
    if (Number.isInteger(port) && port > 0 && port < 65536) attrs["server.port"] = port;
  }
  const agent = ctx.req.headers["user-agent"];
  if (typeof agent === "string" && agent !== "") attrs["user_agent.original"] = agent;
  const client = ctx.remoteAddress;
  if (client !== "") attrs["client.address"] = client;
  return attrs;
}

/** A child span while it runs: add attributes, open nested spans. */
export class ActiveSpan {
  readonly name: string;
  readonly kind: "internal" | "client";
  readonly spanId: string;
  readonly parentSpanId: string;
  private readonly root: RequestSpan | null;
  private readonly requestId: string;
  private attrs: Record<string, SpanAttributeValue> | null = null;
  /** Set by fail(): the span ends "error" without a throw (a client span's 5xx answer). */
  private failure: string | null = null;

  constructor(root: RequestSpan | null, requestId: string, name: string, parentSpanId: string, kind: "internal" | "client" = "internal") {
    this.root = root;
    this.requestId = requestId;
    this.name = name;
    this.kind = kind;
    this.spanId = root === null ? "" : newSpanId();
    this.parentSpanId = parentSpanId;
  }

  get traceId(): string {
    return this.root?.traceId ?? "";
  }

  /** The request's trace flags ("" without a tracing layer): what a traceparent sent on carries. */
  get traceFlags(): string {
    return this.root?.traceFlags ?? "";
  }

  /** Mark the span failed without throwing; `errorType` becomes its `error.type` attribute. */
  fail(errorType: string): this {
    this.failure = errorType;
    return this;
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
    const failed = error !== undefined || this.failure !== null;
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
        error: error !== undefined ? errorMessage(error) : (this.failure ?? undefined),
      };
      if (this.attrs !== null) for (const k in this.attrs) fields["attr." + k] = this.attrs[k];
      logger.log(rec.childLevel, "span", fields);
    }
    if (rec.sinks.length > 0) {
      const attributes: Record<string, SpanAttributeValue> = { ...this.attrs };
      if (failed && attributes["error.type"] === undefined) attributes["error.type"] = this.failure ?? errorType(error);
      const record: SpanRecord = {
        name: this.name,
        kind: this.kind,
        traceId: root.traceId,
        spanId: this.spanId,
        parentSpanId: this.parentSpanId,
        traceFlags: root.traceFlags,
        startTime: performance.timeOrigin + start,
        durationMs,
        status: failed ? "error" : "ok",
        requestId: this.requestId,
        attributes,
      };
      for (const sink of rec.sinks) safeSink(sink, record, logger);
    }
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The semantic-convention `error.type` of a thrown value: its class name, "_OTHER" for non-errors. */
export function errorType(err: unknown): string {
  if (err instanceof Error) return err.constructor.name || err.name || "Error";
  return "_OTHER";
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

export interface SpanOptions {
  /** "client" for a call to another service (see tracedFetch in keel/otel); default "internal". */
  kind?: "internal" | "client";
}

/**
 * Run `fn` inside a child span of the request's span: `await span(ctx, "load user", () => db.get(id))`.
 * Sync and async functions both work; a throw or rejection marks the span "error" and propagates.
 * Without a tracing layer, `fn` just runs.
 */
export function span<T>(ctx: Context, name: string, fn: (span: ActiveSpan) => T, options?: SpanOptions): T {
  const root = getRequestSpan(ctx);
  return runSpan(new ActiveSpan(root, ctx.requestId, name, root?.spanId ?? "", options?.kind ?? "internal"), fn);
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
