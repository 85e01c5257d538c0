// The Streamable HTTP sessions: an id issued at initialize, required on every later request.
// Bounded: at most `max` sessions; one idle longer than `idleMs` is gone (checked when looked up
// and when a new one needs room: no timers). When full, the least recently used session is
// evicted: its client gets 404 on its next request, which MCP tells clients to answer by
// initializing again, so a flood of sessions costs others one re-initialize, never memory.
import { randomUUID } from "node:crypto";

export const DEFAULT_MAX_SESSIONS = 1000;
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

export interface McpSession {
  readonly id: string;
  /** The protocol version agreed at initialize. */
  readonly protocolVersion: string;
  lastSeen: number;
}

/** Counters for the sessions map (`McpServer.stats()`). */
export interface McpSessionStats {
  readonly sessions: number;
  readonly created: number;
  /** Dropped to make room for a new one (the map was full). */
  readonly evicted: number;
  /** Dropped after `idleMs` without a request. */
  readonly expired: number;
  /** Ended by the client (DELETE). */
  readonly ended: number;
}

export class SessionTable {
  readonly #max: number;
  readonly #idleMs: number;
  readonly #now: () => number;
  /** In least-recently-used order (a touched session moves to the end). */
  readonly #sessions = new Map<string, McpSession>();
  #created = 0;
  #evicted = 0;
  #expired = 0;
  #ended = 0;

  constructor(max: number, idleMs: number, now: () => number = Date.now) {
    if (!Number.isSafeInteger(max) || max < 1) throw new TypeError("mcpServer: maxSessions must be a positive integer");
    if (!(idleMs > 0)) throw new TypeError("mcpServer: sessionIdleMs must be positive");
    this.#max = max;
    this.#idleMs = idleMs;
    this.#now = now;
  }

  /** A new session; `onEvict` hears of the one that made room, if any. */
  open(protocolVersion: string, onEvict?: (evicted: McpSession) => void): McpSession {
    const now = this.#now();
    this.#expireOldest(now);
    if (this.#sessions.size >= this.#max) {
      const oldest = this.#sessions.values().next().value!;
      this.#sessions.delete(oldest.id);
      this.#evicted++;
      onEvict?.(oldest);
    }
    const session: McpSession = { id: randomUUID(), protocolVersion, lastSeen: now };
    this.#sessions.set(session.id, session);
    this.#created++;
    return session;
  }

  /** The live session with this id (marked as used now), or undefined. */
  touch(id: string): McpSession | undefined {
    const session = this.#sessions.get(id);
    if (session === undefined) return undefined;
    const now = this.#now();
    this.#sessions.delete(id);
    if (now - session.lastSeen > this.#idleMs) {
      this.#expired++;
      return undefined;
    }
    session.lastSeen = now;
    this.#sessions.set(id, session);
    return session;
  }

  /** Ends a session; false when there was none. */
  end(id: string): boolean {
    const had = this.#sessions.delete(id);
    if (had) this.#ended++;
    return had;
  }

  stats(): McpSessionStats {
    return { sessions: this.#sessions.size, created: this.#created, evicted: this.#evicted, expired: this.#expired, ended: this.#ended };
  }

  /** Drops idle sessions from the old end (the map is in last-use order, so it stops at the first live one). */
  #expireOldest(now: number): void {
    for (const session of this.#sessions.values()) {
      if (now - session.lastSeen <= this.#idleMs) return;
      this.#sessions.delete(session.id);
      this.#expired++;
    }
  }
}
