// tracedFetch(ctx, input, init?): fetch() inside a CLIENT child span of the request's span, with
// the trace carried to the callee: `traceparent` names the client span as the parent (flags as
// sampled for this trace) and the caller's `tracestate` is passed on. The span records the
// semantic-convention attributes of an HTTP client call; a 4xx/5xx answer or a throw marks it
// failed. Without a tracing layer it is plain fetch().
import type { Context } from "../index.js";
import { formatTraceParent, getRequestSpan, span, type ActiveSpan } from "../service/index.js";
import { forwardableTraceState, TRACESTATE_HEADER } from "./trace-state.js";

type FetchInput = string | URL | Request;

function targetOf(input: FetchInput): URL | null {
  try {
    return new URL(input instanceof Request ? input.url : String(input));
  } catch {
    return null; // a relative URL: fetch() itself will refuse it
  }
}

/** url.full without credentials (the semantic conventions forbid recording them). */
function fullUrl(url: URL): string {
  if (url.username === "" && url.password === "") return url.href;
  const copy = new URL(url.href);
  copy.username = "REDACTED";
  copy.password = "REDACTED";
  return copy.href;
}

function defaultPort(protocol: string): number | undefined {
  return protocol === "https:" ? 443 : protocol === "http:" ? 80 : undefined;
}

export function tracedFetch(ctx: Context, input: FetchInput, init?: RequestInit): Promise<Response> {
  const root = getRequestSpan(ctx);
  if (root === null) return fetch(input, init);
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  const incomingState = root.parentSpanId === "" ? null : forwardableTraceState(ctx.req.headers[TRACESTATE_HEADER]);
  return span(
    ctx,
    method,
    async (client: ActiveSpan) => {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      headers.set("traceparent", formatTraceParent(client.traceId, client.spanId, client.traceFlags));
      if (incomingState !== null && !headers.has(TRACESTATE_HEADER)) headers.set(TRACESTATE_HEADER, incomingState);
      client.set("http.request.method", method);
      const url = targetOf(input);
      if (url !== null) {
        client.set("url.full", fullUrl(url));
        client.set("server.address", url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname);
        const port = url.port === "" ? defaultPort(url.protocol) : Number(url.port);
        if (port !== undefined) client.set("server.port", port);
      }
      const response = await fetch(input, { ...init, headers });
      client.set("http.response.status_code", response.status);
      if (response.status >= 400) client.fail(String(response.status));
      return response;
    },
    { kind: "client" },
  );
}
