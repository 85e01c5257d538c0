// Named groups of connections for broadcasting. A connection leaves all its rooms when it
// closes. A broadcast encodes a text message once, not once per member.
import { Opcode, ReadyState } from "./constants.js";
import type { WebSocket } from "./websocket.js";

export interface BroadcastOptions {
  /** A member (usually the sender) or members that do not get the message. */
  except?: WebSocket | ReadonlySet<WebSocket> | readonly WebSocket[];
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
}

const NO_MEMBERS: ReadonlySet<WebSocket> = new Set();
const NO_ROOMS: ReadonlySet<string> = new Set();

class RoomTable implements Rooms {
  private readonly rooms = new Map<string, Set<WebSocket>>();
  private readonly memberships = new Map<WebSocket, Set<string>>();

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

export function createRooms(): Rooms {
  return new RoomTable();
}
