// The OTLP/HTTP span exporter, JSON (default, "http/json") or protobuf ("http/protobuf"): a
// SpanSink that queues finished spans and sends them in batches, like the SDK's
// BatchSpanProcessor (same defaults: every 5 s or every 512 spans, at most 2048 waiting). One
// export is in flight at a time; while it waits, spans queue up, and what does not fit is dropped
// and counted. Failed exports are retried (see retry-policy.ts); flush() and shutdown() send what
// is queued within a deadline (exportTimeoutMs, or less: the rest of a service's shutdown budget),
// and shutdown() gives up what it could not send by then (counted as dropped, the POST in flight
// cut off): a collector that never answers cannot hold a process past its shutdown timeout.
// A failing collector is visible: failed requests are counted (stats(), keel/metrics'
// otlpExportMetrics), logged at warn (the first, then at most one line per failureLogIntervalMs
// with the count since, and one info line when exports work again), and healthCheck() reports
// "degraded" while the latest request failed (a non-critical check: it never takes an instance
// out of rotation). The schedule's timers are unref'd: the exporter keeps a process
// alive only while a POST is in flight (bounded by its timeout) and while a flush() or shutdown()
// someone awaits is running (bounded by its deadline), so a flush on the way out is never cut
// off. POSTs are made by a worker thread (worker-transport.ts). Unsampled spans (trace flag bit 0
// clear) are never exported. A record is kept as it was handed over until it is written into a
// batch (in runs, see `unwritten`): it must not be changed afterwards.
import type { Logger } from "../index.js";
import { isKeelServerSpan, isSampledFlags, type HealthCheck, type SpanAttributeValue, type SpanRecord, type SpanSink } from "../service/index.js";
import { validateHeaderName, validateHeaderValue } from "node:http";
import { InlineTransport, type OtlpTransport, type PostTransport } from "./post-transport.js";
import { WorkerTransport } from "./worker-transport.js";
import type { OtlpScope } from "./otlp-json.js";
import { protobufBatchHead } from "./otlp-protobuf.js";
import { ProtobufSpanBatch } from "./protobuf-span-batch.js";
import { rejectedSpans, type OtlpProtocol } from "./export-response.js";
import { SpanBatch, spanBatchHead, type ExportBatch } from "./span-batch.js";
import { isRetryable, retryDelay, retryPolicy, type RetryOptions, type RetryPolicy } from "./retry-policy.js";
import type { Sampler } from "./sampler.js";
import { KEEL_SCOPE, resourceAttributes } from "./resource.js";

export interface OtlpExporterOptions {
  /**
   * The body encoding: "http/json" (default) or "http/protobuf" (Content-Type
   * application/x-protobuf; the OTel SDK's default, and cheaper to write per span).
   */
  protocol?: OtlpProtocol;
  /** The full traces URL (default http://localhost:4318/v1/traces). */
  url?: string | URL;
  /** Extra request headers (an API key for the collector, ...). */
  headers?: Readonly<Record<string, string>>;
  /** Per-request timeout, ms (default 10000). */
  timeoutMs?: number;
  /** `service.name` unless `resource` has one (default "unknown_service:node", as the SDK). */
  serviceName?: string;
  /** Resource attributes (service.version, deployment.environment.name, ...). */
  resource?: Readonly<Record<string, SpanAttributeValue>>;
  /** Longest wait before queued spans are sent, ms (default 5000). */
  scheduleDelayMs?: number;
  /** Spans that may wait; more are dropped and counted (default 2048). */
  maxQueueSize?: number;
  /** Spans per request, at most maxQueueSize (default 512). */
  maxExportBatchSize?: number;
  /** How long flush() and shutdown() may take, ms (default 30000). */
  exportTimeoutMs?: number;
  retry?: RetryOptions;
  /** Handed to `production({ spans: { sampler } })` by the caller; kept here so env config travels together. */
  sampler?: Sampler | undefined;
  /** Where failed exports are reported (warn, rate-limited) and recoveries (info); default: nowhere (see stats()). */
  logger?: Logger;
  /**
   * After a failed export is logged, further failures are only counted for this long, ms; the
   * next failure after it logs one line with the count since (default 60000; 0 logs every one).
   */
  failureLogIntervalMs?: number;
  /** The instrumentation scope (default { name: "keel", version: keel's version }). */
  scope?: OtlpScope;
  /**
   * Where the POSTs are made: "worker" (default), a worker thread, so that node's HTTP client
   * never runs in the server's isolate (where it would slow down the server's own HTTP code,
   * see worker-transport.ts); or "inline", in this thread. A worker that cannot start or dies
   * is replaced by inline POSTs.
   */
  transport?: OtlpTransport;
}

