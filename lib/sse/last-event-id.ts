// The `lastEventId()` extractor. A Reply is a value made without the request, so the request's
// Last-Event-ID reaches an event source through the handler: this extractor reads it,
// `sse(source, { lastEventId })` hands it on.
import { Extractor } from "../index.js";

/**
 * The request's Last-Event-ID header (undefined when absent), sent by a reconnecting EventSource:
 * `route.get("/events", [lastEventId()], (last) => sse(source, { lastEventId: last }))`.
 *
 * @example
 * route.get("/events", [lastEventId()], (last) => sse(events(), { lastEventId: last }));
 * @see docs/features/sse.md
 */
export function lastEventId(): Extractor<string | undefined, false, { headers: { "last-event-id": string }; optional: true }> {
  return new Extractor<string | undefined, false, { headers: { "last-event-id": string }; optional: true }>(
    "header:last-event-id",
    (ctx) => ctx.header("last-event-id"),
    false,
    { parameters: [{ in: "header", name: "last-event-id", required: false, schema: { type: "string" } }] },
  );
}
