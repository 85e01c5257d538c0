// The access-log layer: per request, the request id (x-request-id in and out), the server span
// (W3C traceparent in; out only with responseTraceparent) and one JSON line when the reply is ready:
//   {"level":30,"time":…,"pid":…,"hostname":…,"service":…,"msg":"request completed",
//    "req_id":…,"method":"GET","route":"/users/{id}","status":200,"duration_ms":0.412,
//    "trace_id":…,"span_id":…,"parent_span_id"?:…,"error_id"?:…,"error_type"?:…}
// `route` is the route pattern (bounded cardinality), null when no route matched.
// With a JsonLogger (createJsonLogger, createBufferedLogger) the line is built by concatenating
// known-safe fields onto its prefix; other loggers get the same fields through `logger.log`.
// Everything per route is computed once and cached.
// Per-route override: `meta.config.accessLog` = false (no line) or a level name/number.
import { performance } from "node:perf_hooks";
import type { Context, Layer, Logger, LogLevelName, MatchedRoute, Reply } from "../../index.js";
import { type Chain, directLayer, isJsonLogger, isPromise, isStreamBody, parseLogLevel } from "../../plugin.js";
import { compileRequestIdPolicy, type RequestIdOptions } from "../../shared/request-id.js";
import { drawnHigh28, drawnLow24, drawTraceIdBits, newTraceId } from "./random-hex.js";
import { redactHeaders, secretNameSet } from "./redact.js";
import { ServerSpanRecord } from "./server-span-record.js";
import { errorType, RequestSpan, requestSpanAttributes, safeSink, setRequestSpan, type SpanRecorder, type SpanSink } from "./span.js";
import { formatTraceParent, isSampledFlags, parseTraceParent, TRACEPARENT_HEADER } from "./traceparent.js";

export interface AccessLogOptions {
  /** Where lines go. A JsonLogger (createJsonLogger, createBufferedLogger) takes the fast path. */
  logger: Logger;
  /** Level of the per-request line (default info). */
  level?: LogLevelName | number;
  /** Write the per-request line (default true); false keeps ids and spans only. */
  log?: boolean;
  /** Request ids: options, or false to leave `ctx.requestId` alone (default on). */
  requestId?: RequestIdOptions | false;
  /** Server spans with W3C traceparent in (default true). */
  trace?: boolean;
  /** Let handlers open child spans (stores the span on the context; default true with trace). */
  childSpans?: boolean;
  /**
   * Send the request's traceparent back on the response (default false). Off by default since
   * issue 34: W3C Trace Context Level 1 defines no response header and OpenTelemetry's HTTP
   * instrumentation sends none; off, clients never see trace ids, while the spans, the log lines,
   * child spans and outgoing calls still carry them. It also saves node's header work: a
   * 55-character value is ~3,400 instructions of a `/hello` (bench/README.md, "Observability overhead").
   */
  responseTraceparent?: boolean;
  /** Level of child-span lines (default info). */
  childSpanLevel?: LogLevelName | number;
  /** Receivers of finished spans (server and child), e.g. an OpenTelemetry exporter. */
  onSpan?: SpanSink | readonly SpanSink[];
  /**
   * Decides per trace whether it is sampled, when the server span starts: the decision sets the
   * sampled flag of the traceparent sent back and of every span, and unsampled spans never reach
   * `onSpan`. Without one the incoming flags are kept (a new trace is sampled).
   */
  sampler?: TraceSampler;
  /** Log request headers as `req_headers` (secrets redacted): true for all, or a list of names. */
  headers?: boolean | readonly string[];
  /** Add the raw path (without query string) as `path` (default false: unbounded cardinality). */
  path?: boolean;
  /** Header names redacted when headers are logged (default SECRET_HEADERS). */
  redact?: readonly string[];
}

interface RouteLogInfo {
  /** The pattern as a JSON string literal. */
  readonly json: string;
  readonly pattern: string | null;
  /** Line level for this route, or -1 for no line. */
  readonly level: number;
}

