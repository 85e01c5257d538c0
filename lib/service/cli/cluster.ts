// Multi-core with node:cluster: the primary forks N workers that run the same script and share
// the listening port (Node's built-in round-robin distribution; no home-made balancer).
// A worker that dies is restarted with exponential backoff (reset once a worker stayed up for a
// while), so a crash loop cannot spin the CPU. SIGTERM/SIGINT on the primary stops restarts and
// sends SIGTERM to every worker, which drains like a single process; the primary exits once all
// are gone (0 when every worker exited cleanly), SIGKILLing stragglers after `killTimeoutMs`.
import cluster, { type Worker } from "node:cluster";
import type { Logger } from "../../index.js";
import { LOG_LEVELS } from "../../plugin.js";

export interface ClusterOptions {
  /** Number of workers (at least 1). */
  workers: number;
  logger: Logger;
  /** After SIGTERM, how long workers get before SIGKILL, ms (default 15000). */
  killTimeoutMs?: number;
  /** First restart delay, ms (default 100); doubles per consecutive crash. */
  restartDelayMs?: number;
  /** Longest restart delay, ms (default 10000). */
  maxRestartDelayMs?: number;
  /** A worker up at least this long resets its backoff, ms (default 10000). */
  stableAfterMs?: number;
  /** Signals that start the shutdown (default SIGTERM, SIGINT). */
  signals?: readonly NodeJS.Signals[];
}

/** Environment variable telling a worker its slot (0-based). */
export const WORKER_SLOT_ENV = "KEEL_WORKER_SLOT";

interface Slot {
  readonly index: number;
  worker: Worker | null;
  startedAt: number;
  crashes: number;
  timer: NodeJS.Timeout | null;
}

/** True in a cluster worker. */
export function isClusterWorker(): boolean {
  return cluster.isWorker;
}

/**
 * Run the primary: fork, supervise, and on SIGTERM/SIGINT drain all workers. Resolves with the
 * exit code the primary should use. Call it only in the primary (`cluster.isPrimary`).
 */
export function runClusterPrimary(options: ClusterOptions): Promise<number> {
  if (!cluster.isPrimary) throw new Error("runClusterPrimary: not the primary process");
  const count = options.workers;
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`cluster: workers must be a positive integer, got ${count}`);
  const logger = options.logger;
  const killTimeout = options.killTimeoutMs ?? 15_000;
  const baseDelay = options.restartDelayMs ?? 100;
  const maxDelay = options.maxRestartDelayMs ?? 10_000;
  const stableAfter = options.stableAfterMs ?? 10_000;
  const log = (level: number, msg: string, fields: Record<string, unknown>): void => {
    if (level >= logger.level) logger.log(level, msg, fields);
  };

  const slots: Slot[] = [];
  const bySlot = new Map<Worker, Slot>();
  let stopping = false;
  let failedExits = 0;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));

  const fork = (slot: Slot): void => {
    slot.timer = null;
    const worker = cluster.fork({ [WORKER_SLOT_ENV]: String(slot.index) });
    slot.worker = worker;
    slot.startedAt = Date.now();
    bySlot.set(worker, slot);
    worker.once("online", () => log(LOG_LEVELS.info, "worker started", { worker: slot.index, worker_pid: worker.process.pid }));
  };

  const allGone = (): boolean => slots.every((s) => s.worker === null && s.timer === null);

  const onExit = (worker: Worker, code: number | null, signal: string | null): void => {
    const slot = bySlot.get(worker);
    if (slot === undefined) return;
    bySlot.delete(worker);
    slot.worker = null;
    const fields = { worker: slot.index, worker_pid: worker.process.pid, code, signal };
    if (stopping) {
      if (code !== 0) failedExits++;
      log(code === 0 ? LOG_LEVELS.info : LOG_LEVELS.warn, "worker stopped", fields);
      if (allGone()) resolveDone(failedExits === 0 ? 0 : 1);
      return;
    }
    if (Date.now() - slot.startedAt >= stableAfter) slot.crashes = 0;
    const delay = Math.min(maxDelay, baseDelay * 2 ** slot.crashes);
    slot.crashes++;
    log(LOG_LEVELS.error, "worker died; restarting", { ...fields, restart_in_ms: delay, crashes: slot.crashes });
    slot.timer = setTimeout(() => fork(slot), delay);
  };

  const stop = (sig: NodeJS.Signals): void => {
    if (stopping) {
      log(LOG_LEVELS.debug, "already shutting down", { signal: sig });
      return;
    }
    stopping = true;
    log(LOG_LEVELS.info, "shutting down workers", { signal: sig, workers: bySlot.size });
    for (const slot of slots) {
      if (slot.timer !== null) {
        clearTimeout(slot.timer);
        slot.timer = null;
      }
      slot.worker?.process.kill("SIGTERM");
    }
    if (allGone()) {
      resolveDone(0);
      return;
    }
    const hard = setTimeout(() => {
      for (const slot of slots) {
        if (slot.worker !== null) {
          log(LOG_LEVELS.error, "worker did not stop in time; killing it", { worker: slot.index, worker_pid: slot.worker.process.pid });
          slot.worker.process.kill("SIGKILL");
        }
      }
    }, killTimeout);
    hard.unref();
  };

  cluster.on("exit", onExit);
  for (const sig of options.signals ?? ["SIGTERM", "SIGINT"]) process.on(sig, stop);
  for (let i = 0; i < count; i++) {
    const slot: Slot = { index: i, worker: null, startedAt: 0, crashes: 0, timer: null };
    slots.push(slot);
    fork(slot);
  }
  log(LOG_LEVELS.info, "cluster primary started", { workers: count });
  return done;
}