export interface OtlpExporterStats {
  /** Spans the collector accepted (rejected ones from a partial success are not counted). */
  readonly exported: number;
  /** Spans dropped: the queue was full, or the exporter was shut down. */
  readonly dropped: number;
  /** Batches given up on (a non-retryable answer, out of tries, or past the deadline). */
  readonly failedBatches: number;
  /** Spans in those batches. */
  readonly failedSpans: number;
  /** Spans the collector reported as rejected in a partial success. */
  readonly rejected: number;
  /** Tries after the first. */
  readonly retries: number;
  /** Export requests (tries) that failed: no answer (refused, reset, timed out) or an error status. */
  readonly failedExports: number;
  /** Failed requests since the last successful one (0 when the latest succeeded). */
  readonly consecutiveFailures: number;
  /** Spans waiting now. */
  readonly queued: number;
  /** Where POSTs are made now: "inline" when asked, or after the export worker failed. */
  readonly transport: OtlpTransport;
}

/** A SpanSink (pass it as `onSpan`) that exports over OTLP/HTTP, JSON or protobuf. */
export interface OtlpExporter extends SpanSink {
  readonly url: string;
  readonly protocol: OtlpProtocol;
  /** The sampler from the options or the environment, for `production({ spans: { sampler } })`. */
  readonly sampler: Sampler | undefined;
  /**
   * Send everything queued now; resolves when sent, given up on, or past its deadline (the
   * smaller of exportTimeoutMs and `timeoutMs`). Exports still under way then carry on.
   */
  flush(options?: OtlpFlushOptions): Promise<void>;
  /**
   * Flush, then refuse further spans (counted as dropped). What is not sent by the deadline (the
   * smaller of exportTimeoutMs and `timeoutMs`: give it what is left of the shutdown budget) is
   * given up: counted as dropped, the POST in flight cut off. Idempotent (later calls share the first).
   */
  shutdown(options?: OtlpFlushOptions): Promise<void>;
  stats(): OtlpExporterStats;
  /**
   * A health check for `prod.check("otlp", exporter.healthCheck(), { critical: false })`: "ok"
   * until an export request fails, "degraded" (with what went wrong, never the collector's
   * address) while the latest one failed, "ok" again after a success.
   */
  healthCheck(): HealthCheck;
}

export interface OtlpFlushOptions {
  /** The longest this flush or shutdown may take, ms (it never takes longer than exportTimeoutMs). */
  timeoutMs?: number;
}

function positiveInt(name: string, value: number | undefined, fallback: number, min = 1): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min) throw new TypeError(`otlpExporter(): ${name} must be an integer >= ${min}, got ${String(v)}`);
  return v;
}

const DEFAULT_URL = "http://localhost:4318/v1/traces";

const CONTENT_TYPES: Readonly<Record<OtlpProtocol, string>> = { "http/json": "application/json", "http/protobuf": "application/x-protobuf" };

function protocolOption(value: unknown): OtlpProtocol {
  if (value === undefined || value === "http/json") return "http/json";
  if (value === "http/protobuf") return "http/protobuf";
  if (value === "grpc") throw new TypeError('otlpExporter(): protocol "grpc" is not supported: keel exports OTLP over HTTP, use "http/protobuf" or "http/json"');
  throw new TypeError(`otlpExporter(): protocol must be "http/protobuf" or "http/json", got ${JSON.stringify(value)}`);
}

