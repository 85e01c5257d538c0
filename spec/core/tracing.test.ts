// diagnostics_channel events (docs/features/tracing.md): keel.request and keel.handler
// TracingChannels around every request and its handler, in TracingChannel's order, with the
// method, route pattern, params, status and error; the plain channels of route registration,
// job runs and WebSocket upgrades. Events of one request are published synchronously by keel's
// own code in an order it defines (each async event follows the promise it waits for), so the
// tests compare whole sequences.
import assert from "node:assert/strict";
import { AsyncLocalStorage } from "node:async_hooks";
import diagnostics from "node:diagnostics_channel";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { App, path, route, silentLogger, t, type RequestTrace } from "../../lib/index.js";
import { JobQueue, ManualJobClock, defineJob, type JobRunTrace } from "../../lib/jobs/index.js";
import { websockets } from "../../lib/ws/index.js";
import { send } from "../support/http.js";

const EVENTS = ["start", "end", "asyncStart", "asyncEnd", "error"] as const;

interface Seen {
  event: string;
  route: string | null;
  status: number;
  error: unknown;
}

/** Subscribe to every event of keel.request and keel.handler; `stop()` unsubscribes. */
function record(): { seen: Seen[]; messages: RequestTrace[]; stop(): void } {
  const seen: Seen[] = [];
  const messages: RequestTrace[] = [];
  const subs: Array<[string, (m: unknown) => void]> = [];
  for (const channel of ["request", "handler"]) {
    for (const e of EVENTS) {
      const fn = (m: unknown): void => {
        const msg = m as RequestTrace;
        if (!messages.includes(msg)) messages.push(msg);
        seen.push({ event: `${channel}:${e}`, route: msg.route, status: msg.status, error: msg.error });
      };
      const name = `tracing:keel.${channel}:${e}`;
      diagnostics.subscribe(name, fn);
      subs.push([name, fn]);
    }
  }
  return { seen, messages, stop: () => subs.forEach(([n, fn]) => diagnostics.unsubscribe(n, fn)) };
}

const boom = new Error("boom");

function app(): App {
  return new App({ logger: silentLogger }).routes(
    route.get("/hello", [], () => ({ hello: "world" })),
    route.get("/users/{id}", [path("id", t.integer())], async (id) => {
      await new Promise((r) => setImmediate(r));
      return { id };
    }),
    route.get("/boom", [], () => {
      throw boom;
    }),
    route.get("/reject", [], async () => {
      await Promise.resolve();
      throw boom;
    }),
  );
}

const names = (seen: Seen[]): string[] => seen.map((s) => s.event);

