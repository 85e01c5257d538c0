// keel/plugin's defined(): the one optional-field helper (exactOptionalPropertyTypes).
import assert from "node:assert/strict";
import { it } from "node:test";
import { defined } from "../../lib/plugin.js";

it("defined() drops exactly the undefined properties and keeps null, 0, false and empty strings", () => {
  const out = defined({ a: undefined, b: null, c: 0, d: false, e: "", f: "x" });
  assert.deepEqual(out, { b: null, c: 0, d: false, e: "", f: "x" });
  assert.ok(!("a" in out));
  const input = { g: undefined as string | undefined };
  assert.notEqual(defined(input), input, "a new object: the input is not changed");
  assert.ok("g" in input);
});
