// Which route methods node:http can deliver. Its HTTP/1.1 parser (llhttp) accepts a fixed list,
// `http.METHODS` (the same 35 on Node 20.20, 22, 24 and 26, QUERY and PURGE included); any other
// token fails the request line and the client gets a 400 before the app sees it. HTTP/2 streams,
// `app.inject` and `app.fetch` carry any token. listen() says so once, naming the routes, rather
// than leaving it to be found by a 400 in production.
import { METHODS } from "node:http";
import type { Logger } from "../util/logger.js";

/** One warning naming the routes HTTP/1.1 clients cannot reach; nothing when there are none. */
export function warnUnparsedMethods(routes: readonly { method: string; pattern: string }[], logger: Logger): void {
  const unreachable = routes.filter((r) => !METHODS.includes(r.method)).map((r) => `${r.method} ${r.pattern}`);
  if (unreachable.length > 0) logger.log(40, "node:http's HTTP/1.1 parser refuses these methods (400): only HTTP/2, inject and fetch reach the routes", { routes: unreachable });
}
