// bench/cold-start.mjs runs end to end: it bundles the kernel-only keel.js, starts the keel and
// the raw node:http hello apps as fresh processes, gets "Hello, World!" from each, and reports
// medians and their ratio. One run each: this proves the harness, it does not measure.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { explain, root, run } from "./build-support.js";

interface Summary {
  id: string;
  runs: number;
  firstAnswerMs: number;
  listeningMs: number;
}

describe("bench/cold-start.mjs", () => {
  it("starts both hello apps, gets their answers, and reports medians and keel ÷ raw", async () => {
    const r = await run([join(root, "bench/cold-start.mjs"), "--runs", "1", "--warmup", "0", "--json"], root, 60_000);
    assert.equal(r.status, 0, explain(r));
    const out = JSON.parse(r.stdout) as { summary: Summary[]; ratio: number; options: { features: string[] } };
    assert.deepEqual(out.options.features, ["kernel"]);
    assert.deepEqual(out.summary.map((s) => [s.id, s.runs]), [["raw", 1], ["keel", 1]]);
    for (const s of out.summary) assert.ok(s.firstAnswerMs >= s.listeningMs && s.listeningMs > 0, JSON.stringify(s));
    assert.ok(out.ratio > 0);
  });

  it("refuses an unknown argument", async () => {
    const r = await run([join(root, "bench/cold-start.mjs"), "--nope"], root);
    assert.equal(r.status, 1, explain(r));
    assert.match(r.stderr, /unknown argument --nope/);
  });
});
