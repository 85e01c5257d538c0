// SqlDatabase over node:sqlite's DatabaseSync: one connection, statements run synchronously on the
// caller's turn. Because the connection is one, a transaction owns it while it is open: other
// statements on the database wait in a bounded queue (WorkQueue) instead of running inside it,
// and the same holds for a savepoint inside its transaction.
import type { AnySchema } from "../index.js";
import { renderSql, sql, type SqlDatabase, type SqlFragment, type SqlQueryOptions, type SqlRow, type SqlRows, type SqlTransaction } from "../sql/index.js";
import type { NativeDatabase, NativeStatement } from "./node-sqlite.js";
import { checkRows } from "./row-check.js";
import { StatementCache } from "./statement-cache.js";
import { fromRows, toParameters, type IntegerMode } from "./values.js";
import { WorkQueue } from "./work-queue.js";

/** SQLite's parameter placeholders: `?` (numbered by position, as SQLite numbers them). */
const SQLITE_DIALECT = { placeholder: () => "?", maxParameters: 32766 };

/** How `begin` starts its transaction (SQLite's BEGIN DEFERRED / IMMEDIATE / EXCLUSIVE). */
export type SqliteTransactionBehavior = "deferred" | "immediate" | "exclusive";

export interface SqliteBeginOptions {
  /** Default "immediate": the write lock is taken at BEGIN, so a busy database fails there, not mid-way. */
  readonly behavior?: SqliteTransactionBehavior;
}

export interface SqliteStats {
  /** Prepared statements held by the cache. */
  readonly cachedStatements: number;
  /** Statements dropped from the cache to stay within `statementCacheSize`. */
  readonly cacheEvictions: number;
  /** Calls waiting for a transaction to finish. */
  readonly waiting: number;
  /** Calls refused with SQLITE_BUSY: the queue was full (`maxQueue`) or the wait passed `busyTimeoutMs`. */
  readonly refused: number;
}

/** A SQLite transaction or savepoint: also runs a script (several statements) inside itself. */
export interface SqliteTransaction extends SqlTransaction {
  savepoint<T>(fn: (tx: SqliteTransaction) => Promise<T>): Promise<T>;
  executeScript(text: string): Promise<void>;
}

export interface SqliteDatabase extends SqlDatabase {
  readonly dialect: "sqlite";
  /** The file (or ":memory:") this database was opened on. */
  readonly path: string;
  begin<T>(fn: (tx: SqliteTransaction) => Promise<T>, options?: SqliteBeginOptions): Promise<T>;
  stats(): SqliteStats;
}

/** What every scope shares: the connection, its statement cache, and how integers are read. */
class Connection {
  readonly native: NativeDatabase;
  readonly cache: StatementCache;
  readonly integers: IntegerMode;
  readonly maxQueue: number;
  readonly busyTimeoutMs: number;
  #changes: NativeStatement | null = null;
  readonly #prepare: (text: string) => NativeStatement;

