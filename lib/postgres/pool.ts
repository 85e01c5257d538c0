// The connection pool. A statement outside a transaction goes to an idle connection, else to a
// new one while under `max`, else pipelines onto the least busy connection below maxPipeline;
// a transaction takes a connection of its own until it ends. When none fits, the caller waits
// in a FIFO queue bounded by maxWaiting, at most acquireTimeoutMs (PostgresPoolError either
// way). Connections idle past idleTimeoutMs close (down to `min`); past maxLifetimeMs they take
// no new work and close when idle. A connection that broke is dropped, never reused. close()
// refuses new work, waits for what runs up to drainTimeoutMs, then destroys what is left.
import { Connection, type ConnectionConfig } from "./connection.js";
import { PostgresConnectionError, PostgresPoolError } from "./errors.js";

export interface PoolConfig {
  readonly min: number;
  readonly max: number;
  readonly idleTimeoutMs: number;
  readonly maxLifetimeMs: number;
  readonly acquireTimeoutMs: number;
  readonly maxWaiting: number;
  readonly maxPipeline: number;
  readonly drainTimeoutMs: number;
}

/** A snapshot of the pool's state and counters (for metrics and tests). */
export interface PoolStats {
  /** Open and opening connections. */
  total: number;
  /** Open connections with nothing in flight and no transaction. */
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
  /** Statements queued or in flight over all connections. */
  inFlight: number;
  /** Largest number of statements one connection had in flight at once. */
  maxDepthSeen: number;
  opened: number;
  /** Connections that ended by an error (not closed by the pool). */
  lost: number;
  /** Connections closed for idleness or age. */
  retired: number;
  acquireTimeouts: number;
  queueFull: number;
  /** Prepared statements closed to keep caches within statementCacheSize. */
  statementEvictions: number;
}

interface Waiter {
  readonly exclusive: boolean;
  readonly grant: (connection: Connection) => void;
  readonly fail: (error: Error) => void;
  timer: NodeJS.Timeout | null;
}

export class Pool {
  readonly #config: PoolConfig;
  readonly #connectionConfig: ConnectionConfig;
  /** Open connections, and whether a transaction holds each. */
  readonly #open = new Map<Connection, { reserved: boolean; retiring: boolean }>();
  #opening = 0;
  readonly #waiters: Waiter[] = [];
  #sweeper: NodeJS.Timeout | null = null;
  #closing = false;
  #drained: (() => void) | null = null;
  #evictionsOfClosed = 0;
  readonly #stats = { opened: 0, lost: 0, retired: 0, acquireTimeouts: 0, queueFull: 0, maxDepthSeen: 0 };

  constructor(config: PoolConfig, connectionConfig: ConnectionConfig) {
    this.#config = config;
    this.#connectionConfig = connectionConfig;
  }

  get connectionConfig(): ConnectionConfig {
    return this.#connectionConfig;
  }

