// The `Session` a handler receives from `sessionState()`. It only records what the handler does;
// the session layer writes the store and the cookie once the handler has answered.
import { randomBytes } from "node:crypto";

/** 32 random bytes, base64url: the id a session cookie carries (43 characters). */
export function newSessionId(): string {
  return randomBytes(32).toString("base64url");
}

/** @internal What the session layer reads back after the handler: the state of one request's session. */
export interface SessionRecord {
  id: string;
  data: Map<string, unknown>;
  /** The id whose store entry this session was loaded from (null: a new session). */
  storedId: string | null;
  /** Ids whose store entries are to be deleted (regenerate, destroy). */
  retired: string[];
  destroyed: boolean;
}

/** A value as it will read back from the store: its JSON round trip (TypeError when JSON cannot carry it). */
function jsonCopy(key: string, value: unknown): unknown {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (err) {
    throw new TypeError(`session: the value of ${JSON.stringify(key)} is not JSON-serialisable (${(err as Error).message})`);
  }
  if (json === undefined) throw new TypeError(`session: the value of ${JSON.stringify(key)} is not JSON-serialisable`);
  return JSON.parse(json);
}

export class Session {
  /** True when the request came with no usable session (none, unknown, expired or badly signed). */
  readonly isNew: boolean;
  readonly #record: SessionRecord;

  /** @internal made by the session layer. */
  constructor(record: SessionRecord) {
    this.#record = record;
    this.isNew = record.storedId === null;
  }

  /** The session id (changes with `regenerate()`). Never put it in a URL or a log. */
  get id(): string {
    return this.#record.id;
  }

  /**
   * The value stored under `key`. Values are stored as JSON: a value set in this request reads
   * back as it will in the next one (a Date becomes its ISO string). A value read here and changed
   * in place is saved too (the data is compared as JSON after the handler).
   */
  get<T = unknown>(key: string): T | undefined {
    return this.#record.data.get(key) as T | undefined;
  }

  has(key: string): boolean {
    return this.#record.data.has(key);
  }

  /** Store a JSON-serialisable value (a TypeError otherwise: functions, symbols, BigInt, cycles). */
  set(key: string, value: unknown): this {
    if (typeof key !== "string") throw new TypeError("session: keys are strings");
    if (this.#record.destroyed) throw new TypeError("session: set() after destroy(); call regenerate() first to start a new session");
    this.#record.data.set(key, jsonCopy(key, value));
    return this;
  }

  /** Remove `key`; true when it was there. */
  delete(key: string): boolean {
    return this.#record.data.delete(key);
  }

  /** A plain copy of the data. */
  toJSON(): Record<string, unknown> {
    return JSON.parse(JSON.stringify(Object.fromEntries(this.#record.data))) as Record<string, unknown>;
  }

  /**
   * A new id for the same data; the old id's entry is deleted. Call it when the privilege level
   * changes (login), so an id planted or seen before can never reach the logged-in session
   * (session fixation). After `destroy()` it starts a new, empty session.
   */
  regenerate(): this {
    const r = this.#record;
    if (r.storedId === r.id) r.retired.push(r.id);
    if (r.destroyed) {
      r.destroyed = false;
      r.data.clear();
    }
    r.id = newSessionId();
    return this;
  }

  /** End the session: its entry is deleted and the cookie cleared (Max-Age=0). */
  destroy(): void {
    const r = this.#record;
    if (r.storedId === r.id) r.retired.push(r.id);
    r.data.clear();
    r.destroyed = true;
  }
}
