// `GET /api/v1/events`: server-sent events. A `tick` every second (its id counts up, and a client
// that reconnects with Last-Event-ID continues from there) and a `job` event for every state
// change of the sample's job queue. `?max=N` ends the stream after N ticks (for scripts and
// tests); without it the stream lasts until the client goes away or the server drains.
import { query, route, t } from "../index.js";
import { lastEventId, sse } from "../sse/index.js";
import type { JobQueue } from "../jobs/index.js";

export const TICK_MS = 1000;

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

export function eventRoutes(jobs: JobQueue) {
  return [
    route.get(
      "/api/v1/events",
      {
        tag: "events",
        summary: "Server-sent events: a tick every second and the job queue's state changes",
        responses: { 200: { description: "An event stream (`event: tick` with `{ n, at }`, `event: job` with `{ id, type, state, attempt }`)", contentType: "text/event-stream", schema: t.string() } },
      },
      [lastEventId(), query(EventsQuery)],
      (last, q) =>
        sse(
          async (send, info) => {
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
              stopJobs();
            }
          },
          { lastEventId: last },
        ),
    ),
  ] as const;
}
