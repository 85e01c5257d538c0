// WebSocket routes of the sample:
// - `/api/v1/ws/echo` sends every text and binary message back as it came.
// - `/api/v1/ws/chat?room=<name>` broadcasts each text message to the room as
//   `{"from": <sub>, "text": ...}`. It needs a JWT, in the Authorization header or, from a
//   browser (which cannot set headers on a WebSocket), as the subprotocol `bearer.<token>`
//   offered beside `chat`: `new WebSocket(url, ["chat", "bearer." + token])`. The server
//   selects `chat`, so the token is never echoed back.
import { query, route, t, type Context } from "../index.js";
import { authUser, jwt } from "../auth/index.js";
import { asWebSocket, createRooms } from "../ws/index.js";

/** Largest message either route accepts. */
export const MAX_WS_MESSAGE = 64 * 1024;

const BEARER_PROTOCOL = "bearer.";

/** The token of a `bearer.<token>` entry of Sec-WebSocket-Protocol, if one is offered. */
export function bearerFromProtocol(ctx: Context): string | undefined {
  const offered = ctx.header("sec-websocket-protocol");
  if (offered === undefined) return undefined;
  for (const entry of offered.split(",")) {
    const p = entry.trim();
    if (p.startsWith(BEARER_PROTOCOL)) return p.slice(BEARER_PROTOCOL.length);
  }
  return undefined;
}

export function realtimeRoutes(secret: string) {
  const rooms = createRooms();
  const auth = jwt({ algorithms: ["HS256"], key: secret, extractToken: bearerFromProtocol });
  const echo = route.ws("/api/v1/ws/echo", { websocket: { maxPayload: MAX_WS_MESSAGE, perMessageDeflate: true } }, [], (ws) => {
    ws.on("message", (data) => void ws.send(data));
  });
  const chat = route.ws(
    "/api/v1/ws/chat",
    { layers: [auth], websocket: { maxPayload: MAX_WS_MESSAGE, protocols: ["chat"] } },
    [query(t.object({ room: t.string({ regex: "^[A-Za-z0-9_-]{1,40}$" }) })), authUser()],
    (conn, q, claims) => {
      const ws = asWebSocket(conn);
      rooms.join(q.room, ws);
      ws.on("message", (data, isBinary) => {
        if (isBinary) return ws.close(1003, "chat messages are text");
        rooms.broadcast(q.room, JSON.stringify({ from: claims.sub ?? "", text: String(data) }));
      });
    },
  );
  return [echo, chat] as const;
}