/** Spans written into a batch together (see `unwritten` in otlpExporter). */
const WRITE_CHUNK = 32;

/** Batch buffers kept for reuse: one being filled, one waiting, one in flight. */
const SPARE_BUFFERS = 3;

/** Sleep that never holds the process open. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * A span sink that sends spans to an OTLP/HTTP collector in batches (JSON or protobuf), bounded,
 * retried, counted in `stats()`, and given up at a shutdown deadline.
 *
 * @example
 * const otel = otlpExporter({ url: "http://collector:4318/v1/traces", serviceName: "billing" });
 * production({ service: "billing", spans: { onSpan: otel } }).register(app);
 * app.onShutdown(() => otel.shutdown({ timeoutMs: 5000 }));
 * @see docs/features/otel.md
 */
export function otlpExporter(options: OtlpExporterOptions = {}): OtlpExporter {
  const protocol = protocolOption(options.protocol);
  const contentType = CONTENT_TYPES[protocol];
  const url = new URL(String(options.url ?? DEFAULT_URL));
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError(`otlpExporter(): url must be http or https, got ${url.protocol}`);
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      throw new TypeError(`otlpExporter(): header ${JSON.stringify(name)} is not a valid HTTP header`);
    }
    headers[name.toLowerCase()] = value;
  }
  const timeoutMs = positiveInt("timeoutMs", options.timeoutMs, 10_000);
  const scheduleDelayMs = positiveInt("scheduleDelayMs", options.scheduleDelayMs, 5000, 0);
  const maxQueueSize = positiveInt("maxQueueSize", options.maxQueueSize, 2048);
  const batchSize = positiveInt("maxExportBatchSize", options.maxExportBatchSize, 512);
  if (batchSize > maxQueueSize) throw new TypeError(`otlpExporter(): maxExportBatchSize (${batchSize}) must not exceed maxQueueSize (${maxQueueSize})`);
  const exportTimeoutMs = positiveInt("exportTimeoutMs", options.exportTimeoutMs, 30_000);
  const failureLogIntervalMs = positiveInt("failureLogIntervalMs", options.failureLogIntervalMs, 60_000, 0);
  const policy: RetryPolicy = retryPolicy(options.retry);
  const resource = resourceAttributes(options.serviceName, options.resource);
  const scope = options.scope ?? KEEL_SCOPE;
  const logger = options.logger;
  const transportKind = options.transport ?? "worker";
  if (transportKind !== "worker" && transportKind !== "inline") throw new TypeError(`otlpExporter(): transport must be "worker" or "inline", got ${JSON.stringify(transportKind)}`);

  // Waiting spans are kept as bytes: full batches waiting to be sent, and the batch being filled.
  // The resource and scope are encoded once; every batch starts with them.
  const protobufHead = protocol === "http/protobuf" ? protobufBatchHead(resource, scope) : null;
  const jsonHead = protobufHead === null ? spanBatchHead(resource, scope) : "";
  const newBatch = (reuse: Buffer | undefined): ExportBatch => (protobufHead !== null ? new ProtobufSpanBatch(protobufHead, reuse) : new SpanBatch(jsonHead, reuse));
  let sealed: ExportBatch[] = [];
  let current: ExportBatch | null = null;
  /**
   * Spans handed over but not yet written into a batch. They are written WRITE_CHUNK at a time
   * (or when the schedule, a flush or shutdown comes): at a low sampling ratio a span finishes
   * once in hundreds of requests, and encoding it alone, with the encoder's code and data gone
   * cold, costs several times what it costs in a run (measured at 1% on `/hello`: ~0.3 µs less
   * CPU on every request once written in runs of 32).
   */
  let unwritten: SpanRecord[] = [];
  const writeChunk = Math.min(WRITE_CHUNK, batchSize);
  /** Spans waiting (in `unwritten`, `sealed` and `current`; not those of the export in flight). */
  let queued = 0;
  /** Buffers of batches whose export is over, for the next batches (see span-batch.ts). */
  const spareBuffers: Buffer[] = [];
  /** A full batch taken off the queue for the export that starts on the next turn. */
  let handedOff: ExportBatch | null = null;
  let timer: NodeJS.Timeout | null = null;
  /** The running export loop, if any: one batch in flight at a time. */
  let pumping: Promise<void> | null = null;
  /** Export everything queued, not only full batches (timer fired, flush, shutdown). */
  let drainAll = false;
  /** Retries and waits stop at this time (a flush's deadline); Infinity outside flushes. */
  let deadline = Infinity;
  let closed = false;
  let shutdownPromise: Promise<void> | null = null;
  /** Spans of the batch being exported now (0 between exports). */
  let inFlight = 0;
  /** Set when shutdown gave up what was left: answers still coming in are no longer counted. */
  let abandoned = false;
  const counts = { exported: 0, dropped: 0, failedBatches: 0, failedSpans: 0, rejected: 0, retries: 0, failedExports: 0 };
  /** Failed requests since the last success, and what went wrong last (for healthCheck()). */
  let streak = 0;
  let lastProblem = "";
  /** The failure log's rate limit: when the last line was written, failures since, whether this streak was logged. */
  let lastLoggedAt = -Infinity;
  let unlogged = 0;
  let streakLogged = false;

  const warn = (msg: string, fields: Record<string, unknown>): void => {
    if (logger !== undefined && logger.level <= 40) logger.log(40, msg, fields);
  };

  /** A request failed (each try counts): counted always, logged at most once per interval. */
  const requestFailed = (status: number, error: Error | null, attempt: number, spans: number, retrying: boolean): void => {
    counts.failedExports++;
    streak++;
    unlogged++;
    lastProblem = describeFailure(status, error);
    const now = Date.now();
    if (now - lastLoggedAt < failureLogIntervalMs) return;
    warn("OTLP export failed", { url: url.href, status, error: error?.message, attempt, spans, retrying, failures: unlogged, log_interval_ms: failureLogIntervalMs });
    lastLoggedAt = now;
    unlogged = 0;
    streakLogged = true;
  };

  const requestSucceeded = (): void => {
    // One line per logged streak: a collector that flaps cannot get around the rate limit this way.
    if (streakLogged && logger !== undefined && logger.level <= 30) logger.log(30, "OTLP export recovered", { url: url.href, failures: streak });
    streak = 0;
    streakLogged = false;
  };

  const target = { url, headers, contentType, timeoutMs };
  const transport: PostTransport =
    transportKind === "inline" ? new InlineTransport(target) : new WorkerTransport(target, (reason) => warn("OTLP export worker unavailable: exporting in-process", { reason }));
  // The worker starts now, with the exporter (made at startup, before the server takes requests),
  // not with the first sampled span: see worker-transport.ts, "Why the worker starts early".
  transport.prepare();

  const startTimer = (): void => {
    if (timer !== null || closed) return;
    timer = setTimeout(() => {
      timer = null;
      drainAll = true;
      pump();
    }, scheduleDelayMs);
    timer.unref();
  };

  /** Start the export loop unless it runs. */
  const pump = (): Promise<void> => {
    pumping ??= exportLoop().finally(() => {
      pumping = null;
      // Spans that arrived during the last export wait for the next tick of the schedule.
      if (sealed.length > 0) pump();
      else if (current !== null || unwritten.length > 0) startTimer();
    });
    return pumping;
  };

  /**
   * A batch just filled up. With no export running it leaves the queue now (as the SDK's
   * processor takes it), but the export starts on the next turn of the event loop, not inside
   * the request that finished the span.
   */
  const batchFilled = (batch: ExportBatch): void => {
    if (pumping !== null || handedOff !== null) {
      sealed.push(batch);
      return;
    }
    handedOff = batch;
    queued -= batch.count;
    setImmediate(pump);
  };

  /** Write the waiting spans into batches; a batch that fills up goes to the export loop. */
  const writeUnwritten = (): void => {
    const records = unwritten;
    if (records.length === 0) return;
    unwritten = [];
    for (let i = 0; i < records.length; i++) {
      const batch = (current ??= newBatch(spareBuffers.pop()));
      batch.add(records[i]!);
      if (batch.count >= batchSize) {
        current = null;
        batchFilled(batch);
      }
    }
    if (current !== null) startTimer();
  };

  /** The next batch to send, off the queue: the handed-off one, a full one, else (draining) the one being filled. */
  const nextBatch = (): ExportBatch | undefined => {
    writeUnwritten();
    let batch: ExportBatch | null | undefined = handedOff;
    if (batch !== null) {
      handedOff = null;
      return batch;
    }
    batch = sealed.shift();
    if (batch === undefined && drainAll && current !== null) {
      batch = current;
      current = null;
    }
    if (batch !== undefined) queued -= batch.count;
    return batch;
  };

  const exportLoop = async (): Promise<void> => {
    for (let batch = nextBatch(); batch !== undefined; batch = nextBatch()) {
      inFlight = batch.count;
      const free = await exportBatch(batch.finish(), batch.buffer, batch.count);
      inFlight = 0;
      if (free !== null && spareBuffers.length < SPARE_BUFFERS) spareBuffers.push(free);
    }
    drainAll = false;
  };

  /**
   * Send one batch (`body`, lying in its buffer `owner`), retrying as the policy says. Returns the
   * buffer when it is free again (every try's body was written out), else null. The transport may
   * hand back the bytes at a new place (they went to the export worker and back).
   */
  const exportBatch = async (body: Buffer, owner: Buffer, spans: number): Promise<Buffer | null> => {
    let reusable = true;
    for (let attempt = 1; ; attempt++) {
      const result = await transport.post(body, owner);
      // Given up at shutdown (already counted as dropped): neither a success nor a failure of the collector.
      if (abandoned) return null;
      reusable &&= result.bodySent;
      if (result.bytes !== null && result.owner !== null) {
        body = result.bytes;
        owner = result.owner;
      } else {
        reusable = false;
      }
      if (result.status >= 200 && result.status < 300) {
        const rejected = rejectedSpans(result.body, result.contentType, protocol, spans);
        counts.exported += spans - rejected;
        counts.rejected += rejected;
        requestSucceeded();
        return reusable ? owner : null;
      }
      // Without its bytes (they went down with the export worker) the batch cannot be tried again.
      const wait = result.bytes !== null && isRetryable(result.status) && attempt < policy.maxAttempts ? retryDelay(attempt, policy, result.retryAfter) : -1;
      const givingUp = wait < 0 || Date.now() + wait > deadline;
      requestFailed(result.status, result.error, attempt, spans, !givingUp);
      if (givingUp) {
        counts.failedBatches++;
        counts.failedSpans += spans;
        return reusable ? owner : null;
      }
      counts.retries++;
      await pause(wait);
      if (abandoned) return null;
    }
  };

  const flushWithin = async (timeoutMs: number): Promise<void> => {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    const until = Date.now() + Math.min(exportTimeoutMs, timeoutMs);
    deadline = Math.min(deadline, until);
    drainAll = true;
    try {
      // Loop: spans may have arrived while the previous loop was finishing.
      while ((queued > 0 || pumping !== null || handedOff !== null) && Date.now() < until) {
        let expired: NodeJS.Timeout | undefined;
        const late = new Promise<void>((resolve) => {
          // Not unref'd: the awaited flush holds the process until it is done or its deadline passes.
          expired = setTimeout(resolve, Math.max(0, until - Date.now()));
        });
        drainAll = true;
        await Promise.race([pump(), late]);
        clearTimeout(expired);
      }
    } finally {
      deadline = Infinity;
    }
  };

  const sink = ((record: SpanRecord): void => {
    if (!isSampledFlags(record.traceFlags)) return;
    // Ids are written unquoted (JSON) or read as hex (protobuf) without further checks: a record
    // from elsewhere whose ids are not lowercase hex is counted as dropped, never allowed to
    // break a batch. A server span keel made has ids it drew or parsed as lowercase hex: not checked again.
    if (closed || queued >= maxQueueSize || (!isKeelServerSpan(record) && !hasHexIds(record))) {
      counts.dropped++;
      return;
    }
    unwritten.push(record);
    queued++;
    // A full chunk is written now, so a batch that fills up leaves the queue at once (as the
    // SDK's processor takes it); its export still starts on the next turn (batchFilled).
    if (unwritten.length >= writeChunk) writeUnwritten();
    else startTimer();
  }) as OtlpExporter;

  Object.defineProperties(sink, {
    url: { value: url.href, enumerable: true },
    protocol: { value: protocol, enumerable: true },
    sampler: { value: options.sampler, enumerable: true },
  });
  sink.flush = (flushOptions?: OtlpFlushOptions): Promise<void> => {
    const timeoutMs = flushTimeout("flush", flushOptions);
    return closed ? (shutdownPromise ?? Promise.resolve()) : flushWithin(timeoutMs);
  };
  sink.shutdown = (flushOptions?: OtlpFlushOptions): Promise<void> => {
    const timeoutMs = flushTimeout("shutdown", flushOptions);
    if (shutdownPromise === null) {
      closed = true;
      shutdownPromise = flushWithin(timeoutMs).then(async () => {
        // What could not be sent before the deadline will never be: count it, and stop waiting for
        // the POST in flight (its answer, if any, is ignored; closing the transport cuts it off).
        const left = queued + inFlight + (handedOff?.count ?? 0);
        abandoned = true;
        counts.dropped += left;
        if (left > 0) warn("OTLP export abandoned at shutdown", { url: url.href, dropped: left, timeout_ms: Math.min(exportTimeoutMs, timeoutMs) });
        sealed = [];
        current = null;
        handedOff = null;
        unwritten = [];
        queued = 0;
        inFlight = 0;
        await transport.close();
      });
    }
    return shutdownPromise;
  };
  sink.stats = (): OtlpExporterStats => ({ ...counts, consecutiveFailures: streak, queued, transport: transport.kind });
  sink.healthCheck = (): HealthCheck => () => (streak === 0 ? "ok" : { status: "degraded", error: `${streak} export request${streak === 1 ? "" : "s"} failed in a row (last: ${lastProblem})` });
  // For tests: the export worker thread while it runs (null before the first export, inline, or after shutdown).
  Object.defineProperty(sink, EXPORT_WORKER, { value: () => (transport instanceof WorkerTransport ? transport.thread : null) });
  return sink;
}

