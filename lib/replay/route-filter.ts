// Which routes are recorded: all of them, a list of patterns, or a predicate. Decided once per
// route (cached on the route object), not per request.
import type { MatchedRoute } from "../index.js";

/**
 * Route patterns as declared (`/users/{id}` or `/users/:id`), optionally preceded by a method
 * (`POST /users`); a pattern ending in `/*` matches everything below it. Or a predicate.
 */
export type ReplayRouteFilter = readonly string[] | ((method: string, pattern: string) => boolean);

interface PatternRule {
  method: string | null;
  pattern: string;
  prefix: boolean;
}

/** `:name` segments in `{name}` form, as the router's canonical patterns are. */
function canonical(pattern: string): string {
  return pattern.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function parseRule(text: string): PatternRule {
  const trimmed = text.trim();
  const space = trimmed.indexOf(" ");
  const method = space === -1 ? null : trimmed.slice(0, space).toUpperCase();
  let pattern = canonical(space === -1 ? trimmed : trimmed.slice(space + 1).trim());
  if (!pattern.startsWith("/")) throw new TypeError(`replay: route pattern ${JSON.stringify(text)} must start with "/"`);
  const prefix = pattern.endsWith("/*");
  if (prefix) pattern = pattern.slice(0, -1); // keep the slash: "/users/*" -> "/users/"
  return { method, pattern, prefix };
}

/** A predicate over matched routes from the option (undefined: every route). */
export function compileRouteFilter(filter: ReplayRouteFilter | undefined): (method: string, pattern: string) => boolean {
  if (filter === undefined) return () => true;
  if (typeof filter === "function") return filter;
  const rules = filter.map(parseRule);
  return (method, pattern) =>
    rules.some((r) => (r.method === null || r.method === method) && (r.prefix ? pattern.startsWith(r.pattern) || pattern + "/" === r.pattern : pattern === r.pattern));
}

/** Cache a per-route decision on the route object (routes live as long as the app). */
export function perRoute(decide: (route: MatchedRoute) => boolean): (route: MatchedRoute) => boolean {
  const cache = new WeakMap<MatchedRoute, boolean>();
  return (route) => {
    let d = cache.get(route);
    if (d === undefined) cache.set(route, (d = decide(route)));
    return d;
  };
}
