// `sse(source, options?)`: a server-sent event stream as a Reply. The body is an SseStream
// (stream.ts), which the writer pipes with backpressure and ends when the app drains.
import { Reply } from "../index.js";
import { SseStream, type SseOptions, type SseSource } from "./stream.js";

export const SSE_CONTENT_TYPE = "text/event-stream; charset=utf-8";

/**
 * A server-sent event stream (200 text/event-stream): events from an async iterable, or from a
 * function given `send` and `{ lastEventId, signal }` (see stream.ts). No content-length; proxies
 * are told not to buffer it (`x-accel-buffering: no`) nor transform it (`no-transform`, which the
 * compression layer honours too).
 *
 * @example
 * route.get("/ticks", [lastEventId()], (last) =>
 *   sse(async (send, { signal, lastEventId }) => {
 *     for (let n = Number(lastEventId ?? 0) + 1; !signal.aborted; n++) await send({ id: String(n), data: { n } });
 *   }, { lastEventId: last }),
 * );
 * @see docs/features/sse.md
 */
export function sse(source: SseSource, options?: SseOptions): Reply<200, SseStream> {
  return new Reply<200, SseStream>(200, new SseStream(source, options), {
    "content-type": SSE_CONTENT_TYPE,
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
  });
}
