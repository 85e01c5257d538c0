// The route table of traffic insight: one RouteStats per matched route, found by the route's
// own object (ctx.route: no string is built per request), plus two shared buckets. Unmatched
// requests (404, 405, automatic OPTIONS, bad targets) all go to "(unmatched)": the raw path is
// never a key, so a scan of random URLs cannot grow the table. Past `maxRoutes` entries, further
// routes share "(other routes)". Routes with `config: { insight: false }` (the admin endpoint
// itself) are not recorded.
import type { MatchedRoute } from "../index.js";
import { RouteStats, type RouteInsight } from "./route-stats.js";

export const UNMATCHED_ROUTE = "(unmatched)";
export const OTHER_ROUTES = "(other routes)";
/** The method shown for the shared buckets, which hold requests of any method. */
export const ANY_METHOD = "*";

/** What the admin endpoint and `insightStats()` return. */
export interface InsightSnapshot {
  /** When recording started (or was last reset), ISO 8601. */
  since: string;
  /** Most requested first. */
  routes: RouteInsight[];
}

export class InsightRecorder {
  /** Route object -> its stats (or the shared overflow bucket), null for a route not recorded. */
  private readonly byRoute = new Map<MatchedRoute, RouteStats | null>();
  private readonly own: RouteStats[] = [];
  private readonly unmatched: RouteStats;
  private readonly overflow: RouteStats;
  private sinceMs: number;

  constructor(
    private readonly maxRoutes: number,
    private readonly topErrors: number,
    private readonly wallClock: () => number = Date.now,
  ) {
    this.unmatched = new RouteStats(ANY_METHOD, UNMATCHED_ROUTE, topErrors);
    this.overflow = new RouteStats(ANY_METHOD, OTHER_ROUTES, topErrors);
    this.sinceMs = wallClock();
  }

  /** The stats a request is recorded in, or null when its route opted out. */
  statsFor(route: MatchedRoute | null): RouteStats | null {
    if (route === null) return this.unmatched;
    const known = this.byRoute.get(route);
    return known !== undefined ? known : this.add(route);
  }

  /** First request of a route: its entry (the map is bounded by the registered routes). */
  private add(route: MatchedRoute): RouteStats | null {
    let stats: RouteStats | null;
    if (route.meta.config?.["insight"] === false) stats = null;
    else if (this.own.length >= this.maxRoutes) stats = this.overflow;
    else {
      stats = new RouteStats(route.method, route.pattern, this.topErrors);
      this.own.push(stats);
    }
    this.byRoute.set(route, stats);
    return stats;
  }

  /** Entries that have seen a request (answered or in flight), most requested first. */
  snapshot(): InsightSnapshot {
    const routes: RouteInsight[] = [];
    for (const stats of [...this.own, this.overflow, this.unmatched]) {
      if (stats.count > 0 || stats.inFlight > 0) routes.push(stats.snapshot());
    }
    routes.sort((a, b) => b.count - a.count || compareText(a.route, b.route) || compareText(a.method, b.method));
    return { since: new Date(this.sinceMs).toISOString(), routes };
  }

  /** One route's entry by method and pattern (or a shared bucket by its name), if it has one. */
  find(method: string, route: string): RouteInsight | undefined {
    for (const stats of [...this.own, this.overflow, this.unmatched]) {
      if (stats.method === method && stats.route === route && (stats.count > 0 || stats.inFlight > 0)) return stats.snapshot();
    }
    return undefined;
  }

  /** Start over: counts, histograms and errors are cleared, in-flight requests stay counted. */
  reset(): void {
    for (const stats of [...this.own, this.overflow, this.unmatched]) stats.clear();
    this.sinceMs = this.wallClock();
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
