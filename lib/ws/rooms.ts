// Named groups of connections for broadcasting. A connection leaves all its rooms when it
// closes. A broadcast encodes a text message once, not once per member. A member that does not
// read cannot make a broadcast grow its buffer past its limit (as uWebSockets' maxBackpressure):
// the message is dropped for it and counted, or, if asked, the member is closed.
import { CloseCode, Opcode, ReadyState } from "./constants.js";
import type { WebSocket } from "./websocket.js";

export interface BroadcastOptions {
  /** A member (usually the sender) or members that do not get the message. */
  except?: WebSocket | ReadonlySet<WebSocket> | readonly WebSocket[];
}

export interface RoomsOptions {
  /**
   * A member whose bufferedAmount is above this many bytes gets no broadcast (default: the
   * member's own maxBufferedAmount, 1 MiB unless configured).
   */
  maxBufferedAmount?: number;
  /**
   * What happens to a member past the limit: "drop" (default) skips the message for it and
   * counts it in `dropped`; "close" closes it with 1008 (Policy Violation) and counts it in
   * `closed` (the close frame waits behind its unread data; the close timeout ends the socket).
   */
  onBackpressureLimit?: "drop" | "close";
}

export interface Rooms {
  join(room: string, ws: WebSocket): void;
  leave(room: string, ws: WebSocket): void;
  /** Remove a connection from every room it is in. */
  leaveAll(ws: WebSocket): void;
  /** The open members of a room (empty when the room does not exist). */
  members(room: string): ReadonlySet<WebSocket>;
  /** The rooms a connection is in. */
  roomsOf(ws: WebSocket): ReadonlySet<string>;
  /** Send to every open member; returns how many were sent to. */
  broadcast(room: string, data: string | Uint8Array, options?: BroadcastOptions): number;
  /** Names of the rooms that have members. */
  names(): IterableIterator<string>;
  /** Messages not sent to a member because it was past its buffer limit (all rooms, since creation). */
  readonly dropped: number;
  /** Members closed because they were past their buffer limit (onBackpressureLimit: "close"). */
  readonly closed: number;
}

const NO_MEMBERS: ReadonlySet<WebSocket> = new Set();
const NO_ROOMS: ReadonlySet<string> = new Set();

class RoomTable implements Rooms {
  private readonly rooms = new Map<string, Set<WebSocket>>();
  private readonly memberships = new Map<WebSocket, Set<string>>();
  private readonly limit: number | undefined;
  private readonly closeOnLimit: boolean;
  dropped = 0;
  closed = 0;

  constructor(options: RoomsOptions) {
    const limit = options.maxBufferedAmount;
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit > 0)) throw new RangeError("rooms maxBufferedAmount must be a positive integer");
    this.limit = limit;
    this.closeOnLimit = options.onBackpressureLimit === "close";
  }

  join(room: string, ws: WebSocket): void {
    if (ws.readyState !== ReadyState.OPEN) return;
    let members = this.rooms.get(room);
    if (members === undefined) {
      members = new Set();
      this.rooms.set(room, members);
    }
    members.add(ws);
    let joined = this.memberships.get(ws);
    if (joined === undefined) {
      joined = new Set();
      this.memberships.set(ws, joined);
      ws.once("close", () => this.leaveAll(ws));
    }
    joined.add(room);
  }

  leave(room: string, ws: WebSocket): void {
    const members = this.rooms.get(room);
    if (members !== undefined) {
      members.delete(ws);
      if (members.size === 0) this.rooms.delete(room);
    }
    this.memberships.get(ws)?.delete(room);
  }

  leaveAll(ws: WebSocket): void {
    const joined = this.memberships.get(ws);
    if (joined === undefined) return;
    for (const room of joined) {
      const members = this.rooms.get(room);
      if (members === undefined) continue;
      members.delete(ws);
      if (members.size === 0) this.rooms.delete(room);
    }
    joined.clear();
  }

  members(room: string): ReadonlySet<WebSocket> {
    return this.rooms.get(room) ?? NO_MEMBERS;
  }

  roomsOf(ws: WebSocket): ReadonlySet<string> {
    return this.memberships.get(ws) ?? NO_ROOMS;
  }

  names(): IterableIterator<string> {
    return this.rooms.keys();
  }

  broadcast(room: string, data: string | Uint8Array, options: BroadcastOptions = {}): number {
    const members = this.rooms.get(room);
    if (members === undefined) return 0;
    const except = options.except;
    const text = typeof data === "string";
    const payload = text ? Buffer.from(data, "utf8") : data;
    const opcode = text ? Opcode.Text : Opcode.Binary;
    let sent = 0;
    for (const ws of members) {
      if (ws.readyState !== ReadyState.OPEN || isExcepted(ws, except)) continue;
      if (ws.bufferedAmount > (this.limit ?? ws.maxBufferedAmount)) {
        if (this.closeOnLimit) {
          this.closed++;
          ws.close(CloseCode.PolicyViolation, "too slow: send buffer limit reached");
        } else {
          this.dropped++;
        }
        continue;
      }
      ws.sendBytes(opcode, payload);
      sent++;
    }
    return sent;
  }
}

function isExcepted(ws: WebSocket, except: BroadcastOptions["except"]): boolean {
  if (except === undefined) return false;
  if (except instanceof Set) return except.has(ws);
  if (Array.isArray(except)) return except.includes(ws);
  return except === ws;
}

/**
 * Named groups of connections to broadcast to; a member leaves every room when it closes, and a
 * member past its buffer limit is skipped (counted in `dropped`) or closed with 1008.
 *
 * @example
 * const rooms = createRooms();
 * route.ws("/chat", [query(t.object({ room: t.string() }))], (conn, q) => {
 *   const ws = asWebSocket(conn);
 *   rooms.join(q.room, ws);
 *   ws.on("message", (data) => void rooms.broadcast(q.room, String(data)));
 * });
 * @see docs/features/ws.md
 */
export function createRooms(options: RoomsOptions = {}): Rooms {
  return new RoomTable(options);
}
