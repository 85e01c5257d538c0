// The OTLP/HTTP span exporter, JSON (default, "http/json") or protobuf ("http/protobuf"): a
// SpanSink that queues finished spans and sends them in batches, like the SDK's
// BatchSpanProcessor (same defaults: every 5 s or every 512 spans, at most 2048 waiting). One
// export is in flight at a time; while it waits, spans queue up, and what does not fit is dropped
// and counted. Failed exports are retried (see retry-policy.ts); flush() and shutdown() send what
// is queued within a deadline. The schedule's timers are unref'd: the exporter keeps a process
// alive only while a POST is in flight (bounded by its timeout) and while a flush() or shutdown()
// someone awaits is running (bounded by exportTimeoutMs), so a flush on the way out is never cut
// off. POSTs are made by a worker thread (worker-transport.ts). Unsampled spans (trace flag bit 0
// clear) are never exported. A record is kept as it was handed over until it is written into a
// batch (in runs, see `unwritten`): it must not be changed afterwards.
import type { Logger } from "../index.js";
import { isSampledFlags, type SpanAttributeValue, type SpanRecord, type SpanSink } from "../service/index.js";
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
  /** Where failed exports are reported (warn); default: nowhere (see stats()). */
  logger?: Logger;
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
  /** Send everything queued now; resolves when sent, given up on, or past exportTimeoutMs. */
  flush(): Promise<void>;
  /** Flush, then refuse further spans (counted as dropped). Idempotent. */
  shutdown(): Promise<void>;
  stats(): OtlpExporterStats;
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
  /** Whether the transport was told to get ready (on the first queued span). */
  let prepared = false;
  let shutdownPromise: Promise<void> | null = null;
  const counts = { exported: 0, dropped: 0, failedBatches: 0, failedSpans: 0, rejected: 0, retries: 0 };

  const warn = (msg: string, fields: Record<string, unknown>): void => {
    if (logger !== undefined && logger.level <= 40) logger.log(40, msg, fields);
  };

  const target = { url, headers, contentType, timeoutMs };
  const transport: PostTransport =
    transportKind === "inline" ? new InlineTransport(target) : new WorkerTransport(target, (reason) => warn("OTLP export worker unavailable: exporting in-process", { reason }));

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
      const free = await exportBatch(batch.finish(), batch.buffer, batch.count);
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
        return reusable ? owner : null;
      }
      // Without its bytes (they went down with the export worker) the batch cannot be tried again.
      const wait = result.bytes !== null && isRetryable(result.status) && attempt < policy.maxAttempts ? retryDelay(attempt, policy, result.retryAfter) : -1;
      if (wait < 0 || Date.now() + wait > deadline) {
        counts.failedBatches++;
        counts.failedSpans += spans;
        warn("OTLP export failed", { url: url.href, status: result.status, attempts: attempt, spans, message: result.error?.message });
        return reusable ? owner : null;
      }
      counts.retries++;
      await pause(wait);
    }
  };

  const flushWithin = async (): Promise<void> => {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    const until = Date.now() + exportTimeoutMs;
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
    // break a batch.
    if (closed || queued >= maxQueueSize || !hasHexIds(record)) {
      counts.dropped++;
      return;
    }
    if (!prepared) {
      // Out of the request that finished the span: the worker thread starts on the next turn.
      prepared = true;
      setImmediate(() => {
        if (!closed) transport.prepare();
      });
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
  sink.flush = (): Promise<void> => (closed ? (shutdownPromise ?? Promise.resolve()) : flushWithin());
  sink.shutdown = (): Promise<void> => {
    if (shutdownPromise === null) {
      closed = true;
      shutdownPromise = flushWithin().then(async () => {
        // What could not be sent before the deadline will never be: count it.
        counts.dropped += queued;
        sealed = [];
        current = null;
        unwritten = [];
        queued = 0;
        await transport.close();
      });
    }
    return shutdownPromise;
  };
  sink.stats = (): OtlpExporterStats => ({ ...counts, queued, transport: transport.kind });
  // For tests: the export worker thread while it runs (null before the first export, inline, or after shutdown).
  Object.defineProperty(sink, EXPORT_WORKER, { value: () => (transport instanceof WorkerTransport ? transport.thread : null) });
  return sink;
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
