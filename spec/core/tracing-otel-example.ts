// keel's tracing channels as OpenTelemetry spans: a SERVER span per request named by its route,
// an INTERNAL child span around the handler. Written against the few members of
// @opentelemetry/api it uses, so it runs with the real API
// (`keelSpans(await import("@opentelemetry/api"))`) or any object of that shape.
import diagnostics from "node:diagnostics_channel";
import type { RequestTrace } from "../../lib/index.js";

export interface OtelSpan {
  setAttribute(key: string, value: string | number): unknown;
  recordException(exception: Error): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): unknown;
}

export interface OtelApi<C> {
  trace: {
    getTracer(name: string): { startSpan(name: string, options: { kind: number; attributes: Record<string, string | number> }, context?: C): OtelSpan };
    setSpan(context: C, span: OtelSpan): C;
  };
  context: { active(): C };
}

const SPAN_KIND_INTERNAL = 0;
const SPAN_KIND_SERVER = 1;
const STATUS_ERROR = 2;

/** Subscribe; returns the function that unsubscribes. */
export function keelSpans<C>(api: OtelApi<C>): () => void {
  const tracer = api.trace.getTracer("keel");
  const spans = new WeakMap<RequestTrace, OtelSpan>();
  const requestOf = new WeakMap<object, OtelSpan>(); // the request's span, by keel context
  const name = (m: RequestTrace): string => (m.route === null ? m.method : `${m.method} ${m.route}`);

  const finishRequest = (m: RequestTrace): void => {
    const span = spans.get(m);
    if (span === undefined) return;
    span.setAttribute("http.response.status_code", m.status);
    // HTTP semantic conventions: a server span is an error for 5xx only.
    if (m.status >= 500) span.setStatus({ code: STATUS_ERROR });
    span.end();
  };

  const request = diagnostics.tracingChannel<unknown, RequestTrace>("keel.request");
  const requestSubscribers = {
    start(m: RequestTrace) {
      const attributes: Record<string, string | number> = { "http.request.method": m.method };
      if (m.route !== null) attributes["http.route"] = m.route;
      const span = tracer.startSpan(name(m), { kind: SPAN_KIND_SERVER, attributes });
      spans.set(m, span);
      requestOf.set(m.context, span);
    },
    // A request answered synchronously has its status at `end`; otherwise it ends at asyncEnd.
    end(m: RequestTrace) {
      if (m.status !== 0) finishRequest(m);
    },
    asyncStart() {},
    asyncEnd: finishRequest,
    error(m: RequestTrace) {
      const err = m.error as { status?: number; cause?: unknown } | undefined;
      const thrown = err?.cause ?? err;
      if (m.status >= 500 && thrown instanceof Error) spans.get(m)?.recordException(thrown);
    },
  };

  const handler = diagnostics.tracingChannel<unknown, RequestTrace>("keel.handler");
  const handlerSubscribers = {
    start(m: RequestTrace) {
      const parent = requestOf.get(m.context);
      const ctx = parent === undefined ? api.context.active() : api.trace.setSpan(api.context.active(), parent);
      spans.set(m, tracer.startSpan(`handler ${name(m)}`, { kind: SPAN_KIND_INTERNAL, attributes: {} }, ctx));
    },
    end(m: RequestTrace) {
      // A handler that returned a promise ends at asyncEnd.
      if (typeof (m.result as { then?: unknown } | undefined)?.then !== "function") spans.get(m)?.end();
    },
    asyncStart() {},
    asyncEnd(m: RequestTrace) {
      spans.get(m)?.end();
    },
    error(m: RequestTrace) {
      const span = spans.get(m);
      if (span === undefined) return;
      if (m.error instanceof Error) span.recordException(m.error);
      span.setStatus({ code: STATUS_ERROR });
    },
  };

  request.subscribe(requestSubscribers);
  handler.subscribe(handlerSubscribers);
  return () => {
    request.unsubscribe(requestSubscribers);
    handler.unsubscribe(handlerSubscribers);
  };
}
