// Which route methods node:http can deliver. Its HTTP/1.1 parser (llhttp) accepts a fixed list,
// `http.METHODS` (the same 35 on Node 20.20, 22, 24 and 26, QUERY and PURGE included); any other
// token fails the request line and the client gets a 400 before the app sees it. HTTP/2 streams,
// `app.inject` and `app.fetch` carry any token. The production baseline says so once at listen,
// naming the routes, rather than leaving it to be found by a 400 in production. (Here and not in
// the kernel's listen: the kernel's size is budgeted, and this is a deployment check.)
import { METHODS } from "node:http";
import type { Logger, RouteDefinition } from "../index.js";

/** "METHOD /pattern" of each route whose method node:http's HTTP/1.1 parser refuses. */
export function routesOutsideHttp1(routes: readonly Pick<RouteDefinition, "method" | "pattern">[]): string[] {
  return routes.filter((r) => !METHODS.includes(r.method)).map((r) => `${r.method} ${r.pattern}`);
}

/** One warning naming the routes HTTP/1.1 clients cannot reach; nothing when there are none. */
export function warnUnparsedMethods(routes: readonly Pick<RouteDefinition, "method" | "pattern">[], logger: Logger): void {
  const unreachable = routesOutsideHttp1(routes);
  if (unreachable.length === 0) return;
  logger.log(
    40,
    `node:http's HTTP/1.1 parser refuses the method of ${unreachable.join(", ")} (a 400 before the app sees the request); ` +
      "these routes are reachable over HTTP/2, app.inject and app.fetch only (http.METHODS lists what HTTP/1.1 delivers)",
    { routes: unreachable },
  );
}
