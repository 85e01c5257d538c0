// The one reply snapshot (lib/shared/reply-snapshot.ts) that responseCache() and idempotency()
// store and rebuild replies with: plain data, copies both ways.
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { Reply } from "../../lib/index.js";
import { captureReply, restoreReply } from "../../lib/shared/reply-snapshot.js";

class Marked extends Reply {}

describe("captureReply / restoreReply", () => {
  it("keeps status, headers (minus the omitted) and body, as copies", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const reply = new Reply(201, bytes, { "content-type": "application/octet-stream", "set-cookie": ["a=1", "b=2"], date: "x", "x-n": 7 });
    const { snapshot, headerChars, bodyBytes, complete } = captureReply(reply, new Set(["date"]));
    assert.equal(complete, true);
    assert.equal(snapshot.status, 201);
    assert.deepEqual(snapshot.headers.map(([n]) => n), ["content-type", "set-cookie", "x-n"]);
    assert.equal(headerChars, "content-type".length + "application/octet-stream".length + "set-cookie".length + "a=1,b=2".length + "x-n".length + 1);
    assert.equal(bodyBytes, 3);
    bytes[0] = 9;
    (reply.headers["set-cookie"] as string[]).push("c=3");
    assert.deepEqual([...(snapshot.body as Uint8Array)], [1, 2, 3], "the body bytes were copied");
    assert.deepEqual(snapshot.headers[1]![1], ["a=1", "b=2"], "header arrays were copied");
    assert.ok(JSON.parse(JSON.stringify({ ...snapshot, body: null })), "plain data");
  });

  it("counts a string body in UTF-8 bytes and leaves out a body over the cap or a stream", () => {
    assert.equal(captureReply(new Reply(200, "héllo"), new Set()).bodyBytes, 6);
    const big = captureReply(new Reply(200, "x".repeat(11)), new Set(), 10);
    assert.equal(big.complete, false);
    assert.equal(big.snapshot.body, null);
    const streamed = captureReply(new Reply(200, Readable.from(["a"])), new Set());
    assert.equal(streamed.complete, false);
    assert.equal(streamed.snapshot.body, null);
    assert.equal(captureReply(new Reply(204, null), new Set()).complete, true);
  });

  it("restores a fresh reply of the given class, with copied header arrays", () => {
    const { snapshot } = captureReply(new Reply(200, "ok", { vary: ["accept", "origin"], "content-type": "text/plain" }), new Set());
    const a = restoreReply(snapshot, Marked);
    assert.ok(a instanceof Marked);
    assert.equal(a.status, 200);
    assert.equal(a.body, "ok");
    assert.deepEqual(a.headers["vary"], ["accept", "origin"]);
    (a.headers["vary"] as string[]).push("x");
    assert.deepEqual(restoreReply(snapshot).headers["vary"], ["accept", "origin"], "the snapshot is untouched");
    assert.ok(restoreReply(snapshot).constructor === Reply);
  });
});