const METHOD_JSON: Record<string, string> = Object.create(null);
for (const m of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"]) METHOD_JSON[m] = JSON.stringify(m);

function levelOf(v: unknown, fallback: number): number {
  if (v === false) return -1;
  if (typeof v === "number" || typeof v === "string") return parseLogLevel(v);
  return fallback;
}

function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** A per-trace sampling decision, taken once when the server span starts. */
export interface TraceSampler {
  /** `parent` is the incoming traceparent's sampled flag, null for a new trace. */
  shouldSample(traceId: string, parent: { readonly sampled: boolean } | null): boolean;
  /** False when a new trace's decision does not read its id ("" is passed then); absent means true. */
  readonly readsTraceId?: boolean;
  /** Optional: a new trace's decision from its id's last 13 hex digits as a number (see keel/otel's Sampler). */
  shouldSampleLow52?(low52: number): boolean;
}

/** `error.type` of a 5xx: the class of the exception behind it, else the error's type, else the status. */
function replyErrorType(reply: Reply): string {
  const err = reply.error;
  if (err === null) return String(reply.status);
  const cause = err.cause;
  return cause instanceof Error && cause !== err && cause.name !== "ApiError" ? errorType(cause) : err.type;
}

export function accessLog(options: AccessLogOptions): Layer {
  const logger = options.logger;
  const level = parseLogLevel(options.level ?? "info");
  const writeLines = options.log !== false;
  const idPolicy = options.requestId === false ? null : compileRequestIdPolicy(options.requestId ?? {});
  const idHeader = idPolicy?.header ?? "";
  const resolveId = idPolicy?.resolve;
  const escapeId = idPolicy?.needsEscape ?? true;
  const trace = options.trace ?? true;
  const storeSpan = trace && (options.childSpans ?? true);
  const answerTraceparent = trace && (options.responseTraceparent ?? false);
  const sampler = options.sampler;
  // A new trace's id is drawn before the sampler decides only when the decision reads it.
  const drawIdFirst = sampler !== undefined && sampler.readsTraceId !== false;
  // A sampler that can decide from the id's last 52 bits gets them drawn as bytes, before the id.
  const low52Sampler = drawIdFirst && sampler.shouldSampleLow52 !== undefined ? sampler : null;
  const given: readonly SpanSink[] = options.onSpan === undefined ? [] : typeof options.onSpan === "function" ? [options.onSpan] : options.onSpan;
  // With a sampler, unsampled spans (the server span and its children) reach no sink.
  const sinks: readonly SpanSink[] = sampler === undefined ? given : given.map((sink): SpanSink => (span) => {
    if (isSampledFlags(span.traceFlags)) sink(span);
  });
  const recorder: SpanRecorder = { logger, childLevel: parseLogLevel(options.childSpanLevel ?? "info"), sinks };
  const fast = isJsonLogger(logger) ? logger : null;
  const withPath = options.path === true;
  const headerAllow = Array.isArray(options.headers) ? new Set((options.headers as readonly string[]).map((h) => h.toLowerCase())) : undefined;
  const withHeaders = options.headers === true || headerAllow !== undefined;
  const secrets = secretNameSet(options.redact);

  const unmatched: RouteLogInfo = { json: "null", pattern: null, level };
  const routeInfo = new Map<MatchedRoute, RouteLogInfo>();
  const infoFor = (def: MatchedRoute | null): RouteLogInfo => {
    if (def === null) return unmatched;
    let info = routeInfo.get(def);
    if (info === undefined) {
      info = { json: JSON.stringify(def.pattern), pattern: def.pattern, level: levelOf(def.meta.config?.["accessLog"], level) };
      routeInfo.set(def, info);
    }
    return info;
  };

  /** Write the line and feed the sinks; called once the reply (or the stream) is done. */
  const record = (ctx: Context, reply: Reply, start: number, rs: RequestSpan | null): void => {
    const info = infoFor(ctx.route);
    const lineLevel = writeLines ? info.level : -1;
    const logIt = lineLevel >= 0 && lineLevel >= logger.level;
    // With a sampler, an unsampled span reaches no sink: its record is not built.
    const exportSpan = rs !== null && sinks.length > 0 && (sampler === undefined || isSampledFlags(rs.traceFlags));
    if (!logIt && !exportSpan) return;
    const durationMs = roundMs(performance.now() - start);
    const id = ctx.requestId;
    if (logIt) {
      if (fast !== null) {
        let line = fast.prefix(lineLevel) + ',"msg":"request completed"';
        if (id !== "") line += ',"req_id":' + (escapeId ? JSON.stringify(id) : '"' + id + '"');
        line += ',"method":' + (METHOD_JSON[ctx.method] ?? JSON.stringify(ctx.method)) + ',"route":' + info.json;
        if (withPath) line += ',"path":' + JSON.stringify(ctx.path);
        line += ',"status":' + reply.status + ',"duration_ms":' + durationMs;
        if (rs !== null) {
          line += ',"trace_id":"' + rs.traceId + '","span_id":"' + rs.spanId + '"';
          if (rs.parentSpanId !== "") line += ',"parent_span_id":"' + rs.parentSpanId + '"';
        }
        if (reply.errorId !== "") {
          line += ',"error_id":"' + reply.errorId + '"';
          if (reply.error !== null) line += ',"error_type":' + JSON.stringify(reply.error.type);
        }
        if (withHeaders) line += ',"req_headers":' + JSON.stringify(redactHeaders(ctx.req.headers, secrets, headerAllow));
        fast.writeLine(line + "}\n");
      } else {
        logger.log(lineLevel, "request completed", {
          req_id: id || undefined,
          method: ctx.method,
          route: info.pattern,
          path: withPath ? ctx.path : undefined,
          status: reply.status,
          duration_ms: durationMs,
          trace_id: rs?.traceId,
          span_id: rs?.spanId,
          parent_span_id: rs === null || rs.parentSpanId === "" ? undefined : rs.parentSpanId,
          error_id: reply.errorId || undefined,
          error_type: reply.error?.type,
          req_headers: withHeaders ? redactHeaders(ctx.req.headers, secrets, headerAllow) : undefined,
        });
      }
    }
    if (exportSpan) {
      // Semantic-convention names: the request's own attributes, then the route and the answer.
      const attributes = requestSpanAttributes(ctx);
      attributes["http.request.method"] = ctx.method;
      attributes["http.response.status_code"] = reply.status;
      if (info.pattern !== null) attributes["http.route"] = info.pattern;
      if (reply.errorId !== "") attributes["error_id"] = reply.errorId;
      if (reply.status >= 500) attributes["error.type"] = replyErrorType(reply);
      const span = new ServerSpanRecord(
        info.pattern === null ? ctx.method : ctx.method + " " + info.pattern,
        rs.traceId,
        rs.spanId,
        rs.parentSpanId,
        rs.traceFlags,
        performance.timeOrigin + start,
        durationMs,
        reply.status >= 500 ? "error" : "ok",
        id,
        attributes,
      );
      for (const sink of sinks) safeSink(sink, span, logger);
    }
  };

  const anySinks = sinks.length > 0;

  /** `start` is -1 when the request has nothing to record: no line, no span for a sink. (Written out again in the layer for a synchronous answer.) */
  const finish = (ctx: Context, start: number, rs: RequestSpan | null, reply: Reply): Reply => {
    if (resolveId !== undefined) reply.headers[idHeader] = ctx.requestId;
    if (rs !== null && answerTraceparent) reply.headers[TRACEPARENT_HEADER] = formatTraceParent(rs.traceId, rs.spanId, rs.traceFlags);
    if (start >= 0) recordWhenDone(ctx, reply, start, rs);
    return reply;
  };

  // Apart from finish, which is inlined into the layer on every request: V8's inlining budget
  // there is short, and what this holds runs only for a line or a sampled span (issue 34).
  const recordWhenDone = (ctx: Context, reply: Reply, start: number, rs: RequestSpan | null): void => {
    const res = ctx.res;
    if (res !== null && isStreamBody(reply.body)) {
      // A streamed body: the span ends when the response does.
      res.once("close", () => record(ctx, reply, start, rs));
    } else {
      record(ctx, reply, start, rs);
    }
  };

  // A direct layer: a route that answers synchronously gets its ids, span and line without a promise.
  return directLayer(function accessLogLayer(ctx: Context, next: Chain): Reply | Promise<Reply> {
    if (resolveId !== undefined) ctx.requestId = resolveId(ctx.req.headers[idHeader]);
    let rs: RequestSpan | null = null;
    // Only a line or a span some sink will get needs the duration (an unsampled span reaches none).
    let timed = writeLines;
    if (trace) {
      // Requests without one (most, where no tracing proxy sits in front) skip the parser's call:
      // once the sampler's decision made this layer too big to inline it, the call cost ~70
      // instructions a request in unoptimised code (issue 34).
      const header = ctx.req.headers[TRACEPARENT_HEADER];
      const tp = header === undefined ? null : parseTraceParent(header);
      // Ids are drawn when first read (RequestSpan), except a new trace's id a sampler decides on.
      // A new trace's span is made with its decision as its flags ("01" or "00", what setSampled
      // would make of "01"): no setSampled call to inline into this layer, where V8's inlining
      // budget is short (issue 34).
      if (tp !== null) {
        rs = new RequestSpan(tp.traceId, "", tp.parentId, tp.flags, recorder);
        if (sampler !== undefined) rs.setSampled(sampler.shouldSample(rs.traceId, { sampled: rs.sampled }));
      } else if (low52Sampler !== null) {
        // The id's last 52 bits decide; the id itself is made only if something reads it.
        const low52 = drawTraceIdBits();
        rs = new RequestSpan("", "", "", low52Sampler.shouldSampleLow52!(low52) ? "01" : "00", recorder);
        rs.endTraceIdWith(drawnHigh28(), drawnLow24());
      } else if (sampler !== undefined) {
        const traceId = drawIdFirst ? newTraceId() : "";
        rs = new RequestSpan(traceId, "", "", sampler.shouldSample(traceId, null) ? "01" : "00", recorder);
      } else {
        rs = new RequestSpan("", "", "", "01", recorder);
      }
      if (storeSpan) setRequestSpan(ctx, rs);
      if (anySinks && (sampler === undefined || rs.sampled)) timed = true;
    }
    const start = timed ? performance.now() : -1;
    // The inner chain is guarded: it neither throws nor rejects.
    const answer = next(ctx);
    if (!isPromise(answer)) {
      // finish(), written out for the synchronous answer: as the layer's own code it takes none of
      // V8's inlining budget for this function, which the kernel's steps inlined after it need
      // (a `/hello` whose reply constructor did not fit cost ~300 instructions; issue 34).
      if (resolveId !== undefined) answer.headers[idHeader] = ctx.requestId;
      if (rs !== null && answerTraceparent) answer.headers[TRACEPARENT_HEADER] = formatTraceParent(rs.traceId, rs.spanId, rs.traceFlags);
      if (start >= 0) recordWhenDone(ctx, answer, start, rs);
      return answer;
    }
    const span = rs;
    return answer.then((reply) => finish(ctx, start, span, reply));
  });
}
