// Properties of estimateTokens (lib/toon/tokens.ts), the x-token-count-* estimator.
import assert from "node:assert/strict";
import { test } from "node:test";
import { encodeToon } from "../../lib/toon/index.js";
import { estimateTokens } from "../../lib/toon/index.js";

const users = { users: Array.from({ length: 50 }, (_, i) => ({ id: i + 1, name: `User ${i}`, email: `user${i}@example.com`, active: i % 3 !== 0 })) };

test("0 for the empty string, positive for any non-empty text", () => {
  assert.equal(estimateTokens(""), 0);
  for (const s of ["a", " ", "\n", "{", "7", "é", "🚀", "你"]) assert.ok(estimateTokens(s) >= 1, JSON.stringify(s));
});

test("monotonic-ish: appending text never lowers the estimate by more than one token", () => {
  const json = JSON.stringify(users);
  let prev = 0;
  for (let i = 1; i <= json.length; i += 7) {
    const est = estimateTokens(json.slice(0, i));
    assert.ok(est >= prev - 1, `at ${i}: ${est} < ${prev}`);
    prev = Math.max(prev, est);
  }
  assert.ok(estimateTokens(json + json) >= 2 * estimateTokens(json) - 2);
});

test("reasonable on JSON and TOON: denser than bytes/4 for JSON, and TOON counts fewer tokens", () => {
  const json = JSON.stringify(users);
  const toon = encodeToon(users);
  const jsonTokens = estimateTokens(json);
  const toonTokens = estimateTokens(toon);
  // Real cl100k/o200k counts for structured text sit well above bytes/4 (see tokens.ts).
  assert.ok(jsonTokens > Math.ceil(json.length / 4), `${jsonTokens} vs bytes/4 ${Math.ceil(json.length / 4)}`);
  assert.ok(jsonTokens < json.length / 1.5, "no more than one token per 1.5 characters of JSON");
  assert.ok(toonTokens < jsonTokens * 0.8, `TOON ${toonTokens} should be clearly cheaper than JSON ${jsonTokens}`);
});

test("pinned samples (reference counts from cl100k/o200k, ±15%)", () => {
  // [text, mean of the cl100k_base and o200k_base token counts measured when calibrating]
  const samples: [string, number][] = [
    ['{"id":1,"name":"Ada","role":"admin"}', 13],
    ["users[2]{id,name,role}:\n  1,Ada,admin\n  2,Bob,user", 24],
    ["The quick brown fox jumps over the lazy dog.", 10],
  ];
  for (const [text, reference] of samples) {
    const est = estimateTokens(text);
    assert.ok(Math.abs(est - reference) <= Math.max(2, reference * 0.15), `${JSON.stringify(text)}: ${est} vs ${reference}`);
  }
});