  constructor(native: NativeDatabase, cacheSize: number, integers: IntegerMode, maxQueue: number, busyTimeoutMs: number) {
    this.native = native;
    this.cache = new StatementCache(cacheSize);
    this.integers = integers;
    this.maxQueue = maxQueue;
    this.busyTimeoutMs = busyTimeoutMs;
    this.#prepare = (text) => {
      const statement = native.prepare(text);
      // Integers are read as bigints so that none is rounded; fromRows narrows the safe ones.
      statement.setReadBigInts(true);
      return statement;
    };
  }

  /** Runs one statement now; its rows (or none) with `count`: rows returned, else rows changed. */
  execute(fragment: SqlFragment): SqlRows<SqlRow> {
    const rendered = renderSql(fragment, SQLITE_DIALECT);
    const statement = this.cache.get(rendered.text, this.#prepare);
    const params = toParameters(rendered.values);
    if (statement.columns !== undefined) {
      if (statement.columns().length === 0) {
        const result = statement.run(...params);
        return withCount([], Number(result.changes));
      }
      const rows = fromRows(statement.all(...params), this.integers);
      return withCount(rows, rows.length);
    }
    // Node before 22.16 has no columns(): total_changes() before and after tells the writes apart.
    const before = this.#totalChanges();
    const rows = fromRows(statement.all(...params), this.integers);
    return withCount(rows, rows.length > 0 ? rows.length : this.#totalChanges() - before);
  }

  #totalChanges(): number {
    this.#changes ??= this.#prepare("select total_changes() as n");
    return Number(this.#changes.all()[0]!["n"]);
  }
}

function withCount(rows: SqlRow[], count: number): SqlRows<SqlRow> {
  return Object.defineProperty(rows, "count", { value: count, enumerable: false }) as SqlRows<SqlRow>;
}

function closedError(what: string): Error {
  return Object.assign(new Error(`keel/sqlite: the ${what} is ${what === "database" ? "closed" : "finished"}`), { code: "ERR_KEEL_SQLITE_CLOSED" });
}

/** What runs statements in turn: the database itself, a transaction, or a savepoint. */
abstract class Scope {
  protected readonly conn: Connection;
  /** Held by whoever owns this scope's connection time: a transaction (on the database) or a savepoint. */
  readonly queue: WorkQueue;
  protected abstract readonly what: string;

  constructor(conn: Connection) {
    this.conn = conn;
    this.queue = new WorkQueue(conn.maxQueue, conn.busyTimeoutMs);
  }

  /** No new calls are taken (the database is closing, the transaction finished). */
  protected abstract get refusing(): boolean;
  /** Nothing can run any more, not even what was already waiting. */
  protected abstract get ended(): boolean;

  sql<Row = SqlRow>(strings: TemplateStringsArray, ...values: unknown[]): Promise<SqlRows<Row>> {
    // The sql tag refuses a plain array (only a real template literal carries `raw`).
    let fragment: SqlFragment;
    try {
      fragment = sql(strings, ...values);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.query(fragment) as Promise<SqlRows<Row>>;
  }

  query<S extends AnySchema | undefined = undefined>(fragment: SqlFragment, options?: SqlQueryOptions<S>): Promise<SqlRows<never>> {
    if (this.refusing) return Promise.reject(closedError(this.what));
    if (this.queue.free) return this.#now(fragment, options);
    return this.queue.acquire(options?.signal).then(() => {
      try {
        if (this.ended) throw closedError(this.what);
        return this.#now(fragment, options);
      } finally {
        this.queue.release();
      }
    });
  }

  executeScript(text: string): Promise<void> {
    if (typeof text !== "string") return Promise.reject(new TypeError("executeScript takes the text of the script"));
    return this.turn(undefined, () => this.conn.native.exec(text));
  }

  savepoint<T>(fn: (tx: SqliteTransaction) => Promise<T>): Promise<T> {
    return this.unit(fn, "savepoint", undefined);
  }

  /** Runs `work` when this scope is free (now, or after what holds it), refused once it ended. */
  protected turn<T>(signal: AbortSignal | undefined, work: () => T, timeoutMs?: number): Promise<T> {
    if (this.refusing) return Promise.reject(closedError(this.what));
    return this.queue.acquire(signal, timeoutMs).then(() => {
      try {
        if (this.ended) throw closedError(this.what);
        return work();
      } finally {
        this.queue.release();
      }
    });
  }

  #now(fragment: SqlFragment, options: SqlQueryOptions<AnySchema | undefined> | undefined): Promise<SqlRows<never>> {
    const signal = options?.signal;
    // node:sqlite cannot interrupt a running statement: the signal is honoured until it starts.
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    let rows: SqlRows<SqlRow>;
    try {
      rows = this.conn.execute(fragment);
    } catch (err) {
      return Promise.reject(err);
    }
    const schema = options?.rows;
    if (schema === undefined) return Promise.resolve(rows as SqlRows<never>);
    return checkRows(rows, schema).then(() => rows as SqlRows<never>);
  }

  /**
   * A transaction (from the database) or a savepoint (from a transaction): this scope's queue is
   * held from the opening statement to the closing one, so nothing else on this scope runs inside
   * it; the child's own statements go through the child's queue.
   */
  protected async unit<T>(fn: (tx: SqliteTransaction) => Promise<T>, kind: "savepoint" | SqliteTransactionBehavior, signal: AbortSignal | undefined): Promise<T> {
    if (this.refusing) throw closedError(this.what);
    await this.queue.acquire(signal);
    const native = this.conn.native;
    const name = kind === "savepoint" ? `keel_sp_${this.depth + 1}` : "";
    const child = new Transaction(this.conn, this.depth + 1);
    try {
      if (this.ended) throw closedError(this.what);
      native.exec(kind === "savepoint" ? `SAVEPOINT ${name}` : `BEGIN ${kind.toUpperCase()}`);
    } catch (err) {
      this.queue.release();
      throw err;
    }
    try {
      const result = await fn(child);
      // Statements the callback started but did not await finish first, then nothing more runs in it.
      await child.queue.acquire();
      child.finished = true;
      child.queue.release();
      native.exec(kind === "savepoint" ? `RELEASE ${name}` : "COMMIT");
      return result;
    } catch (err) {
      child.finished = true;
      try {
        native.exec(kind === "savepoint" ? `ROLLBACK TO ${name}; RELEASE ${name}` : "ROLLBACK");
      } catch {
        // A failed COMMIT may already have ended the transaction: nothing is left to roll back.
      }
      throw err;
    } finally {
      this.queue.release();
    }
  }

  /** 0 for the database, 1 for a transaction, 2+ for savepoints. */
  protected abstract get depth(): number;
}

class Transaction extends Scope implements SqliteTransaction {
  protected readonly what = "transaction";
  finished = false;
  readonly #depth: number;

  constructor(conn: Connection, depth: number) {
    super(conn);
    this.#depth = depth;
  }

  protected get refusing(): boolean {
    return this.finished;
  }

  protected get ended(): boolean {
    return this.finished;
  }

  protected get depth(): number {
    return this.#depth;
  }
}

export class SqliteDatabaseImpl extends Scope implements SqliteDatabase {
  readonly dialect = "sqlite" as const;
  readonly path: string;
  protected readonly what = "database";
  #closing: Promise<void> | null = null;
  #closed = false;

  constructor(native: NativeDatabase, path: string, options: { cacheSize: number; integers: IntegerMode; maxQueue: number; busyTimeoutMs: number }) {
    super(new Connection(native, options.cacheSize, options.integers, options.maxQueue, options.busyTimeoutMs));
    this.path = path;
  }

  protected get refusing(): boolean {
    return this.#closing !== null;
  }

  protected get ended(): boolean {
    return this.#closed;
  }

  protected get depth(): number {
    return 0;
  }

  begin<T>(fn: (tx: SqliteTransaction) => Promise<T>, options?: SqliteBeginOptions): Promise<T> {
    const behavior = options?.behavior ?? "immediate";
    if (behavior !== "deferred" && behavior !== "immediate" && behavior !== "exclusive") return Promise.reject(new TypeError(`begin: behavior is "deferred", "immediate" or "exclusive", not ${JSON.stringify(behavior)}`));
    return this.unit(fn, behavior, undefined);
  }

  override savepoint<T>(): Promise<T> {
    return Promise.reject(new TypeError("keel/sqlite: a savepoint lives in a transaction: db.begin(async (tx) => tx.savepoint(...))"));
  }

  ping(timeoutMs = 1000): Promise<void> {
    return this.turn(undefined, () => void this.conn.native.prepare("select 1").all(), timeoutMs);
  }

  stats(): SqliteStats {
    return { cachedStatements: this.conn.cache.size, cacheEvictions: this.conn.cache.evictions, waiting: this.queue.waiting, refused: this.queue.refused };
  }

  close(): Promise<void> {
    if (this.#closing !== null) return this.#closing;
    // New calls are refused from now on; what already waits still runs, then the connection closes.
    // A transaction that does not finish within busyTimeoutMs is rolled back by the close.
    this.#closing = this.queue.acquire(undefined, this.conn.busyTimeoutMs).then(
      () => this.#closeNow(),
      () => this.#closeNow(),
    );
    return this.#closing;
  }

  #closeNow(): void {
    this.#closed = true;
    this.conn.cache.clear();
    try {
      this.conn.native.close();
    } catch {
      // Already closed: close() is idempotent.
    }
  }
}
