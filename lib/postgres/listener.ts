// LISTEN/NOTIFY on a connection of its own (a pooled one would lose its LISTENs when recycled).
// It opens on the first listen(), and when it is lost it comes back with backoff (50 ms doubling
// to 2 s, with jitter) and LISTENs again to every channel; notifications sent while it was down
// are lost (Postgres keeps none for an absent listener). Bounded: at most MAX_CHANNELS channels.
import { Connection, type ConnectionConfig } from "./connection.js";
import { runOn } from "./execute.js";

export const MAX_CHANNELS = 1000;

export interface PostgresSubscription {
  /** Stops this callback; the channel is UNLISTENed when it was the last one. */
  unlisten(): Promise<void>;
}

function quoteChannel(channel: string): string {
  return `"${channel.replaceAll('"', '""')}"`;
}

export class Listener {
  readonly #config: ConnectionConfig;
  readonly #channels = new Map<string, Set<(payload: string) => void>>();
  #connection: Connection | null = null;
  #connecting: Promise<Connection> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #attempt = 0;
  #closed = false;
  /** Times the connection came back and re-LISTENed (a figure for tests and stats). */
  reconnects = 0;

  constructor(config: ConnectionConfig) {
    this.#config = config;
  }

  async listen(channel: string, onMessage: (payload: string) => void): Promise<PostgresSubscription> {
    if (typeof channel !== "string" || channel === "" || channel.length > 63) throw new TypeError("listen: the channel is a name of 1 to 63 characters");
    if (typeof onMessage !== "function") throw new TypeError("listen: onMessage must be a function");
    if (this.#closed) throw new Error("the database is closed");
    let callbacks = this.#channels.get(channel);
    const first = callbacks === undefined;
    if (callbacks === undefined) {
      if (this.#channels.size >= MAX_CHANNELS) throw new RangeError(`listen: at most ${MAX_CHANNELS} channels`);
      callbacks = new Set();
      this.#channels.set(channel, callbacks);
    }
    callbacks.add(onMessage);
    if (first) {
      try {
        const connection = await this.#connect();
        await runOn(connection, `listen ${quoteChannel(channel)}`, [], true, undefined, null);
      } catch (error) {
        callbacks.delete(onMessage);
        if (callbacks.size === 0) this.#channels.delete(channel);
        throw error;
      }
    }
    let active = true;
    return {
      unlisten: async () => {
        if (!active) return;
        active = false;
        const set = this.#channels.get(channel);
        if (set === undefined) return;
        set.delete(onMessage);
        if (set.size > 0) return;
        this.#channels.delete(channel);
        const connection = this.#connection;
        if (connection !== null && !connection.closed) await runOn(connection, `unlisten ${quoteChannel(channel)}`, [], true, undefined, null).catch(() => undefined);
      },
    };
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#connection?.close();
    this.#connection = null;
  }

  #connect(): Promise<Connection> {
    if (this.#connection !== null && !this.#connection.closed) return Promise.resolve(this.#connection);
    if (this.#connecting !== null) return this.#connecting;
    const connection = new Connection(this.#config);
    this.#connecting = connection.open().then(
      () => {
        this.#connecting = null;
        if (this.#closed) {
          connection.close();
          throw new Error("the database is closed");
        }
        this.#connection = connection;
        connection.onNotification = (channel, payload) => this.#deliver(channel, payload);
        connection.onClose = () => {
          if (this.#connection === connection) this.#connection = null;
          if (!this.#closed && this.#channels.size > 0) this.#scheduleReconnect();
        };
        return connection;
      },
      (error: unknown) => {
        this.#connecting = null;
        throw error;
      },
    );
    return this.#connecting;
  }

  #deliver(channel: string, payload: string): void {
    const callbacks = this.#channels.get(channel);
    if (callbacks === undefined) return;
    for (const callback of callbacks) {
      try {
        callback(payload);
      } catch {
        // A throwing listener must not stop the others or the connection.
      }
    }
  }

  #scheduleReconnect(): void {
    if (this.#timer !== null) return;
    const base = Math.min(2000, 50 * 2 ** this.#attempt);
    this.#attempt++;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#closed || this.#channels.size === 0) return;
      this.#connect()
        .then((connection) => {
          const text = [...this.#channels.keys()].map((c) => `listen ${quoteChannel(c)}`).join("; ");
          return runOn(connection, text, [], true, undefined, null);
        })
        .then(
          () => {
            this.#attempt = 0;
            this.reconnects++;
          },
          () => {
            if (this.#connection !== null) this.#connection.destroy("re-LISTEN failed");
            else this.#scheduleReconnect();
          },
        );
    }, base / 2 + Math.random() * (base / 2));
    this.#timer.unref();
  }
}
