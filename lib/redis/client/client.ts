// The Redis client: a small pool of pipelined connections. A command goes to the ready
// connection with the fewest commands in flight. While no connection is up, commands reject at
// once with RedisConnectionError (fail fast, no offline queue) and the connections come back in
// the background with exponential backoff and jitter. Only the very first connect, started when
// the client is created, is waited for (bounded by connectTimeoutMs): a client used right after
// its creation does not fail for having been quick.
import { RedisConnection } from "./connection.js";
import { RedisConnectionError, RedisDesyncError, RedisError } from "./errors.js";
import { nextBackoffMs } from "./backoff.js";
import { resolveOptions, type RedisClientOptions, type ResolvedOptions } from "./options.js";
import { RedisScript, evalshaCommand, loadAndRun } from "./script.js";
import { RedisSubscriber, type MessageListener } from "./subscriber.js";
import type { RedisArg, RedisReply } from "./types.js";

export type RedisStatus = "ready" | "down";

/** Server errors during a handshake that pass by themselves: a server loading its data, busy with a script, or a replica without its primary. */
const TRANSIENT_REFUSALS = new Set(["LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN"]);

/** A handshake the server refused for good (wrong password, bad db): waiting will not fix it. */
function isFinalRefusal(error: RedisConnectionError): boolean {
  return error.cause instanceof RedisError && !TRANSIENT_REFUSALS.has(error.cause.code);
}

/** One place in the pool: its current connection and its reconnect state. */
class Slot {
  connection: RedisConnection | null = null;
  attempt = 0;
  timer: NodeJS.Timeout | null = null;
  /** The first connect attempt has ended (either way). */
  tried = false;
}

