// WebSocket routes of the sample:
// - `/api/v1/ws/echo` sends every text and binary message back as it came.
// - `/api/v1/ws/chat?room=<name>` broadcasts each text message to the room as
//   `{"from": <sub>, "text": ...}`. It needs a JWT, in the Authorization header or, from a
//   browser (which cannot set headers on a WebSocket), as the subprotocol `bearer.<token>`
//   offered beside `chat`: `new WebSocket(url, ["chat", "bearer." + token])`. The server
//   selects `chat`, so the token is never echoed back.
// A member that does not read gets no more broadcasts once 1 MiB waits for it (its
// maxBufferedAmount); those drops are counted in /metrics (keel_ws_broadcast_dropped_total).
import { query, route, t, type Context } from "../index.js";
import { authUser, jwt } from "../auth/index.js";
import type { Collector, MetricsRegistry } from "../metrics/index.js";
import { asWebSocket, createRooms, type Rooms } from "../ws/index.js";

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

/** The rooms' drop and close counters as Prometheus counters (read at scrape time). */
export function roomsMetrics(rooms: Pick<Rooms, "dropped" | "closed">): Collector {
  return {
    name: "ws:rooms",
    attach(registry) {
      const dropped = registry.counter({ name: "keel_ws_broadcast_dropped_total", help: "Broadcast messages not sent to a member past its send buffer limit." });
      const closed = registry.counter({ name: "keel_ws_broadcast_closed_total", help: "Room members closed for being past their send buffer limit." });
      return {
        collect() {
          dropped.advanceTo(rooms.dropped);
          closed.advanceTo(rooms.closed);
        },
      };
    },
  };
}

/** The chat's rooms, their counters registered in `registry` when there is one. */
export function sampleChatRooms(registry?: MetricsRegistry): Rooms {
  const rooms = createRooms();
  registry?.addCollector(roomsMetrics(rooms));
  return rooms;
}

export function realtimeRoutes(secret: string, rooms: Rooms = createRooms()) {
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
