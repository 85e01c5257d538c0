// Reconnect delays: the shared exponential ceiling (lib/util/backoff.ts, doubling from baseMs up
// to maxMs) with "equal jitter" (half fixed, half random): never near zero, so a server that keeps
// dropping connections is not hammered, and processes that lost the same server do not come back
// in lockstep.
import { backoffCeiling } from "../../shared/backoff.js";

export interface Backoff {
  baseMs: number;
  maxMs: number;
}

/** The delay before reconnect attempt `attempt` (0-based). */
export function nextBackoffMs(backoff: Backoff, attempt: number): number {
  const ceiling = backoffCeiling(attempt + 1, { baseMs: backoff.baseMs, factor: 2, maxMs: backoff.maxMs });
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