/** The `timeoutMs` of flush()/shutdown() options (Infinity when absent); a bad value is a TypeError. */
function flushTimeout(method: string, options: OtlpFlushOptions | undefined): number {
  const t = options?.timeoutMs;
  if (t === undefined) return Infinity;
  if (typeof t !== "number" || !(t >= 0)) throw new TypeError(`OtlpExporter.${method}(): timeoutMs must be a number >= 0, got ${String(t)}`);
  return t;
}

/**
 * What went wrong with a request, for the health check: the status, or the kind of network
 * failure; never the message itself, which may name the collector's address.
 */
function describeFailure(status: number, error: Error | null): string {
  if (status > 0) return `the collector answered ${status}`;
  const message = error?.message ?? "";
  if (/timed out/i.test(message)) return "timed out";
  return /\b(E[A-Z][A-Z0-9_]+)\b/.exec(message)?.[1] ?? "no answer";
}

/** Key of a hidden method of every exporter returning its export worker thread (a Worker) or null; for tests. */
export const EXPORT_WORKER: unique symbol = Symbol.for("keel.otel.exportWorker");

/** True when `s` is `length` lowercase hex characters (a loop: cheaper per span than a regular expression). */
function isLowerHex(s: string, length: number): boolean {
  if (s.length !== length) return false;
  for (let i = 0; i < length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

function hasHexIds(record: SpanRecord): boolean {
  return isLowerHex(record.traceId, 32) && isLowerHex(record.spanId, 16) && (record.parentSpanId === "" || isLowerHex(record.parentSpanId, 16));
}
