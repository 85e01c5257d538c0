// keel/sse: server-sent events (text/event-stream). `sse(source, options?)` answers a route with
// an event stream fed by an async iterable or by a function given `send` (with backpressure),
// with keep-alive comments while idle, the source stopped when the client goes away, and the
// stream ended after what was sent when the app drains; `lastEventId()` reads the
// Last-Event-ID a reconnecting client sends, for `sse(source, { lastEventId })`.
export { sse, SSE_CONTENT_TYPE } from "./sse.js";
export { SseStream, type SseOptions, type SseSender, type SseSource, type SseSourceFunction, type SseSourceInfo } from "./stream.js";
export type { SseEvent } from "./event.js";
export { lastEventId } from "./last-event-id.js";
