// route.ws handlers receive the kernel's WebSocketConnection interface (the kernel knows no
// protocol code); the object is this feature's WebSocket. asWebSocket() gives it its full type,
// for rooms, registries and the rest of this feature's API.
import type { WebSocketConnection } from "../plugin.js";
import { WebSocket } from "./websocket.js";

/**
 * The connection a `route.ws` handler receives, as this feature's full `WebSocket` type.
 *
 * @example
 * route.ws("/chat", [], (conn) => rooms.join("lobby", asWebSocket(conn)));
 * @see docs/features/ws.md
 */
export function asWebSocket(connection: WebSocketConnection): WebSocket {
  if (!(connection instanceof WebSocket)) throw new TypeError("asWebSocket: not a connection accepted by keel/ws");
  return connection;
}
