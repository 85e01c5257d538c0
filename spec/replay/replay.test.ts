// Replaying recordings: replayRecord re-sends a recorded request to another live app (method,
// path, query, body; no hop-by-hop or redacted headers), diffReplay compares the answers
// (status, headers minus volatile ones, JSON bodies by path, text bodies by line), and
// runReplayCommand prints it with exit codes 0 (same), 1 (different), 2 (usage), 3 (failed).
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, it } from "node:test";
import { App, json, Reply, route, silentLogger, textReply, type ListeningServer } from "../../lib/index.js";
import {
  diffReplay,
  formatReplayDiff,
  MemoryReplayStore,
  parseReplayTarget,
  replay,
  replayRecord,
  ReplayError,
  runReplayCommand,
  type RecordedResponse,
  type ReplayRecord,
} from "../../lib/replay/index.js";

function capture(): { io: { stdout(t: string): void; stderr(t: string): void }; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return { io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) }, out: () => out, err: () => err };
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe("replay against a live target app", () => {
  const store = new MemoryReplayStore();
  let recorded: ListeningServer;
  let target: ListeningServer;
  const seenByTarget: Array<{ method: string; url: string; headers: Record<string, unknown>; body: unknown }> = [];

  before(async () => {
    const original = new App({ logger: silentLogger })
      .register(replay({ store, redactFields: ["password"], allowQuery: ["x", "y"], allowFields: ["name"], allowHeaders: ["x-trace"] }))
      .routes(
        route.get("/users/{id}", [], () => ({ id: 1, name: "ada", tags: ["a", "b"], profile: { city: "Paris" }, gone: true })),
        route.post("/echo", [json()], (b) => ({ received: b })),
        route.get("/text", [], () => textReply("one\ntwo\nthree")),
        route.get("/status", [], () => ({ ok: true })),
      );
    const changed = new App({ logger: silentLogger }).routes(
      route.get("/users/{id}", [], () => ({ id: 1, name: "bob", tags: ["a"], profile: { city: "Paris", zip: "75001" } })),
      route.post("/echo", [json()], (b, ) => ({ received: b })),
      route.get("/text", [], () => textReply("one\nTWO\nthree")),
      route.get("/status", [], () => new Reply(503, '{"ok":false}', { "content-type": "application/json", "x-extra": "1" })),
    );
    // Every request the target gets, seen before routing.
    changed.layer(async (ctx, next) => {
      const body = ctx.header("content-length") !== undefined ? (await ctx.body()).toString("utf8") : null;
      seenByTarget.push({ method: ctx.method, url: ctx.path + (ctx.rawQuery === "" ? "" : "?" + ctx.rawQuery), headers: { ...ctx.headers }, body });
      return next(ctx);
    });
    recorded = await original.listen({ port: 0, host: "127.0.0.1" });
    target = await changed.listen({ port: 0, host: "127.0.0.1" });
  });
  after(async () => {
    await recorded.close();
    await target.close();
  });

  async function recordOne(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<ReplayRecord> {
    const before = (await store.list()).length;
    const res = await fetch(recorded.url + path, init);
    await res.arrayBuffer();
    const all = await store.list();
    assert.equal(all.length, before + 1);
    return all[0]!;
  }

  it("re-sends method, path, query and body, without hop-by-hop or redacted headers, and an equal answer diffs as equal", async () => {
    const rec = await recordOne("/echo?x=1&y=%20z", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer secret", "x-trace": "t1", connection: "keep-alive" },
      body: JSON.stringify({ name: "ada", password: "hunter2" }),
    });
    seenByTarget.length = 0;
    const answer = await replayRecord(rec, { target: target.url });
    const [seen] = seenByTarget;
    assert.equal(seen!.method, "POST");
    assert.equal(seen!.url, "/echo?x=1&y=%20z");
    assert.equal(seen!.body, '{"name":"ada","password":"[redacted]"}');
    assert.equal(seen!.headers["x-trace"], "t1");
    assert.equal(seen!.headers["authorization"], undefined, "a redacted secret is not sent");
    assert.equal(seen!.headers["host"], new URL(target.url).host, "the target's own host");
    assert.equal(seen!.headers["content-length"], String(Buffer.byteLength(seen!.body as string)));
    assert.equal(answer.status, 200);
    // The recorded answer has "[redacted]" where the replayed one has the field's echo: a match.
    const diff = diffReplay(rec, answer);
    assert.deepEqual(diff, { equal: true, status: null, headers: [], body: { kind: "equal" } });
    assert.equal(formatReplayDiff(diff), "no differences\n");
  });

  it("reports the JSON paths whose values differ, were added or were removed", async () => {
    const rec = await recordOne("/users/1");
    const diff = diffReplay(rec, await replayRecord(rec, { target: target.url }));
    assert.equal(diff.equal, false);
    assert.equal(diff.status, null);
    assert.equal(diff.body.kind, "json");
    assert.deepEqual(diff.body.kind === "json" ? diff.body.changes : null, [
      { path: "$.name", kind: "changed", recorded: "ada", replayed: "bob" },
      { path: "$.tags[1]", kind: "removed", recorded: "b" },
      { path: "$.profile.zip", kind: "added", replayed: "75001" },
      { path: "$.gone", kind: "removed", recorded: true },
    ]);
  });

  it("reports a status change, a header only the replay has, and text bodies line by line", async () => {
    const status = await recordOne("/status");
    const d1 = diffReplay(status, await replayRecord(status, { target: target.url }));
    assert.deepEqual(d1.status, { recorded: 200, replayed: 503 });
    assert.deepEqual(d1.headers, [{ name: "x-extra", recorded: null, replayed: "1" }]);
    const text = await recordOne("/text");
    const d2 = diffReplay(text, await replayRecord(text, { target: target.url }));
    assert.deepEqual(d2.body, { kind: "text", changes: [{ op: "-", line: 2, text: "two" }, { op: "+", line: 2, text: "TWO" }] });
    assert.equal(formatReplayDiff(d2), "body (lines):\n  - 2: two\n  + 2: TWO\n");
  });

  describe("runReplayCommand", () => {
    it("exits 0 and says so when the answers match", async () => {
      const rec = await recordOne("/echo", { method: "POST", headers: { "content-type": "application/json" }, body: "[1,2]" });
      const c = capture();
      assert.equal(await runReplayCommand(["replay", rec.id, "--target", target.url], c.io, { store }), 0);
      assert.equal(c.out(), `replay ${rec.id}: POST /echo -> ${target.url}\nno differences\n`);
      assert.equal(c.err(), "");
    });

    it("exits 1 and prints the status, header and body differences", async () => {
      const rec = await recordOne("/status");
      const c = capture();
      assert.equal(await runReplayCommand([rec.id, `--target=${target.url}`], c.io, { store }), 1);
      assert.equal(
        c.out(),
        `replay ${rec.id}: GET /status -> ${target.url}\n` + "status: 200 -> 503\nheaders:\n  + x-extra: 1\nbody (json):\n  ~ $.ok: true -> false\n",
      );
    });

    it("ignores headers named with --ignore-header or in its options", async () => {
      const rec = await recordOne("/status");
      const c = capture();
      assert.equal(await runReplayCommand([rec.id, "--target", target.url, "--ignore-header", "X-Extra"], c.io, { store }), 1);
      assert.doesNotMatch(c.out(), /x-extra/);
      const c2 = capture();
      await runReplayCommand([rec.id, "--target", target.url], c2.io, { store, ignoreHeaders: ["x-extra"] });
      assert.doesNotMatch(c2.out(), /x-extra/);
    });

    it("lists recordings newest first (exit 0), filtered by --status and --limit", async () => {
      const rec = await recordOne("/text");
      const c = capture();
      assert.equal(await runReplayCommand(["replay", "list", "--limit", "1"], c.io, { store }), 0);
      assert.match(c.out(), new RegExp(`^${rec.id}  \\S+  200  GET /text  \\(/text, [0-9.]+ ms\\)\\n$`));
      const none = capture();
      assert.equal(await runReplayCommand(["list", "--status", "418"], none.io, { store }), 0);
      assert.equal(none.out(), "no recordings\n");
    });

    it("exits 2 on usage errors, with a message on stderr", async () => {
      const rec = await recordOne("/text");
      const cases: Array<[string[], RegExp]> = [
        [[], /^usage: replay list/],
        [["replay", rec.id], /--target URL is required/],
        [["replay", "no-such-id", "--target", target.url], /no recording with id no-such-id/],
        [["replay", rec.id, "--target", target.url + "/path"], /must be an origin/],
        [["replay", rec.id, "--target", "ftp://127.0.0.1"], /must be http or https/],
        [["replay", rec.id, "--target"], /--target needs a value/],
        [["replay", rec.id, "--target", target.url, "--bogus", "1"], /unknown option --bogus/],
        [["replay", "list", "--limit", "1001"], /--limit must be an integer from 1 to 1000/],
        [["replay", "list", "--target", target.url], /--target does not apply to list/],
      ];
      for (const [argv, message] of cases) {
        const c = capture();
        assert.equal(await runReplayCommand(argv, c.io, { store }), 2, argv.join(" "));
        assert.match(c.err(), message, argv.join(" "));
        assert.equal(c.out(), "", argv.join(" "));
      }
      const help = capture();
      assert.equal(await runReplayCommand(["replay", "--help"], help.io, { store }), 0);
      assert.match(help.out(), /^usage:/);
    });

    it("exits 3 when the target cannot be reached", async () => {
      const rec = await recordOne("/text");
      const c = capture();
      assert.equal(await runReplayCommand([rec.id, "--target", `http://127.0.0.1:${await closedPort()}`], c.io, { store }), 3);
      assert.match(c.err(), /^replay: replay to http:\/\/127\.0\.0\.1:\d+ failed: /);
    });
  });
});

