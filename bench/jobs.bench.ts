/**
 * Job queue throughput: no-op jobs through the in-memory store and the file store (each fsync policy).
 *   node --import tsx bench/jobs.bench.ts [--quick]
 * Per store, reported as jobs/s (median of rounds, a fresh queue and directory per round):
 *   enqueue (batched)  - N enqueues issued together and awaited together (the file store group-commits them)
 *   enqueue (one by one) - each enqueue awaited before the next (with fsync "always": one fsync per job)
 *   process            - N pending jobs through 4 workers with a no-op handler, start to last completion
 * Absolute numbers depend on the disk (fsync latency) and the machine; compare stores within one run.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../lib/util/logger.js";
import { t } from "../lib/json-schema/index.js";
import { FileJobStore, JobQueue, MemoryJobStore, defineJob, type FsyncPolicy, type JobStore } from "../lib/jobs/index.js";

const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 1 : 3;
const BATCH_N = quick ? 5_000 : 50_000;
const SEQUENTIAL_N = quick ? 300 : 2_000;
const CHUNK = 1_000;

type StoreKind = { label: string; make: (dir: string) => JobStore };
const kinds: StoreKind[] = [
  { label: "memory", make: () => new MemoryJobStore() },
  ...(["always", "interval", "never"] as FsyncPolicy[]).map((fsync) => ({
    label: `file, fsync ${fsync}`,
    make: (dir: string) => new FileJobStore({ dir, fsync, logger: silentLogger }),
  })),
];

const payload = t.object({ n: t.integer() });

async function round(kind: StoreKind): Promise<{ batched: number; sequential: number; process: number }> {
  const dir = await mkdtemp(join(tmpdir(), "keel-jobs-bench-"));
  try {
    let done = 0;
    let target = 0;
    let finished: () => void = () => undefined;
    const noop = defineJob({
      name: "noop",
      payload,
      handler: () => {
        if (++done === target) finished();
      },
    });
    const queue = new JobQueue({ store: kind.make(dir), jobs: [noop], logger: silentLogger });

    let start = performance.now();
    for (let i = 0; i < BATCH_N; i += CHUNK) {
      const batch: Promise<string>[] = [];
      for (let j = i; j < Math.min(i + CHUNK, BATCH_N); j++) batch.push(queue.enqueue(noop, { n: j }));
      await Promise.all(batch);
    }
    const batched = BATCH_N / ((performance.now() - start) / 1000);

    start = performance.now();
    for (let i = 0; i < SEQUENTIAL_N; i++) await queue.enqueue(noop, { n: i });
    const sequential = SEQUENTIAL_N / ((performance.now() - start) / 1000);

    target = BATCH_N + SEQUENTIAL_N;
    const allDone = new Promise<void>((resolve) => (finished = resolve));
    start = performance.now();
    await queue.start();
    await allDone;
    const process = target / ((performance.now() - start) / 1000);
    await queue.drain(1_000);
    return { batched, sequential, process };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");

console.log(`Job queue bench (node ${process.version}, ${ROUNDS} round(s), ${BATCH_N.toLocaleString("en-US")} batched + ${SEQUENTIAL_N.toLocaleString("en-US")} sequential no-op jobs, concurrency 4, medians)`);
console.log("| store | enqueue batched (jobs/s) | enqueue one by one (jobs/s) | process (jobs/s) |");
console.log("| --- | ---: | ---: | ---: |");
for (const kind of kinds) {
  const results = [];
  for (let r = 0; r < ROUNDS; r++) results.push(await round(kind));
  console.log(`| ${kind.label} | ${fmt(median(results.map((x) => x.batched)))} | ${fmt(median(results.map((x) => x.sequential)))} | ${fmt(median(results.map((x) => x.process)))} |`);
}
