// Fires `fire()` `rate` times a second until `signal` aborts, against the clock rather than by
// counting ticks (timers run late on a busy machine); after a stall it catches up by at most a
// tenth of a second's worth at once, so a pause does not turn into a burst.
import { sleep } from "./recycle.mjs";

const TICK_MS = 10;

export async function paced({ rate, signal, fire }) {
  const started = performance.now();
  let fired = 0;
  while (!signal.aborted) {
    const due = Math.floor((rate * (performance.now() - started)) / 1000);
    if (due - fired > rate / 10) fired = due - Math.ceil(rate / 10);
    for (; fired < due; fired++) fire();
    await sleep(TICK_MS, signal);
  }
}