describe("parseReplayTarget", () => {
  it("accepts an http(s) origin, with or without the final slash", () => {
    assert.equal(parseReplayTarget("http://127.0.0.1:8080").origin, "http://127.0.0.1:8080");
    assert.equal(parseReplayTarget("https://staging.example/").origin, "https://staging.example");
  });

  it("refuses other schemes, credentials, paths, queries and fragments", () => {
    for (const bad of ["ftp://h", "file:///etc/passwd", "http://u:p@h", "http://h/api", "http://h/?", "http://h?q=1", "http://h#f", "http://h/.", "not a url"]) {
      assert.throws(() => parseReplayTarget(bad), (e: unknown) => e instanceof ReplayError && e.usage, bad);
    }
  });
});

describe("replayRecord refuses what it cannot send faithfully", () => {
  const base: ReplayRecord = {
    id: "r",
    recorded_at: new Date(0).toISOString(),
    request: { method: "POST", path: "/x", query: "", headers: {}, body: "abc", body_size: 10, body_truncated: true, body_omitted: false },
    response: { status: 200, headers: {}, body: null, body_size: 0, body_truncated: false, body_omitted: false },
    meta: { route: "/x", duration_ms: 0, request_id: null },
  };

  it("a truncated or omitted request body is a usage error, before any connection", async () => {
    await assert.rejects(replayRecord(base, { target: "http://127.0.0.1:1" }), (e: unknown) => e instanceof ReplayError && e.usage && /not recorded in full/.test(e.message));
    const omitted = { ...base, request: { ...base.request, body: "[omitted: image/png, 10 bytes]", body_truncated: false, body_omitted: true } };
    await assert.rejects(replayRecord(omitted, { target: "http://127.0.0.1:1" }), (e: unknown) => e instanceof ReplayError && e.usage);
  });
});

