// W3C traceparent parsing and the random ids behind new traces.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newSpanId, newTraceId, randomHex } from "../../../lib/service/observability/random-hex.js";
import { formatTraceParent, parseTraceParent } from "../../../lib/service/index.js";

const VALID = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

describe("parseTraceParent", () => {
  it("reads the W3C example", () => {
    assert.deepEqual(parseTraceParent(VALID), { traceId: "0af7651916cd43dd8448eb211c80319c", parentId: "b7ad6b7169203331", flags: "01" });
  });

  it("accepts future versions with extra fields, and keeps the flags", () => {
    assert.equal(parseTraceParent("cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00-extra")?.flags, "00");
    assert.notEqual(parseTraceParent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"), null);
  });

  it("rejects malformed values", () => {
    const bad = [
      undefined,
      "",
      VALID.toUpperCase(), // hex must be lowercase
      VALID + "-extra", // version 00 is exactly 55 characters
      "ff" + VALID.slice(2), // version ff is forbidden
      "00-00000000000000000000000000000000-b7ad6b7169203331-01", // all-zero trace id
      "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", // all-zero parent id
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0g",
      "00_0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01", // short trace id
      "cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x", // later version, no dash after flags
    ];
    for (const v of bad) assert.equal(parseTraceParent(v), null, String(v));
    assert.equal(parseTraceParent([VALID, VALID]), null, "a repeated header is invalid");
  });

  it("formats version 00 and round-trips", () => {
    const s = formatTraceParent("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", "01");
    assert.equal(s, VALID);
    assert.deepEqual(parseTraceParent(s)?.traceId, "0af7651916cd43dd8448eb211c80319c");
  });
});

describe("random ids", () => {
  it("trace and span ids are lowercase hex of the right length, valid in a traceparent, and distinct", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const trace = newTraceId();
      const spanId = newSpanId();
      assert.match(trace, /^[0-9a-f]{32}$/);
      assert.match(spanId, /^[0-9a-f]{16}$/);
      assert.notEqual(parseTraceParent(formatTraceParent(trace, spanId, "01")), null);
      seen.add(trace);
    }
    assert.equal(seen.size, 2000, "ids do not repeat across pool refills");
    assert.equal(randomHex(64).length, 64);
    // An odd length leaves the next id on a byte boundary of the pool; ids stay well formed
    // across many refills.
    for (let i = 0; i < 400; i++) {
      assert.match(randomHex(3), /^[0-9a-f]{3}$/);
      assert.match(newTraceId(), /^[0-9a-f]{32}$/);
      assert.match(newSpanId(), /^[0-9a-f]{16}$/);
    }
  });
});

describe("trace flags", async () => {
  const { isSampledFlags, withSampledFlag } = await import("../../../lib/service/observability/traceparent.js");
  it("reads the sampled bit, 01 and 00 without parsing and any other pair by parsing", () => {
    assert.equal(isSampledFlags("01"), true);
    assert.equal(isSampledFlags("00"), false);
    assert.equal(isSampledFlags("03"), true);
    assert.equal(isSampledFlags("fe"), false);
    assert.equal(isSampledFlags("zz"), false);
  });
  it("sets or clears the sampled bit and keeps the others", () => {
    assert.equal(withSampledFlag("01", false), "00");
    assert.equal(withSampledFlag("00", true), "01");
    assert.equal(withSampledFlag("01", true), "01");
    assert.equal(withSampledFlag("00", false), "00");
    assert.equal(withSampledFlag("03", false), "02");
    assert.equal(withSampledFlag("fe", true), "ff");
    assert.equal(withSampledFlag("zz", true), "01");
  });
});
