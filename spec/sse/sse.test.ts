// keel/sse: server-sent events read incrementally over real sockets. The wire format byte for
// byte (event, id, retry, comments, multi-line and JSON data), the headers, keep-alive comments
// while idle, Last-Event-ID handed to the source, the source stopped when the client goes away
// (function signal aborted, iterable return()ed), backpressure, a malformed event thrown
// synchronously answered with the uniform 500, a failure mid-stream logged once, and the
// compression and cache layers leaving the stream alone.
import assert from "node:assert/strict";
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { after, before, describe, it } from "node:test";
import { App, route, silentLogger, type ListeningServer, type Logger } from "../../lib/index.js";
import { lastEventId, sse, type SseEvent } from "../../lib/sse/index.js";
import { compression, responseCache } from "../../lib/middleware/index.js";
import { ERROR_ID, send } from "../support/http.js";

const BOUND_MS = 5000;

/** Resolve with `p`, or fail once `ms` passed (a bound on waiting, not a timing assertion). */
function within<T>(p: Promise<T>, label: string, ms = BOUND_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up waiting: ${label}`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

/** A promise and its resolver, for steps the test and a source wait on. */
function signalled<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

interface EventStreamClient {
  status: number;
  headers: IncomingHttpHeaders;
  res: IncomingMessage;
  /** Everything received so far. */
  text(): string;
  /** Wait (bounded) until the received text satisfies `pred`. */
  waitFor(pred: (text: string) => boolean, label: string): Promise<string>;
  /** Settles once the response ended, failed or closed. */
  closed: Promise<void>;
  close(): void;
}

/** Open a response and read it as it arrives. */
function openStream(url: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<EventStreamClient> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "GET", headers: options.headers, agent: false }, (res) => {
      let received = "";
      let wake: (() => void) | null = null;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        received += chunk;
        wake?.();
      });
      const closed = new Promise<void>((done) => {
        res.on("close", () => done());
        res.on("error", () => done());
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        res,
        text: () => received,
        closed,
        close: () => req.destroy(),
        waitFor(pred, label) {
          const check = new Promise<string>((ok) => {
            const test = (): void => {
              if (pred(received)) {
                wake = null;
                ok(received);
              }
            };
            wake = test;
            test();
          });
          return within(check, `${label} (received ${JSON.stringify(received.slice(0, 300))})`);
        },
      });
    });
    req.on("error", reject);
    req.end();
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe("sse() over a socket", () => {
  let server: ListeningServer;
  const state = {
    functionStopped: signalled<{ aborted: boolean; sentAfterClose: Promise<void> }>(),
    generatorFinally: signalled(),
    iteratorReturned: signalled(),
    headAborted: signalled(),
    blocked: signalled(),
    go: signalled(),
    lastSeen: [] as Array<string | undefined>,
  };

  before(async () => {
    const app = new App({ logger: silentLogger }).routes(
      route.get("/format", [], () =>
        sse((send) => {
          void send("hello");
          void send({ event: "tick", id: "1", data: "a" });
          void send({ data: "l1\nl2\r\nl3\rl4" });
          void send({ data: { n: 1, s: "x\ny", list: [true, null] } });
          void send({ retry: 0 });
          void send({ comment: "note\nsecond", event: "", id: "", retry: 2500, data: "" });
          void send({});
          void send({ data: 42 });
        }),
      ),
      route.get("/iterable", [], () =>
        sse(
          (async function* (): AsyncGenerator<SseEvent | string> {
            yield "one";
            await sleep(1);
            yield { event: "two", data: ["x", 2] };
            yield { id: "3", data: "multi\n\nline" };
          })(),
        ),
      ),
      route.get("/idle", [], () =>
        sse((_send, { signal }) => new Promise<void>((done) => signal.addEventListener("abort", () => done())), { keepAliveMs: 20 }),
      ),
      route.get("/late", [], () =>
        sse(async (send) => {
          await state.go.promise;
          await send("late");
        }, { keepAliveMs: 0 }),
      ),
      route.get("/resume", [lastEventId()], (last) =>
        sse(
          (send, info) => {
            state.lastSeen.push(info.lastEventId);
            void send({ id: String(Number(info.lastEventId ?? "0") + 1), data: `after ${info.lastEventId ?? "nothing"}` });
          },
          { lastEventId: last },
        ),
      ),
      route.get("/forever", [], () =>
        sse(async (send, { signal }) => {
          let n = 0;
          try {
            while (!signal.aborted) {
              await send({ id: String(++n), data: "tick" });
              await sleep(5);
            }
          } finally {
            state.functionStopped.resolve({ aborted: signal.aborted, sentAfterClose: send("late") });
          }
        }),
      ),
      route.get("/forever-generator", [], () =>
        sse(
          (async function* () {
            try {
              for (let n = 1; ; n++) {
                yield { id: String(n), data: "tick" };
                await sleep(5);
              }
            } finally {
              state.generatorFinally.resolve();
            }
          })(),
        ),
      ),
      route.get("/stuck-iterator", [], () => {
        let first = true;
        const iterator: AsyncIterableIterator<string> = {
          [Symbol.asyncIterator]() {
            return iterator;
          },
          next() {
            if (first) {
              first = false;
              return Promise.resolve({ done: false, value: "first" });
            }
            return new Promise(() => {}); // never settles: only return() can stop this source
          },
          return() {
            state.iteratorReturned.resolve();
            return Promise.resolve({ done: true, value: undefined });
          },
        };
        return sse(iterator);
      }),
      route.get("/head", [], () =>
        sse((send, { signal }) => {
          void send("never sent to a HEAD");
          return new Promise<void>((done) =>
            signal.addEventListener("abort", () => {
              state.headAborted.resolve();
              done();
            }),
          );
        }),
      ),
      route.get("/bulk", [], () =>
        sse(async (send) => {
          const payload = "x".repeat(4096);
          for (let i = 0; i < 2000; i++) {
            let settled = false;
            const p = send({ id: String(i), data: payload }).then(() => (settled = true));
            await Promise.resolve();
            await Promise.resolve();
            if (!settled) state.blocked.resolve();
            await p;
          }
        }),
      ),
      route.get("/bad-event", [], () => sse((send) => void send({ event: "a\nb", data: "x" }))),
      route.get("/bad-event-cr", [], () => sse((send) => void send({ event: "a\rb", data: "x" }))),
      route.get("/bad-event-nul", [], () => sse((send) => void send({ event: "a\0b", data: "x" }))),
      route.get("/bad-id-nul", [], () => sse((send) => void send({ id: "7\0", data: "x" }))),
      route.get("/bad-retry/{value}", [], () => sse((send) => void send({ retry: -1 }))),
      route.get("/bad-retry-fraction", [], () => sse((send) => void send({ retry: 1.5 }))),
      route.get("/bad-data", [], () => sse((send) => void send({ data: () => 1 }))),
      route.get("/bad-keepalive", [], () => sse((send) => void send("x"), { keepAliveMs: -1 })),
      route.get("/throws", [], () =>
        sse(() => {
          throw new Error("source failed at once");
        }),
      ),
    );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("writes events byte for byte: data lines per line (LF, CRLF, CR), event, id, retry, comments, JSON", async () => {
    const s = await openStream(server.url + "/format");
    assert.equal(s.status, 200);
    assert.equal(s.headers["content-type"], "text/event-stream; charset=utf-8");
    assert.equal(s.headers["cache-control"], "no-cache, no-transform");
    assert.equal(s.headers["x-accel-buffering"], "no");
    assert.equal(s.headers["content-length"], undefined);
    assert.equal(s.headers["transfer-encoding"], "chunked");
    await within(s.closed, "end of /format");
    assert.equal(
      s.text(),
      "data: hello\n\n" +
        "event: tick\nid: 1\ndata: a\n\n" +
        "data: l1\ndata: l2\ndata: l3\ndata: l4\n\n" +
        'data: {"n":1,"s":"x\\ny","list":[true,null]}\n\n' +
        "retry: 0\n\n" +
        ": note\n: second\nevent: \nid: \nretry: 2500\ndata: \n\n" +
        "data: 42\n\n",
    );
  });

  it("pulls an async iterable: strings are data, objects are events, the stream ends with it", async () => {
    const s = await openStream(server.url + "/iterable");
    await within(s.closed, "end of /iterable");
    assert.equal(s.text(), 'data: one\n\nevent: two\ndata: ["x",2]\n\nid: 3\ndata: multi\ndata: \ndata: line\n\n');
  });

  it("sends `: keep-alive` comments while the source is idle", async () => {
    const s = await openStream(server.url + "/idle");
    assert.equal(s.status, 200);
    // The headers arrived before any event: the stream opens at once.
    const text = await s.waitFor((t) => t.includes(": keep-alive\n\n: keep-alive\n\n"), "two keep-alive comments");
    assert.match(text, /^(: keep-alive\n\n)+$/);
    s.close();
  });

  it("sends the headers at once, before the first event", async () => {
    // openStream resolves on the response headers; the source sends only after that.
    const s = await within(openStream(server.url + "/late"), "response headers before any event");
    assert.equal(s.text(), "");
    state.go.resolve();
    await within(s.closed, "end of /late");
    assert.equal(s.text(), "data: late\n\n");
  });

  it("hands the request's Last-Event-ID to the source (undefined when absent)", async () => {
    const resumed = await send(server.url + "/resume", { headers: { "last-event-id": "41" } });
    assert.equal(resumed.body, "id: 42\ndata: after 41\n\n");
    const fresh = await send(server.url + "/resume");
    assert.equal(fresh.body, "id: 1\ndata: after nothing\n\n");
    assert.deepEqual(state.lastSeen, ["41", undefined]);
  });

  it("stops a function source when the client disconnects: signal aborted, finally runs, later sends write nothing", async () => {
    const s = await openStream(server.url + "/forever");
    await s.waitFor((t) => t.includes("id: 2\n"), "two events");
    s.close();
    const stopped = await within(state.functionStopped.promise, "the source's finally block");
    assert.equal(stopped.aborted, true);
    await within(stopped.sentAfterClose, "send() after close resolves");
  });

  it("stops an async generator when the client disconnects (its finally block runs)", async () => {
    const s = await openStream(server.url + "/forever-generator");
    await s.waitFor((t) => t.includes("id: 2\n"), "two events");
    s.close();
    await within(state.generatorFinally.promise, "the generator's finally block");
  });

  it("calls return() on an iterator waiting for its next event when the client disconnects", async () => {
    const s = await openStream(server.url + "/stuck-iterator");
    await s.waitFor((t) => t === "data: first\n\n", "the first event");
    s.close();
    await within(state.iteratorReturned.promise, "iterator.return()");
  });

  it("answers HEAD with the headers only and stops the source", async () => {
    const r = await send(server.url + "/head", { method: "HEAD" });
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "text/event-stream; charset=utf-8");
    assert.equal(r.body, "");
    await within(state.headAborted.promise, "the HEAD source's signal");
  });

  it("makes send() wait while the client does not read (backpressure), then delivers every event in order", async () => {
    const s = await openStream(server.url + "/bulk");
    s.res.pause();
    await within(state.blocked.promise, "a send() held back by a full socket buffer");
    s.res.resume();
    await within(s.closed, "end of /bulk", 20_000);
    const ids = [...s.text().matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    assert.equal(ids.length, 2000);
    assert.ok(ids.every((id, i) => id === i));
  });

  it("answers a malformed event thrown before the stream starts with the uniform 500", async () => {
    for (const path of ["/bad-event", "/bad-event-cr", "/bad-event-nul", "/bad-id-nul", "/bad-retry/neg", "/bad-retry-fraction", "/bad-data", "/bad-keepalive", "/throws"]) {
      const r = await send(server.url + path);
      assert.equal(r.status, 500, path);
      assert.match(String(r.headers["content-type"]), /^application\/json/, path);
      const body = JSON.parse(r.body) as { error: { type: string }; error_id: string };
      assert.equal(body.error.type, "internal_error", path);
      assert.match(body.error_id, ERROR_ID, path);
    }
  });
});

describe("sse() failing mid-stream", () => {
  let server: ListeningServer;
  const errors: Array<{ msg: string; fields: Record<string, unknown> | undefined }> = [];
  let logged = signalled();
  const logger: Logger = {
    level: 0,
    log(level, msg, fields) {
      if (level < 50) return;
      errors.push({ msg, fields });
      logged.resolve();
    },
  };

  before(async () => {
    const app = new App({ logger }).routes(
      route.get("/fails", [], () =>
        sse(async (send) => {
          await send({ id: "1", data: "before" });
          await sleep(1);
          throw new Error("source broke");
        }),
      ),
      route.get("/fails-iterable", [], () =>
        sse(
          (async function* () {
            yield "before";
            throw new Error("iterable broke");
          })(),
        ),
      ),
    );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("ends the stream after what was sent and logs the error once", async () => {
    for (const [path, message] of [["/fails", "source broke"], ["/fails-iterable", "iterable broke"]] as const) {
      errors.length = 0;
      logged = signalled();
      const s = await openStream(server.url + path);
      assert.equal(s.status, 200);
      // The server logs in its pipeline's callback and the client sees the close on its own socket:
      // Node promises no order between the two (Node 24 often reports the close first), so wait
      // for both, then let pending callbacks run before counting the log lines.
      await within(Promise.all([s.closed, logged.promise]), `${path} closes and the failure is logged`);
      await new Promise<void>((r) => setImmediate(r));
      await new Promise<void>((r) => setImmediate(r));
      assert.match(s.text(), /^(id: 1\n)?data: before\n\n$/);
      assert.equal(errors.length, 1, path);
      assert.equal(errors[0]!.fields?.["message"], message);
    }
  });
});

describe("sse() with the compression and cache layers", () => {
  let server: ListeningServer;
  let runs = 0;
  const firstSeen = signalled();

  before(async () => {
    const app = new App({ logger: silentLogger })
      .layer(compression({ threshold: 0 }))
      .layer(responseCache())
      .routes(
        route.get("/live", [], () => {
          runs++;
          return sse(async (send) => {
            await send({ id: "1", data: "x".repeat(2000) });
            // The second event waits for the client to have read the first: a layer that buffered
            // the stream (compression, cache) would never let the first one through.
            await firstSeen.promise;
            await send({ id: "2", data: "done" });
          });
        }),
      );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("sends events uncompressed and unbuffered, and never caches the stream", async () => {
    const s = await openStream(server.url + "/live", { headers: { "accept-encoding": "gzip, br" } });
    assert.equal(s.headers["content-encoding"], undefined);
    await s.waitFor((t) => t.includes("id: 1\ndata: xx"), "the first event before the source continues");
    firstSeen.resolve();
    await within(s.closed, "end of /live");
    assert.equal(s.text(), `id: 1\ndata: ${"x".repeat(2000)}\n\nid: 2\ndata: done\n\n`);
    const again = await send(server.url + "/live", { headers: { "accept-encoding": "gzip" } });
    assert.equal(again.headers["x-cache"], "MISS");
    assert.equal(again.headers["content-encoding"], undefined);
    assert.equal(runs, 2);
  });
});

describe("sse() through app.inject", () => {
  it("collects what the source sent until it ended", async () => {
    const app = new App({ logger: silentLogger }).routes(
      route.get("/events", [lastEventId()], (last) =>
        sse(
          async (send, { lastEventId: id }) => {
            await send({ event: "resume", data: { from: id ?? null } });
            await sleep(1);
            await send("bye");
          },
          { lastEventId: last },
        ),
      ),
    );
    const r = await app.inject({ url: "/events", headers: { "Last-Event-ID": "9" } });
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "text/event-stream; charset=utf-8");
    assert.equal(r.headers["content-length"], undefined);
    assert.equal(r.body, 'event: resume\ndata: {"from":"9"}\n\ndata: bye\n\n');
  });

  it("accepts retry 0 and keepAliveMs 0 (the boundaries) and refuses retry -1", async () => {
    const app = new App({ logger: silentLogger }).routes(
      route.get("/ok", [], () => sse((send) => void send({ retry: 0 }), { keepAliveMs: 0 })),
      route.get("/bad", [], () => sse((send) => void send({ retry: -1 }))),
    );
    const ok = await app.inject({ url: "/ok" });
    assert.equal(ok.status, 200);
    assert.equal(ok.body, "retry: 0\n\n");
    const bad = await app.inject({ url: "/bad" });
    assert.equal(bad.status, 500);
    assert.equal(bad.json<{ error: { type: string } }>().error.type, "internal_error");
  });
});

describe("event streams on graceful shutdown", () => {
  it("end after what was sent when the server drains (the client sees a clean end, not a reset), and the drain does not wait for the deadline", async () => {
    const stopped = signalled();
    const app = new App({ logger: silentLogger }).routes(
      route.get("/ticks", [], () =>
        sse(async (send, info) => {
          await send({ data: "first" });
          await new Promise<void>((resolve) => info.signal.addEventListener("abort", () => resolve(), { once: true }));
          stopped.resolve();
        }),
      ),
    );
    const server = await app.listen({ port: 0, shutdownTimeout: 60_000 });
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest(server.url + "/ticks", resolve);
      req.on("error", reject);
      req.end();
    });
    let text = "";
    res.setEncoding("utf8");
    const ended = new Promise<string>((resolve, reject) => {
      res.on("data", (d: string) => (text += d));
      res.on("end", () => resolve("end"));
      res.on("aborted", () => reject(new Error("the stream was cut off")));
      res.on("error", reject);
    });
    for (let i = 0; i < 100 && !text.includes("first"); i++) await new Promise((r) => setTimeout(r, 10));
    assert.match(text, /data: first\n\n/);
    const closing = server.close();
    assert.equal(await within(ended, "the stream's end"), "end");
    await within(closing, "the drain (its deadline is 60 s)");
    await within(stopped.promise, "the source stopped (its signal aborted)");
  });

  it("a stream started after the drain began ends at once", async () => {
    const started = signalled();
    const release = signalled();
    const app = new App({ logger: silentLogger }).routes(
      route.get("/ticks", [], async () => {
        started.resolve();
        await release.promise;
        return sse(async (send, info) => {
          await send({ data: "x" });
          // Never ends by itself: only the drain's close can end this stream.
          await new Promise<void>((resolve) => info.signal.addEventListener("abort", () => resolve(), { once: true }));
        });
      }),
    );
    const server = await app.listen({ port: 0, shutdownTimeout: 60_000 });
    const answer = send(server.url + "/ticks");
    await within(started.promise, "the handler to start");
    const closing = server.close();
    // Long-lived answers are told to end just before the listener closes: the stream the handler
    // makes from here on starts after that.
    await within((async () => {
      while (server.server.listening) await new Promise<void>((r) => setImmediate(r));
    })(), "the listener to close");
    release.resolve();
    const r = await within(answer, "the answer");
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "text/event-stream; charset=utf-8");
    assert.equal(r.body, "data: x\n\n");
    await within(closing, "the drain (its deadline is 60 s)");
  });
});