describe("diffReplay", () => {
  const JSON_TYPE = { "content-type": "application/json" };
  const recorded = (over: Partial<RecordedResponse>): RecordedResponse => ({
    status: 200,
    headers: { "content-type": "application/json" },
    body: "{}",
    body_size: 2,
    body_truncated: false,
    body_omitted: false,
    ...over,
  });

  it("ignores date, x-request-id, framing headers and the configured volatile ones", () => {
    const d = diffReplay(recorded({ headers: { "content-type": "application/json", "x-request-id": "a", etag: '"1"', "x-build": "1" } }), {
      status: 200,
      headers: { "content-type": "application/json", "x-request-id": "b", date: "now", "content-length": "2", connection: "keep-alive", "keep-alive": "timeout=5", etag: '"1"', "x-build": "2" },
      body: "{}",
    }, { ignoreHeaders: ["X-Build"] });
    assert.deepEqual(d, { equal: true, status: null, headers: [], body: { kind: "equal" } });
    const strict = diffReplay(recorded({ headers: { "x-build": "1" } }), { status: 200, headers: { "x-build": "2" }, body: "{}" });
    assert.equal(strict.equal, false);
    assert.deepEqual(strict.headers, [{ name: "x-build", recorded: "1", replayed: "2" }]);
  });

  it("never compares a redacted header or JSON value", () => {
    const d = diffReplay(recorded({ headers: { "content-type": "application/json", "set-cookie": ["[redacted]", "[redacted]"] }, body: '{"token":"[redacted]","n":1,"deep":{"password":"[redacted]"}}' }), {
      status: 200,
      headers: { "content-type": "application/json", "set-cookie": ["sid=2"] },
      body: '{"token":"new","n":1,"deep":{}}',
    });
    assert.deepEqual(d, { equal: true, status: null, headers: [], body: { kind: "equal" } });
  });

  it("compares JSON structurally: formatting and key order do not matter, types do", () => {
    assert.equal(diffReplay(recorded({ body: '{"a":1,"b":[1,2]}' }), { status: 200, headers: JSON_TYPE, body: '{ "b": [1, 2],\n "a": 1 }' }).equal, true);
    const d = diffReplay(recorded({ body: '{"a":1,"odd key":null}' }), { status: 200, headers: JSON_TYPE, body: '{"a":"1","odd key":{}}' });
    assert.deepEqual(d.body.kind === "json" ? d.body.changes : null, [
      { path: "$.a", kind: "changed", recorded: 1, replayed: "1" },
      { path: '$["odd key"]', kind: "changed", recorded: null, replayed: {} },
    ]);
  });

  it("does not compare a body that was cut or not recorded, and says why", () => {
    const d = diffReplay(recorded({ body: '{"a":', body_truncated: true }), { status: 200, headers: JSON_TYPE, body: '{"a":2}' });
    assert.equal(d.equal, true);
    assert.deepEqual(d.body, { kind: "skipped", reason: "the recorded body was cut at 5 bytes" });
    assert.match(formatReplayDiff(d), /^no differences\nbody: not compared \(the recorded body was cut at 5 bytes\)\n$/);
  });
});