  stats(): PoolStats {
    let idle = 0;
    let inFlight = 0;
    let evictions = this.#evictionsOfClosed;
    for (const [c, state] of this.#open) {
      if (c.depth === 0 && !state.reserved) idle++;
      inFlight += c.depth;
      evictions += c.evictions;
    }
    return { total: this.#open.size + this.#opening, idle, waiting: this.#waiters.length, inFlight, statementEvictions: evictions, ...this.#stats };
  }

  /**
   * Hands a connection to `grant`, synchronously when one fits now (so the statement is queued on
   * it before anyone else looks), else when one frees or opens; `fail` on timeout or error.
   */
  acquire(exclusive: boolean, grant: (connection: Connection) => void, fail: (error: Error) => void): void {
    if (this.#closing) return fail(new PostgresConnectionError("08003", "the database is closed"));
    const connection = this.#pick(exclusive);
    if (connection !== null) return this.#grant(connection, exclusive, grant);
    if (this.#open.size + this.#opening < this.#config.max) return this.#openFor(exclusive, grant, fail);
    if (this.#waiters.length >= this.#config.maxWaiting) {
      this.#stats.queueFull++;
      return fail(new PostgresPoolError("KEEL_POOL_QUEUE_FULL", `${this.#waiters.length} callers already wait for a connection (maxWaiting)`));
    }
    const waiter: Waiter = { exclusive, grant, fail, timer: null };
    waiter.timer = setTimeout(() => {
      const at = this.#waiters.indexOf(waiter);
      if (at !== -1) this.#waiters.splice(at, 1);
      this.#stats.acquireTimeouts++;
      fail(new PostgresPoolError("KEEL_POOL_TIMEOUT", `no connection within ${this.#config.acquireTimeoutMs} ms (max ${this.#config.max})`));
    }, this.#config.acquireTimeoutMs);
    this.#waiters.push(waiter);
  }

  /** Ends a transaction's hold. A connection left inside a transaction is destroyed, never reused. */
  release(connection: Connection): void {
    const state = this.#open.get(connection);
    if (state !== undefined) {
      state.reserved = false;
      if (connection.transactionStatus !== "I") connection.destroy("released inside a transaction");
    }
    this.settled();
  }

  /** A statement ended: someone waiting may fit now. */
  settled(): void {
    if (this.#waiters.length > 0) this.#dispatch();
    if (this.#drained !== null) this.#checkDrained();
  }

  /** Refuses new work, waits for running statements and transactions (up to drainTimeoutMs), closes every connection. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    for (const waiter of this.#waiters.splice(0)) {
      if (waiter.timer !== null) clearTimeout(waiter.timer);
      waiter.fail(new PostgresConnectionError("08003", "the database is closing"));
    }
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#drained = null;
        resolve();
      }, this.#config.drainTimeoutMs);
      this.#drained = () => {
        clearTimeout(timer);
        this.#drained = null;
        resolve();
      };
      this.#checkDrained();
    });
    for (const connection of [...this.#open.keys()]) {
      if (connection.depth === 0) connection.close();
      else connection.destroy(`the database closed after drainTimeoutMs (${this.#config.drainTimeoutMs} ms) with statements running`);
    }
  }

  #checkDrained(): void {
    if (this.#opening > 0) return;
    for (const [c, state] of this.#open) if (c.depth > 0 || state.reserved) return;
    this.#drained?.();
  }

  #pick(exclusive: boolean): Connection | null {
    const now = Date.now();
    let best: Connection | null = null;
    for (const [c, state] of this.#open) {
      if (state.reserved || state.retiring) continue;
      if (now - c.createdAt > this.#config.maxLifetimeMs) {
        state.retiring = true;
        if (c.depth === 0) this.#retire(c);
        continue;
      }
      if (c.depth === 0) return c;
      if (!exclusive && c.depth < this.#config.maxPipeline && (best === null || c.depth < best.depth)) best = c;
    }
    // Pipeline onto a busy connection only when no new one may open.
    if (best !== null && this.#open.size + this.#opening >= this.#config.max) return best;
    return null;
  }

  #grant(connection: Connection, exclusive: boolean, grant: (connection: Connection) => void): void {
    if (exclusive) this.#open.get(connection)!.reserved = true;
    grant(connection);
    if (connection.depth > this.#stats.maxDepthSeen) this.#stats.maxDepthSeen = connection.depth;
  }

  /** A new connection, counted while it opens and kept once open (the sweeper then watches it). */
  #connect(): Promise<Connection> {
    this.#opening++;
    const connection = new Connection(this.#connectionConfig);
    return connection.open().then(
      () => {
        this.#opening--;
        this.#stats.opened++;
        this.#open.set(connection, { reserved: false, retiring: false });
        connection.onClose = () => this.#closed(connection);
        this.#startSweeper();
        return connection;
      },
      (error: unknown) => {
        this.#opening--;
        throw error;
      },
    );
  }

  #openFor(exclusive: boolean, grant: (connection: Connection) => void, fail: (error: Error) => void): void {
    this.#connect().then(
      (connection) => {
        if (this.#closing) {
          connection.close();
          return fail(new PostgresConnectionError("08003", "the database is closing"));
        }
        this.#grant(connection, exclusive, grant);
        this.#dispatch();
        this.#fillToMin();
      },
      (error: Error) => {
        fail(error);
        // The server cannot be reached: callers waiting would only wait out their timeout.
        if (this.#open.size === 0 && this.#opening === 0) {
          for (const waiter of this.#waiters.splice(0)) {
            if (waiter.timer !== null) clearTimeout(waiter.timer);
            waiter.fail(error);
          }
        }
        if (this.#drained !== null) this.#checkDrained();
      },
    );
  }

  #closed(connection: Connection): void {
    const state = this.#open.get(connection);
    if (state === undefined) return;
    this.#open.delete(connection);
    this.#evictionsOfClosed += connection.evictions;
    if (!state.retiring && !this.#closing) this.#stats.lost++;
    this.settled();
  }

  #dispatch(): void {
    while (this.#waiters.length > 0) {
      const waiter = this.#waiters[0]!;
      const connection = this.#pick(waiter.exclusive);
      if (connection === null && this.#open.size + this.#opening >= this.#config.max) return;
      this.#waiters.shift();
      if (waiter.timer !== null) clearTimeout(waiter.timer);
      if (connection !== null) this.#grant(connection, waiter.exclusive, waiter.grant);
      else this.#openFor(waiter.exclusive, waiter.grant, waiter.fail);
    }
  }

  #fillToMin(): void {
    while (!this.#closing && this.#open.size + this.#opening < this.#config.min) {
      this.#connect().then(
        (connection) => {
          if (this.#closing) connection.close();
          else this.#dispatch();
        },
        () => undefined,
      );
    }
  }

  #retire(connection: Connection): void {
    const state = this.#open.get(connection);
    if (state !== undefined) state.retiring = true;
    this.#stats.retired++;
    connection.close();
  }

  /** One timer for the pool: closes idle connections past idleTimeoutMs (above `min`) and old ones past maxLifetimeMs. */
  #startSweeper(): void {
    if (this.#sweeper !== null) return;
    const period = Math.max(10, Math.min(1000, this.#config.idleTimeoutMs / 2, this.#config.maxLifetimeMs / 2));
    this.#sweeper = setInterval(() => {
      const now = Date.now();
      for (const [c, state] of this.#open) {
        if (c.depth > 0 || state.reserved) continue;
        if (now - c.createdAt > this.#config.maxLifetimeMs) this.#retire(c);
        else if (now - c.lastUsedAt > this.#config.idleTimeoutMs && this.#open.size > this.#config.min) this.#retire(c);
      }
      if (this.#open.size < this.#config.min) this.#fillToMin();
    }, period);
    this.#sweeper.unref();
  }
}
