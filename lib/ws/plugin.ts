// websockets(): the plugin that gives an app's `route.ws(...)` routes their protocol. The kernel
// runs each upgrade request through the route's layers and extractors, asks `check` about the
// handshake headers (a refusal becomes the uniform error), then `accept`s: the 101 (with the
// headers the layers set: request id, rate-limit headers...) and an open WebSocket, tracked in a
// registry that the app's drain closes with 1001. Route options (`route.ws(path, { websocket:
// { protocols, origins, maxPayload, ... } }, ...)`) override the plugin's defaults.
import type { App, ReplyHeaders } from "../index.js";
import { useWebSockets, type WebSocketAcceptor } from "../plugin.js";
import { acceptWebSocket } from "./accept.js";
import { checkUpgradeRequest } from "./handshake.js";
import type { WebSocketOptions } from "./options.js";
import { WebSocketRegistry } from "./registry.js";

/** Headers of the 101 that the handshake itself owns or that describe a body the 101 has not. */
const NOT_FOR_101 = new Set(["connection", "upgrade", "content-length", "content-type", "content-encoding", "transfer-encoding", "sec-websocket-accept", "sec-websocket-protocol", "sec-websocket-extensions"]);

function handshakeHeaders(headers: ReplyHeaders): Record<string, string | readonly string[]> {
  const out: Record<string, string | readonly string[]> = Object.create(null);
  for (const name in headers) {
    if (NOT_FOR_101.has(name)) continue;
    const v = headers[name]!;
    out[name] = typeof v === "number" ? String(v) : v;
  }
  return out;
}

/**
 * Give the app's `route.ws(...)` routes the WebSocket protocol, with these defaults for every
 * route (a route's own `websocket` options override them); connections close with 1001 on drain.
 *
 * @example
 * new App()
 *   .register(websockets({ maxPayload: 64 * 1024, heartbeat: { intervalMs: 30_000, timeoutMs: 10_000 } }))
 *   .routes(route.ws("/echo", [], (ws) => void ws.on("message", (data) => void ws.send(data))));
 * @see docs/features/ws.md
 */
export function websockets(defaults: Omit<WebSocketOptions, "registry" | "headers"> = {}): (app: App) => void {
  const registry = new WebSocketRegistry();
  // One options object per route, so the handshake's negotiation (cached per options) is reused.
  const perRoute = new WeakMap<object, WebSocketOptions>();
  const optionsFor = (route: Readonly<Record<string, unknown>>): WebSocketOptions => {
    let options = perRoute.get(route);
    if (options === undefined) {
      options = { ...defaults, ...(route as WebSocketOptions), registry };
      perRoute.set(route, options);
    }
    return options;
  };
  const acceptor: WebSocketAcceptor = {
    check(req, route) {
      const refusal = checkUpgradeRequest(req, optionsFor(route));
      return refusal === null ? null : { status: refusal.status, type: refusal.type, message: refusal.message, headers: refusal.headers };
    },
    accept(req, socket, head, route, headers) {
      const extra = handshakeHeaders(headers);
      const options = optionsFor(route);
      return acceptWebSocket(req, socket, head, Object.keys(extra).length === 0 ? options : { ...options, headers: extra });
    },
    closeAll(timeoutMs) {
      return registry.closeAll(undefined, "server shutting down", { timeoutMs });
    },
  };
  return (app) => void useWebSockets(app, acceptor);
}
