// WebSocket chat with rooms: connect to /chat?room=lobby&name=ada, and every text message is
// sent to everyone in that room (the sender too) as {"from":"ada","text":"..."}.
// Run: PORT=3000 npx tsx ws-chat.ts, then with Node 22+ (its global WebSocket):
//   node -e 'const ws = new WebSocket("ws://localhost:3000/chat?room=lobby&name=ada");
//     ws.onmessage = (e) => console.log(e.data); ws.onopen = () => ws.send("hello")'
// A browser page from another origin is refused (403) unless `websocket: { origins }` lists it.
import { App, query, route, t } from "keel";
import { asWebSocket, createRooms, websockets } from "keel/ws";

// A member that stops reading gets no more broadcasts once 1 MiB waits for it (counted in
// rooms.dropped), so one slow client cannot make the server hold every message for it.
const rooms = createRooms({ maxBufferedAmount: 1024 * 1024 });
const Who = t.object({
  room: t.string({ regex: "^[A-Za-z0-9_-]{1,40}$" }),
  name: t.string({ length: { min: 1, max: 40 } }),
});

// The query is validated before the upgrade: a bad one is a 422 JSON answer, not a socket.
const chat = route.ws("/chat", { websocket: { maxPayload: 4096 } }, [query(Who)], (conn, who) => {
  const ws = asWebSocket(conn); // the full WebSocket type, which rooms take
  rooms.join(who.room, ws); // left again when it closes
  ws.on("message", (data, isBinary) => {
    if (isBinary) return ws.close(1003, "chat messages are text");
    rooms.broadcast(who.room, JSON.stringify({ from: who.name, text: String(data) }));
  });
});

// websockets() handles the upgrades of route.ws routes; on shutdown each socket gets 1001.
const app = new App().register(websockets()).routes(chat);

const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());
const server = await app.listen({ port: Number(process.env["PORT"] ?? 3000), signal: stop.signal });
console.log(`listening on ${server.url}`);
await server.closed;
