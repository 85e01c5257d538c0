// `npm run bench -- --only postgres` runs bench/postgres-drivers.ts alone, end to end: keel's own
// client, postgres.js and pg under the same keel server against a throwaway PostgreSQL, each with
// the same pool, the same prepared statements, and the same statements-in-flight setting per row
// (one at a time for all three, then each driver's default, named in the row). Tiny windows: this
// proves the harness, it does not measure. Skips visibly without PostgreSQL.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { postgresUnavailable } from "../support/postgres-server.js";
import { explain, root, run } from "./build-support.js";

interface Cell {
  driver: string;
  missing: string | null;
  scenario: string;
  pipelining: number;
  dbPipelining: string;
  dbPipeliningSetting: string;
  runs: number;
  queriesPerSec: number | null;
  cpuUsPerQuery: number | null;
}
interface Summary {
  cells: Cell[];
  problems: string[];
  base: string;
}

const scratch = mkdtempSync(join(tmpdir(), "keel-postgres-bench-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const SETTINGS: Record<string, Record<string, string>> = {
  "1": { keel: "1 (all)", "postgres.js": "1 (all)", pg: "1 (all)" },
  default: { keel: "default: 32 (maxPipeline)", "postgres.js": "default: 100 (max_pipeline)", pg: "default: 1 (no pipelining)" },
};

describe("bench: PostgreSQL drivers", () => {
  it("`npm run bench -- --only postgres` measures keel/postgres, postgres.js and pg with one setting per row", async (t) => {
    const why = postgresUnavailable();
    if (why !== null) return t.skip(why);
    const out = join(scratch, "latest.json");
    const r = await run([join(root, "bench/run.mjs"), "--only", "postgres", "--quick", "--duration", "0.1", "--warmup", "0", "--pipelining", "10", "--out", out], root, 180_000);
    assert.equal(r.status, 0, explain(r));
    assert.match(r.stdout, /## PostgreSQL drivers \(`node --import tsx bench\/postgres-drivers\.ts --quick/);
    // Nothing else ran: no HTTP scenario of the suite.
    assert.doesNotMatch(r.stderr, /\[hello\]|micro-benchmarks|footprint \.\.\./);
    const summary = JSON.parse(readFileSync(join(scratch, "postgres-drivers.json"), "utf8")) as Summary;
    assert.deepEqual(summary.problems, []);
    assert.equal(summary.base, "keel");
    for (const mode of ["1", "default"]) {
      for (const scenario of ["get", "post"]) {
        for (const driver of ["keel", "postgres.js", "pg"]) {
          const cell = summary.cells.find((c) => c.driver === driver && c.scenario === scenario && c.dbPipelining === mode && c.pipelining === 10);
          assert.ok(cell !== undefined, `no ${driver} ${scenario} db-pipelining ${mode} cell`);
          assert.equal(cell.missing, null, `${driver}: ${cell.missing}`);
          assert.equal(cell.runs, 1, JSON.stringify(cell));
          assert.ok(cell.queriesPerSec !== null && cell.queriesPerSec > 0, JSON.stringify(cell));
          assert.ok(cell.cpuUsPerQuery !== null && cell.cpuUsPerQuery > 0, JSON.stringify(cell));
          assert.equal(cell.dbPipeliningSetting, SETTINGS[mode]![driver], JSON.stringify(cell));
        }
      }
    }
    assert.match(r.stdout, /\| driver \| request \| HTTP pipelining \| statements in flight per connection \| queries\/s \|/);
    assert.match(r.stdout, /prepares each statement once per connection/);
  });
});
