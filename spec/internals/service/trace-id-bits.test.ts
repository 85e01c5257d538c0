// The bits a ratio sampler decides on, drawn before the trace id (issue 34, goal 4), and the id
// made from them later: its last 13 hex digits spell the drawn number, it is a valid W3C id.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { drawnHigh28, drawnLow24, drawTraceIdBits, newSpanId, traceIdEndingWith } from "../../../lib/service/observability/random-hex.js";

const W3C_TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;
const low13 = (traceId: string): number => Number.parseInt(traceId.slice(-13), 16);

describe("drawTraceIdBits() and traceIdEndingWith()", () => {
  it("the id made later ends with the 13 hex digits the drawn number spells, over many draws and pool refills", () => {
    // 20,000 draws: ~34 refills of the bits' pool (585 draws each), ~60 of the hex pool the ids'
    // other digits and the span ids come from.
    for (let i = 0; i < 20_000; i++) {
      if (i % 3 === 0) newSpanId();
      const bits = drawTraceIdBits();
      assert.ok(Number.isInteger(bits) && bits >= 0 && bits < 2 ** 52);
      const id = traceIdEndingWith(drawnHigh28(), drawnLow24());
      assert.match(id, W3C_TRACE_ID);
      assert.equal(low13(id), bits, id);
    }
  });

  it("never makes the all-zero id, even from zero bits", () => {
    for (let i = 0; i < 2_000; i++) {
      const id = traceIdEndingWith(0, 0);
      assert.match(id, /^[0-9a-f]{19}0{13}$/);
      assert.notEqual(id, "0".repeat(32));
    }
    assert.equal(traceIdEndingWith(0xfffffff, 0xffffff).slice(-13), "f".repeat(13));
    assert.equal(traceIdEndingWith(0x1234567, 0x89abcd).slice(-13), "123456789abcd");
  });
});