describe("keel.request and keel.handler tracing channels", () => {
  it("a sync handler over the wire: start, handler start/end, end; the message carries method, route, params, status", async () => {
    const a = app();
    const server = await a.listen({ port: 0 });
    const r = record();
    try {
      const res = await send(`http://127.0.0.1:${server.port}/hello`);
      assert.equal(res.status, 200);
      assert.deepEqual(names(r.seen), ["request:start", "handler:start", "handler:end", "request:end"]);
      assert.deepEqual(r.seen[0], { event: "request:start", route: "/hello", status: 0, error: undefined });
      assert.deepEqual(r.seen[3], { event: "request:end", route: "/hello", status: 200, error: undefined });
      const [req, handler] = r.messages;
      assert.equal(req!.method, "GET");
      assert.deepEqual({ ...req!.params }, {});
      assert.equal(req!.context.path, "/hello");
      assert.deepEqual(handler!.result, { hello: "world" });
    } finally {
      r.stop();
      await server.close();
    }
  });

  it("an async handler: the sync parts end first, then asyncStart/asyncEnd of the handler, then of the request", async () => {
    const r = record();
    try {
      const res = await app().inject({ method: "GET", url: "/users/42" });
      assert.equal(res.status, 200);
      assert.deepEqual(names(r.seen), ["request:start", "handler:start", "handler:end", "request:end", "handler:asyncStart", "handler:asyncEnd", "request:asyncStart", "request:asyncEnd"]);
      const req = r.messages[0]!;
      assert.equal(req.route, "/users/{id}");
      assert.deepEqual({ ...req.params }, { id: "42" });
      assert.equal(req.status, 200);
      assert.deepEqual(r.messages[1]!.result, { id: 42 });
      assert.equal(r.seen[3]!.status, 0, "the status is not known when the sync part ends");
      assert.equal(r.seen[6]!.status, 200, "it is at asyncStart");
    } finally {
      r.stop();
    }
  });

  it("a thrown error: the handler's error is the thrown value, the request's the 500 it became (cause: the thrown value)", async () => {
    const r = record();
    try {
      const res = await app().inject({ method: "GET", url: "/boom" });
      assert.equal(res.status, 500);
      assert.deepEqual(names(r.seen), ["request:start", "handler:start", "handler:error", "handler:end", "request:error", "request:end"]);
      assert.equal(r.seen[2]!.error, boom);
      const err = r.seen[4]!.error as { status: number; cause: unknown };
      assert.equal(err.status, 500);
      assert.equal(err.cause, boom);
      assert.equal(r.seen[5]!.status, 500);
    } finally {
      r.stop();
    }
  });

  it("a rejected promise: error before asyncStart, as TracingChannel#tracePromise orders them", async () => {
    const r = record();
    try {
      const res = await app().inject({ method: "GET", url: "/reject" });
      assert.equal(res.status, 500);
      assert.deepEqual(names(r.seen), ["request:start", "handler:start", "handler:end", "request:end", "handler:error", "handler:asyncStart", "handler:asyncEnd", "request:error", "request:asyncStart", "request:asyncEnd"]);
      assert.equal(r.seen[4]!.error, boom);
    } finally {
      r.stop();
    }
  });

  it("a 404: no route, no handler events, the 404 error and status", async () => {
    const r = record();
    try {
      const res = await app().inject({ method: "GET", url: "/nope" });
      assert.equal(res.status, 404);
      assert.deepEqual(names(r.seen), ["request:start", "request:error", "request:end"]);
      assert.equal(r.seen[0]!.route, null);
      assert.equal((r.seen[1]!.error as { status: number }).status, 404);
      assert.equal(r.seen[2]!.status, 404);
    } finally {
      r.stop();
    }
  });

  it("the request runs inside the start channel's stores (runStores), so a subscriber's context reaches the handler", async () => {
    const als = new AsyncLocalStorage<string>();
    const start = diagnostics.channel("tracing:keel.request:start");
    start.bindStore(als, (m) => `span of ${(m as RequestTrace).route}`);
    let inside: string | undefined;
    try {
      const a = new App({ logger: silentLogger }).route(
        route.get("/ctx", [], async () => {
          await new Promise((r) => setImmediate(r));
          inside = als.getStore();
          return {};
        }),
      );
      assert.equal((await a.inject({ method: "GET", url: "/ctx" })).status, 200);
      assert.equal(inside, "span of /ctx");
    } finally {
      start.unbindStore(als);
    }
  });

  it("nobody subscribed: nothing is published and the answer is the same", async () => {
    const res = await app().inject({ method: "GET", url: "/hello" });
    assert.equal(res.status, 200);
    assert.equal(diagnostics.tracingChannel("keel.request").start.hasSubscribers, false);
  });
});

