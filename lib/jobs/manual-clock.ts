// A JobClock that only moves when told to: for tests of delays, backoff and timeouts without sleeps.
import type { JobClock } from "./clock.js";

interface ManualTimer {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

/** Let pending promise chains (and one round of I/O callbacks) run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class ManualJobClock implements JobClock {
  private current: number;
  private nextId = 1;
  private timers: ManualTimer[] = [];

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(fn: () => void, ms: number): unknown {
    const timer: ManualTimer = { id: this.nextId++, at: this.current + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimer(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Due times of the timers still armed, ascending. */
  pendingTimers(): number[] {
    return this.timers.map((t) => t.at).sort((a, b) => a - b);
  }

  /** Let queued work settle without moving time. */
  async flush(rounds = 3): Promise<void> {
    for (let i = 0; i < rounds; i++) await settle();
  }

  /**
   * Move time forward by `ms`, firing every timer that falls due in order (each at its own time),
   * letting the work it starts settle before the next one fires.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await this.flush();
    for (;;) {
      let next: ManualTimer | undefined;
      for (const t of this.timers) if (t.at <= target && (next === undefined || t.at < next.at || (t.at === next.at && t.id < next.id))) next = t;
      if (next === undefined) break;
      const fired = next;
      this.timers = this.timers.filter((t) => t !== fired);
      this.current = Math.max(this.current, fired.at);
      fired.fn();
      await this.flush();
    }
    this.current = target;
    await this.flush();
  }

  /** Advance to the earliest armed timer (fire it and everything due with it); false when none. */
  async advanceToNextTimer(): Promise<boolean> {
    const due = this.pendingTimers()[0];
    if (due === undefined) return false;
    await this.advance(Math.max(0, due - this.current));
    return true;
  }
}
