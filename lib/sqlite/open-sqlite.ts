// openSqlite: a file (or ":memory:") as a keel SqlDatabase. The connection is configured the way
// a server process wants it: WAL (readers do not block the writer, and a crash loses no committed
// transaction), a busy timeout (another process's write lock is waited for, not an instant
// SQLITE_BUSY), and foreign keys enforced.
import { loadNodeSqlite } from "./node-sqlite.js";
import { SqliteDatabaseImpl, type SqliteDatabase } from "./sqlite-database.js";
import type { IntegerMode } from "./values.js";

export interface SqliteOptions {
  /** Journal in WAL mode (default true; a ":memory:" database has no journal file to switch). */
  readonly wal?: boolean;
  /**
   * How long a statement waits for another connection's lock (PRAGMA busy_timeout), and how long a
   * call waits for this database's open transaction before SQLITE_BUSY (default 5000 ms).
   * SQLite's own wait blocks the event loop (node:sqlite is synchronous): keep it short.
   */
  readonly busyTimeoutMs?: number;
  /** Prepared statements kept, least recently used dropped first (default 100; 0 = none kept). */
  readonly statementCacheSize?: number;
  /** Calls that may wait while a transaction holds the database; one more is SQLITE_BUSY (default 1000). */
  readonly maxQueue?: number;
  /** "number" (default): integers past ±(2^53 - 1) come back as bigint, the rest as number. "bigint": every integer is a bigint. */
  readonly integers?: IntegerMode;
  /** Open read-only (default false). */
  readonly readOnly?: boolean;
  /** Enforce foreign keys (default true, PRAGMA foreign_keys). */
  readonly foreignKeys?: boolean;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5000;
export const DEFAULT_STATEMENT_CACHE_SIZE = 100;
export const DEFAULT_MAX_QUEUE = 1000;

function wholeNumber(value: number, name: string, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`openSqlite: ${name} must be a whole number from ${min} to ${max}`);
  return value;
}

/**
 * Opens a SQLite database on node:sqlite (Node 22.13+; elsewhere it rejects with a
 * SqliteUnavailableError naming the running Node).
 *
 * @example
 * const db = await openSqlite("./data/app.db");
 * const [user] = await db.sql<{ id: number; email: string }>`select id, email from users where id = ${id}`;
 * await db.begin(async (tx) => {
 *   await tx.sql`insert into users (email) values (${email})`;
 * });
 *
 * @see docs/features/sqlite.md
 */
export async function openSqlite(path: string, options: SqliteOptions = {}): Promise<SqliteDatabase> {
  if (typeof path !== "string" || path === "") throw new TypeError('openSqlite: path is a file path or ":memory:"');
  const busyTimeoutMs = wholeNumber(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS, "busyTimeoutMs", 0, 600_000);
  const cacheSize = wholeNumber(options.statementCacheSize ?? DEFAULT_STATEMENT_CACHE_SIZE, "statementCacheSize", 0, 100_000);
  const maxQueue = wholeNumber(options.maxQueue ?? DEFAULT_MAX_QUEUE, "maxQueue", 0, 1_000_000);
  const integers = options.integers ?? "number";
  if (integers !== "number" && integers !== "bigint") throw new TypeError('openSqlite: integers is "number" or "bigint"');
  const { DatabaseSync } = await loadNodeSqlite();
  const native = new DatabaseSync(path, { readOnly: options.readOnly === true, enableForeignKeyConstraints: options.foreignKeys !== false });
  try {
    native.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    if (options.wal !== false && path !== ":memory:" && options.readOnly !== true) native.exec("PRAGMA journal_mode = WAL");
  } catch (err) {
    native.close();
    throw err;
  }
  return new SqliteDatabaseImpl(native, path, { cacheSize, integers, maxQueue, busyTimeoutMs });
}
