// keel/ws: RFC 6455 WebSockets on raw node:http upgrades, with permessage-deflate (RFC 7692),
// heartbeats, rooms and a registry for draining on shutdown. In a keel app: declare routes with
// `route.ws(...)` and `app.register(websockets(options))`; a bare node:http server's 'upgrade'
// handler can call checkUpgradeRequest() then acceptWebSocket() itself.
export { websockets } from "./plugin.js";
export { asWebSocket } from "./as-websocket.js";
export { acceptWebSocket, upgradeRefusalError, UpgradeRefusedError, writeRefusal } from "./accept.js";
export { acceptValue, checkUpgradeRequest, type UpgradeRefusal } from "./handshake.js";
export { CloseCode, ReadyState } from "./constants.js";
export { WebSocket, type HeartbeatOptions, type SendCallback, type WebSocketEvents } from "./websocket.js";
export { WebSocketRegistry, type CloseAllOptions } from "./registry.js";
export { createRooms, type BroadcastOptions, type Rooms, type RoomsOptions } from "./rooms.js";
export type { PerMessageDeflateOptions } from "./deflate-negotiation.js";
export type { ProtocolChooser, WebSocketOptions, WebSocketServerOptions } from "./options.js";
