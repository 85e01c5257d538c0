// `GET /api/v1/events`: server-sent events. A `tick` every second (its id counts up, and a client
// that reconnects with Last-Event-ID continues from there) and a `job` event for every state
// change of the sample's job queue. `?max=N` ends the stream after N ticks (for scripts and
// tests); without it the stream lasts until the client goes away or the server drains.
//
// Bounded: at most `maxSubscribers` streams at once and `maxPerClient` from one client address
// (past either, the uniform 503 with Retry-After: one address cannot take every slot), and each holds at most EVENTS_BUFFER_BYTES of job events for a client that does not read them
// (then it is ended: keel/sse's policy), so the worst case is their product, ~64 MiB at the default.
import { ApiError, query, requestContext, route, t } from "../index.js";
import { lastEventId, sse } from "../sse/index.js";
import type { JobQueue } from "../jobs/index.js";

export const TICK_MS = 1000;
/** Concurrent event streams by default (KEEL_EVENTS_MAX_SUBSCRIBERS). */
export const DEFAULT_EVENTS_MAX_SUBSCRIBERS = 1000;
/** Concurrent event streams from one client address by default. */
export const DEFAULT_EVENTS_MAX_PER_CLIENT = 16;
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
  /** Streams open at once from one client address (default 16); one more is refused the same way. */
  maxPerClient?: number;
}

export function eventRoutes(jobs: JobQueue, options: EventRoutesOptions = {}) {
  const maxSubscribers = options.maxSubscribers ?? DEFAULT_EVENTS_MAX_SUBSCRIBERS;
  const maxPerClient = options.maxPerClient ?? DEFAULT_EVENTS_MAX_PER_CLIENT;
  let subscribers = 0;
  // Streams per client address; an entry lives while its count is above 0, so the map holds at
  // most maxSubscribers entries.
  const byClient = new Map<string, number>();
  const tooMany = (message: string): ApiError => ApiError.serviceUnavailable(message, { headers: { "retry-after": RETRY_AFTER_SECONDS } });
  return [
    route.get(
      "/api/v1/events",
      {
        tag: "events",
        summary: "Server-sent events: a tick every second and the job queue's state changes",
        responses: {
          200: { description: "An event stream (`event: tick` with `{ n, at }`, `event: job` with `{ id, type, state, attempt }`)", contentType: "text/event-stream", schema: t.string() },
          503: "Too many event streams are open (in all, or from this client); retry after Retry-After seconds",
        },
      },
      [lastEventId(), query(EventsQuery), requestContext()],
      (last, q, request) => {
        const client = request.remoteAddress;
        if (subscribers >= maxSubscribers) throw tooMany("Too many event streams are open; retry later");
        if ((byClient.get(client) ?? 0) >= maxPerClient) throw tooMany("Too many event streams are open from this client; retry later");
        return sse(
          async (send, info) => {
            // Counted from here (run as the stream is made) until the source returns: it returns
            // when the stream closes for any reason, its signal aborting the wait.
            subscribers++;
            byClient.set(client, (byClient.get(client) ?? 0) + 1);
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
              const left = byClient.get(client)! - 1;
              if (left === 0) byClient.delete(client);
              else byClient.set(client, left);
              stopJobs();
            }
          },
          { lastEventId: last, maxBufferedBytes: EVENTS_BUFFER_BYTES },
        );
      },
    ),
  ] as const;
}
