// bench/rate-limit-store.mjs runs end to end: it bundles bench/servers/keel-rate-limit.ts, starts
// its own redis-server, measures the baseline, the memory store and the Redis store, and writes
// the JSON. Tiny windows: this proves the harness, it does not measure. Without redis-server the
// script must say so and exit 0, never fail.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { childEnv, explain, root, run, runCommand, type RunResult } from "./build-support.js";

interface Cell {
  case: string;
  pipelining: number;
  runs: number;
  reqPerSec: number | null;
  cpuUsPerReq: number | null;
  latencyP99Ms: number | null;
  redisCpuUsPerReq: number | null;
  redisScriptCallsPerReq: number | null;
}
interface Ratio {
  pipelining: number;
  redisOverMemory: { reqPerSec: number | null; cpuUsPerReq: number | null };
  memoryOverBaseline: { reqPerSec: number | null; cpuUsPerReq: number | null };
}
interface Summary {
  skipped?: string;
  mode: string;
  cells: Cell[];
  ratios: Ratio[];
  problems: string[];
}

const bench = join(root, "bench/rate-limit-store.mjs");
const scratch = mkdtempSync(join(tmpdir(), "keel-rate-limit-bench-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const redisInstalled = spawnSync("redis-server", ["--version"]).status === 0;

/** `node bench/rate-limit-store.mjs <args>` with PATH replaced (redis-server then cannot be found). */
function runWithPath(args: string[], path: string): Promise<RunResult> {
  return runCommand(process.execPath, args, root, 180_000, { ...childEnv(), PATH: path });
}

describe("bench/rate-limit-store.mjs", () => {
  it("measures the three cases in quick mode and writes the JSON", async (t) => {
    if (!redisInstalled) return t.skip("redis-server not installed");
    const out = join(scratch, "quick.json");
    const r = await run([bench, "--quick", "--duration", "0.4", "--warmup", "0.2", "--out", out], root, 120_000);
    assert.equal(r.status, 0, explain(r));
    const summary = JSON.parse(readFileSync(out, "utf8")) as Summary;
    assert.equal(summary.mode, "quick");
    assert.deepEqual(summary.problems, []);
    for (const p of [1, 10]) {
      for (const id of ["baseline", "memory", "redis"]) {
        const cell = summary.cells.find((c) => c.case === id && c.pipelining === p);
        assert.ok(cell !== undefined, `no ${id} p${p} cell`);
        assert.equal(cell.runs, 1);
        assert.ok(cell.reqPerSec !== null && cell.reqPerSec > 0, JSON.stringify(cell));
        assert.ok(cell.cpuUsPerReq !== null && cell.cpuUsPerReq > 0, JSON.stringify(cell));
        assert.ok(cell.latencyP99Ms !== null && cell.latencyP99Ms >= 0, JSON.stringify(cell));
        if (id === "redis") {
          // The Redis store really served the bucket: one script call per request, Redis CPU spent.
          assert.ok(cell.redisScriptCallsPerReq !== null && cell.redisScriptCallsPerReq >= 0.9 && cell.redisScriptCallsPerReq <= 1.1, JSON.stringify(cell));
          assert.ok(cell.redisCpuUsPerReq !== null && cell.redisCpuUsPerReq >= 0, JSON.stringify(cell));
        } else assert.equal(cell.redisScriptCallsPerReq, null);
      }
      const ratio = summary.ratios.find((x) => x.pipelining === p);
      assert.ok(ratio !== undefined && ratio.redisOverMemory.reqPerSec! > 0 && ratio.memoryOverBaseline.cpuUsPerReq! > 0, JSON.stringify(ratio));
    }
    assert.match(r.stdout, /\| case \| pipelining \| req\/s \| server CPU µs\/req \|/);
    assert.match(r.stdout, /\| pipelining \| req\/s redis ÷ memory \| CPU µs\/req redis ÷ memory \|/);
  });

  it("skips with exit 0 when redis-server is not on the PATH", async () => {
    const out = join(scratch, "skipped.json");
    const r = await runWithPath([bench, "--quick", "--out", out], scratch);
    assert.equal(r.status, 0, explain(r));
    assert.match(r.stdout, /skipped: redis-server is not installed/);
    const summary = JSON.parse(readFileSync(out, "utf8")) as Summary;
    assert.match(summary.skipped ?? "", /redis-server is not installed/);
  });

  it("refuses an unknown argument", async () => {
    const r = await run([bench, "--nope"], root);
    assert.equal(r.status, 1, explain(r));
    assert.match(r.stderr, /unknown argument --nope/);
  });
});