export class RedisClient {
  // Private fields: the options (password included) never show in util.inspect or JSON.
  readonly #options: ResolvedOptions;
  readonly #slots: Slot[] = [];
  /** Ready connections, the ones commands go to. */
  readonly #ready: RedisConnection[] = [];
  readonly #statusListeners = new Set<(status: RedisStatus) => void>();
  #lastError: RedisConnectionError | null = null;
  #closed = false;
  #subscriber: RedisSubscriber | null = null;
  /** Settles when the first connect attempts have ended; null afterwards. */
  #initial: Promise<void> | null;
  #endInitial!: () => void;
  /** connect() callers, told about every failed attempt. */
  readonly #attemptWatchers = new Set<(error: RedisConnectionError) => void>();
  readonly #send = (args: readonly RedisArg[]): Promise<RedisReply> => this.command(args);
  /** After NOSCRIPT (a restarted or flushed server): SCRIPT LOAD, then EVALSHA once more. */
  readonly #rerunScript = (script: RedisScript, keys: readonly string[], args: readonly RedisArg[]): Promise<RedisReply> =>
    loadAndRun(this.#send, script, evalshaCommand(script, keys, args));

  constructor(urlOrOptions?: string | RedisClientOptions) {
    this.#options = resolveOptions(urlOrOptions);
    this.#initial = new Promise<void>((resolve) => (this.#endInitial = resolve));
    for (let i = 0; i < this.#options.poolSize; i++) {
      const slot = new Slot();
      this.#slots.push(slot);
      this.#open(slot);
    }
  }

  /** True while at least one connection is up. */
  get ready(): boolean {
    return this.#ready.length > 0;
  }

  /** Runs a command; bulk strings come back as UTF-8 strings. */
  command(args: readonly RedisArg[]): Promise<RedisReply> {
    const connection = this.#pick();
    if (connection !== null) return connection.send(args, false);
    return this.#whenDown(args, false);
  }

  /** Runs a command; bulk strings come back as Buffers. */
  commandBuffer(args: readonly RedisArg[]): Promise<RedisReply> {
    const connection = this.#pick();
    if (connection !== null) return connection.send(args, true);
    return this.#whenDown(args, true);
  }

  /** A Lua script; run with EVALSHA, on NOSCRIPT it loads (SCRIPT LOAD) and retries once. */
  script(source: string): RedisScript {
    return new RedisScript(source);
  }

  /** Runs `script` with EVALSHA (see script()). `keys` and `args` are read again if the script has to be loaded: leave them unchanged until the promise settles. */
  run(script: RedisScript, keys: readonly string[], args: readonly RedisArg[]): Promise<RedisReply> {
    const connection = this.#pick();
    if (connection !== null) return connection.sendScript(script, keys, args);
    return this.#whenDown(evalshaCommand(script, keys, args), false).catch((err: unknown) => {
      if (!(err instanceof RedisError) || err.code !== "NOSCRIPT") throw err;
      return this.#rerunScript(script, keys, args);
    });
  }

  /**
   * Pub/sub on a dedicated connection (resubscribes after reconnect). Returns an unsubscribe
   * function. Rejects RedisConnectionError while that connection is down. A listener that throws
   * is reported as a process warning.
   */
  subscribe(channel: string, listener: MessageListener): Promise<() => Promise<void>> {
    if (this.#closed) return Promise.reject(new RedisConnectionError("Redis client closed"));
    this.#subscriber ??= new RedisSubscriber(this.#options.connection, this.#options.backoff);
    return this.#subscriber.subscribe(channel, listener);
  }

  /** Called with "ready" when the first connection comes up and "down" when the last goes. */
  onStatus(listener: (status: RedisStatus) => void): () => void {
    this.#statusListeners.add(listener);
    return () => void this.#statusListeners.delete(listener);
  }

  /** Waits until connected (or rejects RedisConnectionError after connectTimeoutMs, or at once when the server refuses the handshake). */
  connect(): Promise<void> {
    if (this.#closed) return Promise.reject(new RedisConnectionError("Redis client closed"));
    if (this.ready) return Promise.resolve();
    const { connectTimeoutMs, host, port } = this.#options.connection;
    return new Promise<void>((resolve, reject) => {
      const finish = (error: RedisConnectionError | null): void => {
        clearTimeout(timer);
        this.#attemptWatchers.delete(onAttemptFailed);
        unsubscribe();
        if (error === null) resolve();
        else reject(error);
      };
      const onAttemptFailed = (error: RedisConnectionError): void => {
        if (isFinalRefusal(error)) finish(error);
      };
      const unsubscribe = this.onStatus((status) => {
        if (status === "ready") finish(null);
      });
      const timer = setTimeout(() => {
        const why = this.#lastError === null ? "" : `: ${this.#lastError.message}`;
        finish(new RedisConnectionError(`Redis at ${host}:${port} not reachable within ${connectTimeoutMs} ms${why}`, { cause: this.#lastError ?? undefined }));
      }, connectTimeoutMs);
      this.#attemptWatchers.add(onAttemptFailed);
      if (this.#lastError !== null && isFinalRefusal(this.#lastError) && this.#slots.every((s) => s.tried)) {
        finish(this.#lastError);
      }
    });
  }

  /** Graceful: waits for replies in flight, then QUIT. Later commands reject RedisConnectionError. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const wasReady = this.ready;
    const closing: Promise<void>[] = [];
    for (const slot of this.#slots) {
      if (slot.timer !== null) clearTimeout(slot.timer);
      slot.timer = null;
      if (slot.connection !== null) closing.push(slot.connection.close());
    }
    if (this.#subscriber !== null) closing.push(this.#subscriber.close());
    this.#ready.length = 0;
    this.#settleInitial();
    await Promise.all(closing);
    if (wasReady) this.#emit("down");
  }

  /**
   * Drops every connection now: commands in flight reject with `error` (a RedisConnectionError)
   * and each connection comes back in the background with backoff. For a stream out of step.
   */
  reset(error: RedisConnectionError): void {
    for (const slot of this.#slots) slot.connection?.destroy(error);
  }

  /**
   * A reply of the wrong shape for `what` (a script answering what it never answers): replies may
   * belong to other commands, so every connection is reset (see reset) and the RedisDesyncError
   * to throw is returned: a 503 with Retry-After, like a lost connection.
   */
  desynchronised(what: string): RedisDesyncError {
    const error = new RedisDesyncError(`Redis reply out of step with its command (${what}); the connections were reset`);
    this.reset(error);
    return error;
  }

  toString(): string {
    const { host, port, db, tls } = this.#options.connection;
    return `RedisClient(${tls === undefined ? "redis" : "rediss"}://${host}:${port}/${db ?? 0})`;
  }

  #pick(): RedisConnection | null {
    const ready = this.#ready;
    if (ready.length === 0) return null;
    let best = ready[0] as RedisConnection;
    for (let i = 1; i < ready.length; i++) {
      const candidate = ready[i] as RedisConnection;
      if (candidate.pendingCount < best.pendingCount) best = candidate;
    }
    return best;
  }

  #whenDown(args: readonly RedisArg[], buffers: boolean): Promise<RedisReply> {
    if (!this.#closed && this.#initial !== null) {
      return this.#initial.then(() => {
        const connection = this.#pick();
        return connection !== null ? connection.send(args, buffers) : Promise.reject(this.#downError());
      });
    }
    return Promise.reject(this.#downError());
  }

  #downError(): RedisConnectionError {
    if (this.#closed) return new RedisConnectionError("Redis client closed");
    const { host, port } = this.#options.connection;
    const why = this.#lastError === null ? "" : ` (${this.#lastError.message})`;
    return new RedisConnectionError(`Redis at ${host}:${port} is not connected${why}`, { cause: this.#lastError ?? undefined });
  }

  #open(slot: Slot): void {
    const connection = new RedisConnection(this.#options.connection, (c, error) => this.#onClosed(slot, c, error), { rerunScript: this.#rerunScript });
    slot.connection = connection;
    connection.open().then(
      () => {
        slot.attempt = 0;
        if (this.#closed) return void connection.close();
        this.#ready.push(connection);
        this.#attempted(slot);
        if (this.#ready.length === 1) this.#emit("ready");
        this.#settleInitial();
      },
      () => {
        // #onClosed has run (teardown precedes the rejection): the reconnect is scheduled.
      },
    );
  }

  #onClosed(slot: Slot, connection: RedisConnection, error: RedisConnectionError): void {
    if (slot.connection === connection) slot.connection = null;
    this.#lastError = error;
    const at = this.#ready.indexOf(connection);
    if (at !== -1) {
      this.#ready.splice(at, 1);
      if (this.#ready.length === 0 && !this.#closed) this.#emit("down");
    } else {
      // It never became ready: a failed attempt.
      this.#attempted(slot);
      for (const watcher of this.#attemptWatchers) watcher(error);
    }
    if (this.#closed) return;
    const delay = nextBackoffMs(this.#options.backoff, slot.attempt++);
    slot.timer = setTimeout(() => {
      slot.timer = null;
      if (!this.#closed) this.#open(slot);
    }, delay);
    slot.timer.unref();
  }

  #attempted(slot: Slot): void {
    if (slot.tried) return;
    slot.tried = true;
    if (this.#slots.every((s) => s.tried)) this.#settleInitial();
  }

  #settleInitial(): void {
    if (this.#initial === null) return;
    this.#initial = null;
    this.#endInitial();
  }

  #emit(status: RedisStatus): void {
    for (const listener of this.#statusListeners) {
      try {
        listener(status);
      } catch (err) {
        process.emitWarning(`Redis status listener threw: ${(err as Error)?.message ?? String(err)}`, "RedisClientWarning");
      }
    }
  }
}

/**
 * A Redis client for a URL (redis://, rediss://) or options; it starts connecting at once.
 * While Redis is down, commands fail fast with errors that answer 503 in any app.
 *
 * @example
 * const redis = redisClient(process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379");
 * const hits = await redis.command(["INCR", "hits"]);
 * app.onShutdown(() => redis.close());
 * @see docs/features/redis.md
 */
export function redisClient(urlOrOptions?: string | RedisClientOptions): RedisClient {
  return new RedisClient(urlOrOptions);
}
