// Replay redaction is an allow-list on the request side (issue 32 item 7): what a client sends is
// kept only where the app said it is not secret. Query values, JSON and form string values and
// request headers are "[redacted]" unless their name is allow-listed; text and other bodies replay
// does not parse are a placeholder with their type and size; numbers, booleans, null and the
// structure stay (they keep replays useful) except under a secret-looking name.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, form, json, route, silentLogger, text, textReply } from "../../lib/index.js";
import { diffReplay, MemoryReplayStore, replay, type ReplayOptions, type ReplayRecord } from "../../lib/replay/index.js";

async function recordOne(options: ReplayOptions, inject: Parameters<App["inject"]>[0], ...routes: Parameters<App["routes"]>): Promise<ReplayRecord> {
  const store = new MemoryReplayStore();
  const app = new App({ logger: silentLogger }).register(replay({ store, ...options })).routes(...routes);
  await app.inject(inject);
  const [r] = await store.list();
  assert.ok(r !== undefined, "recorded");
  return r;
}

describe("replay(): query strings", () => {
  const q = route.get("/q", [], () => "ok");

  it("redacts every query value by default, keeping the names and their order", async () => {
    const r = await recordOne({}, { url: "/q?access_token=abc123&password=hunter2&page=2&flag" }, q);
    assert.equal(r.request.query, "access_token=%5Bredacted%5D&password=%5Bredacted%5D&page=%5Bredacted%5D&flag");
    assert.doesNotMatch(JSON.stringify(r), /abc123|hunter2/);
  });

  it("keeps the values of allow-listed parameters, never of a secret-looking one", async () => {
    const r = await recordOne({ allowQuery: ["page", "Sort", "api_key"] }, { url: "/q?page=2&sort=name&api_key=k-1&token=t" }, q);
    assert.equal(r.request.query, "page=2&sort=name&api_key=%5Bredacted%5D&token=%5Bredacted%5D");
  });
});

describe("replay(): request bodies", () => {
  it("does not record a text/plain body: a placeholder with its type and size", async () => {
    const r = await recordOne({}, { method: "POST", url: "/t", headers: { "content-type": "text/plain" }, body: "password=hunter2" }, route.post("/t", [text()], (s) => textReply(s.length.toString())));
    assert.equal(r.request.body, "[omitted: text/plain, 16 bytes]");
    assert.equal(r.request.body_omitted, true);
    assert.equal(r.request.body_size, 16);
    assert.doesNotMatch(JSON.stringify(r), /hunter2/);
  });

  it("JSON: strings redacted unless allow-listed; numbers, booleans, null and structure kept; secret names redacted whatever the type", async () => {
    const body = { name: "ada", passwd: "p-1", api_key: "k-2", n: 3, ok: true, none: null, nested: { note: "private", tags: ["x", "y"] }, pin: 1234, card: { number: 4111 } };
    const r = await recordOne({ allowFields: ["name", "tags", "pin"] }, { method: "POST", url: "/j", body }, route.post("/j", [json()], () => ({ ok: true })));
    assert.deepEqual(JSON.parse(r.request.body!), {
      name: "ada",
      passwd: "[redacted]",
      api_key: "[redacted]",
      n: 3,
      ok: true,
      none: null,
      nested: { note: "[redacted]", tags: ["x", "y"] },
      pin: "[redacted]",
      card: { number: 4111 },
    });
    assert.doesNotMatch(r.request.body!, /p-1|k-2|private/);
  });

  it("urlencoded forms: values redacted unless allow-listed", async () => {
    const r = await recordOne(
      { allowFields: ["user"] },
      { method: "POST", url: "/f", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "user=ada&passwd=hunter2&n=1" },
      route.post("/f", [form()], () => "ok"),
    );
    assert.equal(r.request.body, "user=ada&passwd=%5Bredacted%5D&n=%5Bredacted%5D");
  });

  it("requestTextBodies: true records text bodies as sent (an app that knows they hold no secrets)", async () => {
    const r = await recordOne({ requestTextBodies: true }, { method: "POST", url: "/t", headers: { "content-type": "text/plain" }, body: "hello" }, route.post("/t", [text()], (s) => s));
    assert.equal(r.request.body, "hello");
  });
});

describe("replay(): request headers are an allow-list", () => {
  it("records standard headers, redacts unknown ones, and never records credentials even when allow-listed", async () => {
    const r = await recordOne(
      { allowHeaders: ["x-tenant-id", "authorization"] },
      { url: "/h", headers: { accept: "application/json", "x-tenant-id": "acme", "x-session-secret": "s-9", authorization: "Bearer abc", cookie: "sid=1", "user-agent": "ua" } },
      route.get("/h", [], () => "ok"),
    );
    const h = r.request.headers;
    assert.equal(h["accept"], "application/json");
    assert.equal(h["user-agent"], "ua");
    assert.equal(h["x-tenant-id"], "acme");
    assert.equal(h["x-session-secret"], "[redacted]");
    assert.equal(h["authorization"], "[redacted]");
    assert.equal(h["cookie"], "[redacted]");
    assert.doesNotMatch(JSON.stringify(r), /s-9|Bearer abc|sid=1/);
  });
});

describe("diffReplay: per-request values are volatile", () => {
  const recorded = { status: 404, headers: { "content-type": "application/json", "ratelimit-remaining": "99", "x-cache": "MISS" }, body: '{"error":{"type":"not_found"},"error_id":"err_1","request_id":"a"}', body_size: 10, body_truncated: false, body_omitted: false };

  it("ignores traceparent, tracestate, rate-limit counters, cache state and error_id/request_id in JSON bodies", () => {
    const d = diffReplay(recorded, {
      status: 404,
      headers: { "content-type": "application/json", traceparent: "00-" + "1".repeat(32) + "-" + "2".repeat(16) + "-01", tracestate: "k=v", "ratelimit-remaining": "98", "ratelimit-reset": "1", "x-cache": "HIT", age: "0" },
      body: '{"error":{"type":"not_found"},"error_id":"err_2","request_id":"b"}',
    });
    assert.deepEqual(d, { equal: true, status: null, headers: [], body: { kind: "equal" } });
  });

  it("still reports a changed value beside them, and ignoreFields adds names", () => {
    const d = diffReplay(recorded, { status: 404, headers: { "content-type": "application/json" }, body: '{"error":{"type":"gone"},"error_id":"err_2","request_id":"b"}' });
    assert.equal(d.equal, false);
    assert.deepEqual(d.body.kind === "json" ? d.body.changes.map((c) => c.path) : null, ["$.error.type"]);
    assert.equal(diffReplay(recorded, { status: 404, headers: { "content-type": "application/json" }, body: '{"error":{"type":"gone"},"error_id":"e"}' }, { ignoreFields: ["type", "request_id"] }).equal, true);
  });
});
