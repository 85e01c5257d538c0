// Refusals answered 429 by the admin refusal limit (lib/shared/admin-access.ts) are counted here
// instead of recorded one by one: a flood of them would otherwise grow the log by a record each.
// One "admin.refusals_suppressed" record per client then says how many there were, between which
// times, and on which routes (at most a few): written `intervalMs` after the first one counted
// (a timer that does not keep the process alive), and on shutdown. Bounded: at most `maxClients`
// clients are tallied; past that, the rest are counted under client_address null.
import type { AuditEvent } from "./record.js";

export const DEFAULT_SUMMARY_MS = 60_000;
const MAX_CLIENTS = 1000;
const MAX_ROUTES = 8;

interface Tally {
  count: number;
  first: string;
  last: string;
  routes: string[];
}

export class SuppressedRefusals {
  private readonly tallies = new Map<string | null, Tally>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly write: (event: AuditEvent) => void,
    private readonly intervalMs: number = DEFAULT_SUMMARY_MS,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  count(client: string, route: string | null): void {
    const time = this.clock().toISOString();
    const key = this.tallies.has(client) || this.tallies.size < MAX_CLIENTS ? client : null;
    let tally = this.tallies.get(key);
    if (tally === undefined) this.tallies.set(key, (tally = { count: 0, first: time, last: time, routes: [] }));
    tally.count++;
    tally.last = time;
    if (route !== null && tally.routes.length < MAX_ROUTES && !tally.routes.includes(route)) tally.routes.push(route);
    if (this.timer === null) {
      this.timer = setTimeout(() => this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Write one summary per client counted so far, and start over. */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const tallies = [...this.tallies];
    this.tallies.clear();
    for (const [client, t] of tallies) {
      this.write({
        action: "admin.refusals_suppressed",
        outcome: "denied",
        clientAddress: client,
        target: null,
        metadata: { count: t.count, first: t.first, last: t.last, routes: t.routes, status: 429 },
      });
    }
  }
}
