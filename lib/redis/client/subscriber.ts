// Pub/sub on a dedicated RESP2 connection (a subscribed connection takes no other commands).
// One SUBSCRIBE per channel, so each command gets exactly one confirmation in FIFO order. After a
// reconnect every channel with listeners is subscribed again; messages published while the
// connection was down are lost (pub/sub is at-most-once).
import { RedisConnection, type ConnectionConfig } from "./connection.js";
import { RedisConnectionError } from "./errors.js";
import { nextBackoffMs, type Backoff } from "./backoff.js";
import type { RedisReply } from "./types.js";

export type MessageListener = (message: string) => void;

/** One subscribe() call: its own entry, so one function subscribed twice is two subscriptions. */
interface Subscription {
  readonly listener: MessageListener;
}

export class RedisSubscriber {
  private readonly config: ConnectionConfig;
  private readonly backoff: Backoff;
  private readonly channels = new Map<string, Set<Subscription>>();
  private connection: RedisConnection | null = null;
  /** The first connect, awaited by the first subscribe. */
  private opening: Promise<void> | null = null;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private started = false;

  constructor(config: ConnectionConfig, backoff: Backoff) {
    this.config = { ...config, resp: 2 };
    this.backoff = backoff;
  }

  async subscribe(channel: string, listener: MessageListener): Promise<() => Promise<void>> {
    if (this.closed) throw new RedisConnectionError("Redis client closed");
    if (!this.started) {
      // Connected lazily by the first subscribe; afterwards only the backoff loop reconnects.
      this.started = true;
      this.opening = this.connect();
    }
    if (this.opening !== null) await this.opening;
    const connection = this.connection as RedisConnection | null;
    if (connection === null || connection.state !== "ready") throw new RedisConnectionError("Redis pub/sub connection is down");

    const subscription: Subscription = { listener };
    const subscriptions = this.channels.get(channel);
    if (subscriptions === undefined) {
      this.channels.set(channel, new Set([subscription]));
      try {
        await connection.send(["SUBSCRIBE", channel], false);
      } catch (err) {
        this.remove(channel, subscription);
        throw err;
      }
    } else {
      subscriptions.add(subscription);
    }

    let subscribed = true;
    return async () => {
      if (!subscribed) return;
      subscribed = false;
      if (!this.remove(channel, subscription)) return;
      const current = this.connection;
      if (current !== null && current.state === "ready") {
        // If the connection is lost meanwhile, the channel is simply not subscribed again.
        await current.send(["UNSUBSCRIBE", channel], false).catch(() => undefined);
      }
    };
  }

  /** Removes a subscription; true when it was the channel's last. */
  private remove(channel: string, subscription: Subscription): boolean {
    const subscriptions = this.channels.get(channel);
    if (subscriptions === undefined || !subscriptions.delete(subscription)) return false;
    if (subscriptions.size > 0) return false;
    this.channels.delete(channel);
    return true;
  }

  private connect(): Promise<void> {
    const connection = new RedisConnection(this.config, (c) => this.onClose(c), {
      pubsub: true,
      onPush: (frame) => this.onMessage(frame),
    });
    this.connection = connection;
    return connection.open().then(
      () => {
        this.opening = null;
        this.attempt = 0;
        if (this.closed) return void connection.close();
        // Resubscribe everything (pipelined); a failure means the connection died again.
        for (const channel of this.channels.keys()) connection.send(["SUBSCRIBE", channel], false).catch(() => undefined);
      },
      () => {
        this.opening = null;
      },
    );
  }

  private onClose(connection: RedisConnection): void {
    if (this.connection !== connection) return;
    this.connection = null;
    if (this.closed) return;
    const delay = nextBackoffMs(this.backoff, this.attempt++);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.closed) void this.connect();
    }, delay);
    this.reconnectTimer.unref();
  }

  private onMessage(frame: RedisReply): void {
    if (!Array.isArray(frame)) return;
    // ["message", channel, payload] or ["pmessage", pattern, channel, payload]
    const channel = frame[frame.length - 2];
    const payload = frame[frame.length - 1];
    if (typeof channel !== "string") return;
    const subscriptions = this.channels.get(channel);
    if (subscriptions === undefined) return;
    const message = typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : String(payload);
    for (const { listener } of subscriptions) {
      try {
        listener(message);
      } catch (err) {
        // A listener's bug must not kill the connection or the process: reported, not thrown.
        process.emitWarning(`Redis pub/sub listener for ${JSON.stringify(channel)} threw: ${(err as Error)?.message ?? String(err)}`, "RedisSubscriberWarning");
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.channels.clear();
    const connection = this.connection;
    this.connection = null;
    if (connection !== null) await connection.close();
  }
}
