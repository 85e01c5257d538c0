// newErrorId draws 128 random bits per id from a pool refilled 256 ids at a time: every id has
// the documented shape and none repeats, across several refills of the pool.
import assert from "node:assert/strict";
import { it } from "node:test";
import { newErrorId } from "../../lib/core/errors.js";

it("makes err_<32 hex> ids that do not repeat across pool refills", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 256 * 8 + 7; i++) {
    const id = newErrorId();
    assert.match(id, /^err_[0-9a-f]{32}$/);
    seen.add(id);
  }
  assert.equal(seen.size, 256 * 8 + 7);
});

it("uses every hex digit in every position (the bytes are random, not a counter)", () => {
  const digits = Array.from({ length: 32 }, () => new Set<string>());
  for (let i = 0; i < 2000; i++) {
    const hex = newErrorId().slice(4);
    for (let d = 0; d < 32; d++) digits[d]!.add(hex[d]!);
  }
  for (const set of digits) assert.equal(set.size, 16);
});