describe("plain channels", () => {
  it("keel.route.register: one message per route, with its method and canonical pattern", () => {
    const got: Array<{ method: string; pattern: string; app: unknown }> = [];
    const fn = (m: unknown): void => void got.push(m as (typeof got)[number]);
    diagnostics.subscribe("keel.route.register", fn);
    try {
      const a = app();
      assert.deepEqual(
        got.map((m) => `${m.method} ${m.pattern}`),
        ["GET /hello", "GET /users/{id}", "GET /boom", "GET /reject"],
      );
      assert.ok(got.every((m) => m.app === a));
    } finally {
      diagnostics.unsubscribe("keel.route.register", fn);
    }
  });

  it("keel.job.start / keel.job.end: one object per run; the handler runs inside the start's stores; outcomes retry, dead, succeeded", async () => {
    const clock = new ManualJobClock(1_000);
    const als = new AsyncLocalStorage<string>();
    const start = diagnostics.channel("keel.job.start");
    start.bindStore(als, (m) => `job ${(m as JobRunTrace).type}#${(m as JobRunTrace).attempt}`);
    const seen: string[] = [];
    const stores: Array<string | undefined> = [];
    const onStart = (m: unknown): void => void seen.push(`start ${(m as JobRunTrace).type} ${(m as JobRunTrace).attempt}`);
    const onEnd = (m: unknown): void => {
      const run = m as JobRunTrace;
      seen.push(`end ${run.type} ${run.attempt} ${run.outcome}${run.error instanceof Error ? ` ${run.error.message}` : ""}`);
    };
    diagnostics.subscribe("keel.job.start", onStart);
    diagnostics.subscribe("keel.job.end", onEnd);
    const ok = defineJob({
      name: "ok",
      payload: t.object({}),
      handler: async () => {
        await new Promise((r) => setImmediate(r));
        stores.push(als.getStore());
      },
    });
    const fails = defineJob({
      name: "fails",
      payload: t.object({}),
      maxAttempts: 2,
      handler: () => {
        throw new Error("nope");
      },
    });
    const queue = new JobQueue({ logger: silentLogger, clock, concurrency: 1, jobs: [ok, fails] });
    try {
      await queue.enqueue(ok, {});
      await queue.start();
      for (let i = 0; i < 100 && seen.length < 2; i++) await new Promise((r) => setImmediate(r));
      await queue.enqueue(fails, {});
      for (let i = 0; i < 20 && !seen.some((s) => s.includes("dead")); i++) if (!(await clock.advanceToNextTimer())) await new Promise((r) => setImmediate(r));
      assert.deepEqual(seen, ["start ok 1", "end ok 1 succeeded", "start fails 1", "end fails 1 retry nope", "start fails 2", "end fails 2 dead nope"]);
      assert.deepEqual(stores, ["job ok#1"]);
    } finally {
      start.unbindStore(als);
      diagnostics.unsubscribe("keel.job.start", onStart);
      diagnostics.unsubscribe("keel.job.end", onEnd);
      await queue.drain(0);
    }
  });

  it("keel.upgrade: an accepted upgrade (101, the connection) and a refused one (its status)", async () => {
    const got: Array<{ route: string | null; params: Record<string, string>; status: number; websocket: unknown }> = [];
    const fn = (m: unknown): void => void got.push(m as (typeof got)[number]);
    diagnostics.subscribe("keel.upgrade", fn);
    const a = new App({ logger: silentLogger }).register(websockets()).route(route.ws("/rooms/{room}", [], () => undefined));
    const server = await a.listen({ port: 0 });
    const upgrade = (target: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const sock = connect(server.port, "127.0.0.1");
        let text = "";
        sock.on("data", (d: Buffer) => {
          text += d.toString("latin1");
          // The head is enough (an accepted connection would wait for our close frame).
          if (text.includes("\r\n\r\n")) {
            sock.destroy();
            resolve(text.slice(0, 12));
          }
        });
        sock.on("close", () => resolve(text.slice(0, 12)));
        sock.on("error", reject);
        sock.write(`GET ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-version: 13\r\nsec-websocket-key: ${Buffer.from("0123456789abcdef").toString("base64")}\r\n\r\n`);
      });
    try {
      assert.equal(await upgrade("/rooms/lobby"), "HTTP/1.1 101");
      assert.equal(await upgrade("/nope"), "HTTP/1.1 404");
      assert.equal(got.length, 2);
      assert.deepEqual({ route: got[0]!.route, params: { ...got[0]!.params }, status: got[0]!.status }, { route: "/rooms/{room}", params: { room: "lobby" }, status: 101 });
      assert.ok(got[0]!.websocket !== null);
      assert.deepEqual({ route: got[1]!.route, status: got[1]!.status, websocket: got[1]!.websocket }, { route: null, status: 404, websocket: null });
    } finally {
      diagnostics.unsubscribe("keel.upgrade", fn);
      await server.close();
    }
  });
});
