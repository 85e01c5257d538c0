// Non-reading peers are kept for a while and then replaced: `slots` of them at once, each closed
// and reopened every `periodMs` (the slots staggered over the period), so the server keeps
// meeting fresh ones and what it held for the old ones must be given back.
import { setTimeout as delay } from "node:timers/promises";

/** Resolves after `ms` or as soon as `signal` aborts (never rejects). */
export function sleep(ms, signal) {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}

/**
 * Keep `slots` peers open until `signal` aborts. `open(slot)` resolves to `{ close() }`; when it
 * rejects, `onOpenError(err)` is told and the slot retries a second later. Resolves when every
 * slot has closed its last peer.
 */
export function recycling({ slots, periodMs, signal, open, onOpenError }) {
  const loops = [];
  for (let slot = 0; slot < slots; slot++) {
    loops.push((async () => {
      await sleep((slot * periodMs) / slots, signal);
      while (!signal.aborted) {
        let peer;
        try {
          peer = await open(slot);
        } catch (err) {
          onOpenError(err);
          await sleep(1000, signal);
          continue;
        }
        await sleep(periodMs, signal);
        await peer.close();
      }
    })());
  }
  return Promise.all(loops);
}
