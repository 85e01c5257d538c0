// GET /api/v1/events over a real socket: ticks every second with ids that continue after a
// reconnect (Last-Event-ID), the job queue's state changes as `job` events, ?max ends the stream,
// and a draining server ends it cleanly.
import assert from "node:assert/strict";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { after, before, describe, it } from "node:test";
import type { ListeningServer } from "../../lib/index.js";
import { createSampleApp, createSampleJobQueue } from "../../lib/sample/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { send } from "../support/http.js";

const BOUND_MS = 8000;

interface Event {
  event?: string;
  id?: string;
  data: string;
}

/** Open the stream and parse events as they come. */
function openEvents(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<{ res: IncomingMessage; events: Event[]; next: (pred: (e: Event) => boolean) => Promise<Event>; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, ...(localAddress === undefined ? {} : { localAddress }) }, (res) => {
      const events: Event[] = [];
      const waiting: Array<{ pred: (e: Event) => boolean; resolve: (e: Event) => void }> = [];
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const e: Event = { data: "" };
          for (const line of block.split("\n")) {
            if (line.startsWith("event: ")) e.event = line.slice(7);
            else if (line.startsWith("id: ")) e.id = line.slice(4);
            else if (line.startsWith("data: ")) e.data += line.slice(6);
          }
          if (e.event === undefined && e.data === "") continue; // a comment
          events.push(e);
          for (const w of [...waiting]) if (w.pred(e)) (waiting.splice(waiting.indexOf(w), 1), w.resolve(e));
        }
      });
      const next = (pred: (e: Event) => boolean): Promise<Event> => {
        const seen = events.find(pred);
        if (seen !== undefined) return Promise.resolve(seen);
        return new Promise((ok, fail) => {
          const timer = setTimeout(() => fail(new Error(`no matching event within ${BOUND_MS} ms; got ${JSON.stringify(events)}`)), BOUND_MS);
          waiting.push({ pred, resolve: (e) => (clearTimeout(timer), ok(e)) });
        });
      };
      resolve({ res, events, next, close: () => req.destroy() });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("sample: GET /api/v1/events", () => {
  let server: ListeningServer;
  before(async () => {
    const jobs = createSampleJobQueue({ logger: captureLogger(100) });
    server = await createSampleApp({ logger: captureLogger(100), env: "development", jobs }).listen({ port: 0 });
  });
  after(() => server.close());

  it("streams ticks with increasing ids, as text/event-stream", async () => {
    const s = await openEvents(server.url + "/api/v1/events");
    assert.equal(s.res.statusCode, 200);
    assert.equal(s.res.headers["content-type"], "text/event-stream; charset=utf-8");
    const first = await s.next((e) => e.event === "tick");
    assert.equal(first.id, "1");
    assert.equal((JSON.parse(first.data) as { n: number }).n, 1);
    const second = await s.next((e) => e.event === "tick" && e.id === "2");
    assert.match((JSON.parse(second.data) as { at: string }).at, /^\d{4}-\d\d-\d\dT/);
    s.close();
  });

  it("continues from Last-Event-ID after a reconnect", async () => {
    const s = await openEvents(server.url + "/api/v1/events", { "last-event-id": "41" });
    const tick = await s.next((e) => e.event === "tick");
    assert.equal(tick.id, "42");
    s.close();
  });

  it("reports the job queue's state changes of a report job", async () => {
    const s = await openEvents(server.url + "/api/v1/events");
    const enq = await send(server.url + "/api/v1/reports", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "usage", month: "2026-01" }) });
    assert.equal(enq.status, 202, enq.body);
    const id = (JSON.parse(enq.body) as { id: string }).id;
    const states: string[] = [];
    for (const state of ["pending", "running", "succeeded"]) {
      const e = await s.next((x) => x.event === "job" && (JSON.parse(x.data) as { id: string; state: string }).id === id && (JSON.parse(x.data) as { state: string }).state === state);
      states.push((JSON.parse(e.data) as { state: string }).state);
    }
    assert.deepEqual(states, ["pending", "running", "succeeded"]);
    s.close();
  });

  it("?max=2 ends the stream after two ticks", async () => {
    const s = await openEvents(server.url + "/api/v1/events?max=2");
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the stream did not end")), BOUND_MS);
      s.res.on("end", () => (clearTimeout(timer), resolve()));
    });
    assert.deepEqual(s.events.filter((e) => e.event === "tick").map((e) => e.id), ["1", "2"]);
  });
});

describe("sample: GET /api/v1/events caps its subscribers", () => {
  let server: ListeningServer;
  before(async () => {
    const jobs = createSampleJobQueue({ logger: captureLogger(100) });
    server = await createSampleApp({ logger: captureLogger(100), env: "development", jobs, eventsMaxSubscribers: 2 }).listen({ port: 0 });
  });
  after(() => server.close());

  it("answers the uniform 503 with Retry-After past the cap, and serves again once a subscriber left", async () => {
    const a = await openEvents(server.url + "/api/v1/events");
    const b = await openEvents(server.url + "/api/v1/events");
    assert.equal(a.res.statusCode, 200);
    assert.equal(b.res.statusCode, 200);
    // ?max=1: were it served, it would end after a tick instead of hanging the test.
    const refused = await send(server.url + "/api/v1/events?max=1");
    assert.equal(refused.status, 503);
    assert.match(String(refused.headers["retry-after"]), /^[1-9]\d*$/);
    assert.equal(refused.headers["content-type"], "application/json");
    assert.equal((JSON.parse(refused.body) as { error: { type: string } }).error.type, "service_unavailable");
    // A stream ends when its client leaves; the slot is free once the server saw it go.
    a.close();
    const deadline = Date.now() + BOUND_MS;
    let again = await send(server.url + "/api/v1/events?max=1");
    while (again.status === 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await send(server.url + "/api/v1/events?max=1");
    }
    assert.equal(again.status, 200);
    assert.match(again.body, /event: tick/);
    b.close();
  });
});

describe("sample: GET /api/v1/events caps the streams of one client address", () => {
  let server: ListeningServer;
  before(async () => {
    const jobs = createSampleJobQueue({ logger: captureLogger(100) });
    server = await createSampleApp({ logger: captureLogger(100), env: "development", jobs, eventsMaxSubscribers: 10, eventsMaxPerClient: 2 }).listen({ port: 0 });
  });
  after(() => server.close());

  it("refuses a third stream from one address with 503 while another address is still served", async () => {
    const a = await openEvents(server.url + "/api/v1/events", {}, "127.0.0.1");
    const b = await openEvents(server.url + "/api/v1/events", {}, "127.0.0.1");
    assert.equal(a.res.statusCode, 200);
    assert.equal(b.res.statusCode, 200);
    const third = await openEvents(server.url + "/api/v1/events?max=1", {}, "127.0.0.1");
    assert.equal(third.res.statusCode, 503);
    assert.match(String(third.res.headers["retry-after"]), /^[1-9]\d*$/);
    third.close();
    const other = await openEvents(server.url + "/api/v1/events?max=1", {}, "127.0.0.2");
    assert.equal(other.res.statusCode, 200);
    other.close();
    a.close();
    b.close();
  });
});
