// route.ws handlers receive the kernel's WebSocketConnection interface (the kernel knows no
// protocol code); the object is this feature's WebSocket. asWebSocket() gives it its full type,
// for rooms, registries and the rest of this feature's API.
import type { WebSocketConnection } from "../plugin.js";
import { WebSocket } from "./websocket.js";

export function asWebSocket(connection: WebSocketConnection): WebSocket {
  if (!(connection instanceof WebSocket)) throw new TypeError("asWebSocket: not a connection accepted by keel/ws");
  return connection;
}
