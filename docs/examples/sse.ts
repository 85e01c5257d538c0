// Server-sent events: GET /ticks streams `tick` events, one every half second, each with an id.
// `?max=N` ends the stream after N events. A client that reconnects sends Last-Event-ID (an
// EventSource does it by itself) and the stream resumes after that id.
// Run: PORT=3000 npx tsx sse.ts, then curl -N 'localhost:3000/ticks?max=3'
import { App, query, route, t } from "keel";
import { lastEventId, sse } from "keel/sse";

const TICK_MS = 500;

/** Resolves after `ms`, or at once when `signal` aborts (the client went away, or shutdown). */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

const ticks = route.get("/ticks", [query(t.object({ max: t.optional(t.u32()) })), lastEventId()], (q, last) =>
  sse(async (send, { signal, lastEventId }) => {
    const first = Number(lastEventId ?? 0) + 1;
    const end = q.max === undefined ? Infinity : first + q.max;
    for (let n = first; n < end && !signal.aborted; n++) {
      // Awaiting send() is backpressure: it waits while the client is behind.
      await send({ event: "tick", id: String(n), data: { n } });
      if (n + 1 < end) await sleep(TICK_MS, signal);
    }
  }, { lastEventId: last }),
);

const app = new App().routes(ticks);

// On shutdown the server drains: open streams end after what was sent, then it closes.
const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());
const server = await app.listen({ port: Number(process.env["PORT"] ?? 3000), signal: stop.signal });
console.log(`listening on ${server.url}`);
await server.closed;
