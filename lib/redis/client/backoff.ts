// Reconnect delays: exponential from baseMs, capped at maxMs, with jitter (half fixed, half
// random) so many processes that lost the same server do not come back in lockstep.

export interface Backoff {
  baseMs: number;
  maxMs: number;
}

export function nextBackoffMs(backoff: Backoff, attempt: number): number {
  const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
