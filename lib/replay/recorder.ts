// The recording layer: for a sample of routed requests, capture the request (before the route
// runs) and the reply (after), and hand the record to the store without delaying the answer.
//
// Request bodies are read through `ctx.body()`, which reads once and shares the bytes, so the
// route's own body extractor gets the same body. They are read only when that costs nothing
// extra or is bounded by the recorder's own cap:
// - the route has a body extractor (it reads the body anyway, within its body limit);
// - or the declared Content-Length is at most `maxRequestBody`.
// A chunked body on a route that does not read it, a binary body, or a compressed one is not
// read: the record says so with a placeholder. The read happens before the route's own layers
// run (an auth layer that refuses the request then finds the body read already).
// Routes whose extractors read `ctx.req` as a stream (multipart uploads) are not textual and so
// never pre-read; a custom extractor doing the same for a textual type should be filtered out.
import { Buffer } from "node:buffer";
import { performance } from "node:perf_hooks";
import { randomUUID } from "node:crypto";
import { declaredLength, isStreamBody, LOG_LEVELS } from "../plugin.js";
import { type Context, type Layer, type MatchedRoute, type Next, type Reply, RouteDefinition } from "../index.js";
import { captureBody, EMPTY_BODY, omittedBody, textualKind } from "./body-capture.js";
import type { RecordedBody, ReplayRecord } from "./record.js";
import { type FieldPolicy, recordHeaders, redactPairs } from "./redaction.js";
import { compileRouteFilter, perRoute, type ReplayRouteFilter } from "./route-filter.js";
import type { ReplayStore } from "./store.js";

export const DEFAULT_MAX_REQUEST_BODY = 64 * 1024;
export const DEFAULT_MAX_RESPONSE_BODY = 256 * 1024;

export interface RecorderSettings {
  store: ReplayStore;
  sampleRate: number;
  routes: ReplayRouteFilter | undefined;
  maxRequestBody: number;
  maxResponseBody: number;
  /** Never recorded, either direction. */
  secretHeaders: ReadonlySet<string>;
  /** Request headers recorded with their value (the rest: "[redacted]"). */
  recordedHeaders: ReadonlySet<string>;
  /** Query parameters whose values are kept. */
  allowQuery: ReadonlySet<string>;
  /** Request bodies: JSON strings and form values kept under these names only. */
  requestFields: FieldPolicy;
  /** Response bodies: secret-named fields redacted. */
  responseFields: FieldPolicy;
  /** Record text/* and XML request bodies. */
  requestTextBodies: boolean;
  /** Patterns never recorded (the admin routes' own). */
  excludePrefix: string | null;
  random: () => number;
}

function routeReadsBody(route: MatchedRoute): boolean {
  return route instanceof RouteDefinition && route.extractors.some((e) => e.consumesBody);
}

function firstHeader(value: string | number | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? (value as readonly string[])[0] : String(value);
}

export function recorderLayer(settings: RecorderSettings): Layer {
  const { sampleRate, random } = settings;
  const filter = compileRouteFilter(settings.routes);
  const exclude = settings.excludePrefix;
  const recorded = perRoute((route) => {
    if (exclude !== null && (route.pattern === exclude || route.pattern.startsWith(exclude + "/"))) return false;
    return filter(route.method, route.pattern);
  });
  const readsBody = perRoute(routeReadsBody);
  const queryPolicy: FieldPolicy = { allowed: settings.allowQuery, secrets: settings.requestFields.secrets };

  async function requestBody(ctx: Context, route: MatchedRoute): Promise<RecordedBody> {
    const declared = declaredLength(ctx.req);
    if (declared === 0) return EMPTY_BODY;
    const size = declared === -1 ? null : declared;
    const contentType = ctx.header("content-type");
    const kind = textualKind(contentType);
    // Text replay does not understand is not read at all: its placeholder needs only the length.
    if (kind === null || (!settings.requestTextBodies && (kind === "text" || kind === "xml"))) return omittedBody(contentType ?? "no content-type", size);
    const encoding = ctx.header("content-encoding");
    if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") return omittedBody(`${encoding.trim()}-encoded`, size);
    if (!readsBody(route) && (size === null || size > settings.maxRequestBody)) return omittedBody("not read by the route", size);
    let bytes: Buffer;
    try {
      bytes = await ctx.body();
    } catch {
      // The same rejection waits in ctx.body() for the route's extractor, which answers it.
      return omittedBody("the body could not be read", size);
    }
    return captureBody({ bytes, contentType, contentEncoding: undefined, cap: settings.maxRequestBody, policy: settings.requestFields, text: settings.requestTextBodies });
  }

  function responseBody(reply: Reply): RecordedBody {
    const h = reply.headers;
    let body: Reply["body"];
    try {
      body = reply.body;
    } catch {
      return omittedBody("the body could not be serialized", null);
    }
    if (body === null) return EMPTY_BODY;
    if (isStreamBody(body)) {
      const length = Number(firstHeader(h["content-length"]));
      return omittedBody("streamed", Number.isSafeInteger(length) ? length : null);
    }
    const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    return captureBody({
      bytes,
      contentType: firstHeader(h["content-type"]),
      contentEncoding: firstHeader(h["content-encoding"]),
      cap: settings.maxResponseBody,
      policy: settings.responseFields,
      text: true,
    });
  }

  async function record(ctx: Context, next: Next, route: MatchedRoute): Promise<Reply> {
    const started = performance.now();
    const recordedAt = new Date().toISOString();
    const reqBody = await requestBody(ctx, route);
    const reply = await next(ctx);
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    const rec: ReplayRecord = {
      id: randomUUID(),
      recorded_at: recordedAt,
      request: {
        method: ctx.method,
        path: ctx.path,
        query: redactPairs(ctx.rawQuery, queryPolicy),
        headers: recordHeaders(ctx.req.headers, settings.secretHeaders, settings.recordedHeaders),
        ...reqBody,
      },
      response: {
        status: reply.status,
        headers: recordHeaders(reply.headers, settings.secretHeaders),
        ...responseBody(reply),
      },
      meta: {
        route: route.pattern,
        duration_ms: durationMs,
        request_id: ctx.requestId !== "" ? ctx.requestId : ctx.header("x-request-id") ?? null,
      },
    };
    // Not awaited: the answer does not wait for the disk. A store that fails costs a log line.
    const failed = (err: unknown): void => {
      const logger = ctx.runtime.logger;
      if (LOG_LEVELS.warn >= logger.level) logger.log(LOG_LEVELS.warn, "replay: the recording could not be saved", { message: err instanceof Error ? err.message : String(err) });
    };
    try {
      settings.store.save(rec).catch(failed);
    } catch (err) {
      failed(err);
    }
    return reply;
  }

  return function replayRecorder(ctx: Context, next: Next): Promise<Reply> {
    const route = ctx.route;
    // Unrouted requests (404, 405) are not recorded: a scan of random paths would flush the store.
    if (route === null || !recorded(route)) return next(ctx);
    if (sampleRate <= 0 || !(random() < sampleRate)) return next(ctx);
    return record(ctx, next, route);
  };
}
