// `GET /api/v1/events`: server-sent events. A `tick` every second (its id counts up, and a client
// that reconnects with Last-Event-ID continues from there) and a `job` event for every state
// change of the sample's job queue. `?max=N` ends the stream after N ticks (for scripts and
// tests); without it the stream lasts until the client goes away or the server drains.
//
// Bounded: at most `maxSubscribers` streams at once (past that the uniform 503 with Retry-After),
// and each holds at most EVENTS_BUFFER_BYTES of job events for a client that does not read them
// (then it is ended: keel/sse's policy), so the worst case is their product, ~64 MiB at the default.
import { ApiError, query, route, t } from "../index.js";
import { lastEventId, sse } from "../sse/index.js";
import type { JobQueue } from "../jobs/index.js";

export const TICK_MS = 1000;
/** Concurrent event streams by default (KEEL_EVENTS_MAX_SUBSCRIBERS). */
export const DEFAULT_EVENTS_MAX_SUBSCRIBERS = 1000;
/** Job events one stream may hold for a client that is behind: several hundred events. */
export const EVENTS_BUFFER_BYTES = 64 * 1024;
/** How long a refused subscriber is asked to wait, seconds. */
const RETRY_AFTER_SECONDS = "5";

const EventsQuery = t.object({ max: t.optional(t.integer({ range: { min: 1, max: 86_400 } })) });

/** A Last-Event-ID this stream wrote ("17"); anything else starts from 0. */
function resumeFrom(id: string | undefined): number {
  return id !== undefined && /^\d{1,9}$/.test(id) ? Number(id) : 0;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export interface EventRoutesOptions {
  /** Streams open at once; one more is refused with 503 and Retry-After (default 1000). */
  maxSubscribers?: number;
}

export function eventRoutes(jobs: JobQueue, options: EventRoutesOptions = {}) {
  const maxSubscribers = options.maxSubscribers ?? DEFAULT_EVENTS_MAX_SUBSCRIBERS;
  let subscribers = 0;
  return [
    route.get(
      "/api/v1/events",
      {
        tag: "events",
        summary: "Server-sent events: a tick every second and the job queue's state changes",
        responses: {
          200: { description: "An event stream (`event: tick` with `{ n, at }`, `event: job` with `{ id, type, state, attempt }`)", contentType: "text/event-stream", schema: t.string() },
          503: "Too many event streams are open; retry after Retry-After seconds",
        },
      },
      [lastEventId(), query(EventsQuery)],
      (last, q) => {
        if (subscribers >= maxSubscribers) {
          throw ApiError.serviceUnavailable("Too many event streams are open; retry later", { headers: { "retry-after": RETRY_AFTER_SECONDS } });
        }
        return sse(
          async (send, info) => {
            // Counted from here (run as the stream is made) until the source returns: it returns
            // when the stream closes for any reason, its signal aborting the wait.
            subscribers++;
            const stopJobs = jobs.onChange((c) => void send({ event: "job", data: { id: c.id, type: c.type, state: c.state, attempt: c.attempt } }));
            try {
              let n = resumeFrom(info.lastEventId);
              for (let sent = 0; q.max === undefined || sent < q.max; sent++) {
                await sleep(TICK_MS, info.signal);
                if (info.signal.aborted) return;
                n++;
                await send({ event: "tick", id: String(n), data: { n, at: new Date().toISOString() } });
              }
            } finally {
              subscribers--;
              stopJobs();
            }
          },
          { lastEventId: last, maxBufferedBytes: EVENTS_BUFFER_BYTES },
        );
      },
    ),
  ] as const;
}
