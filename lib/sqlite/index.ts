// keel/sqlite: SQLite through node:sqlite (Node 22.13+, loaded at run time) as a SqlDatabase, with
// the same `sql` tag, transactions and migrations as keel/postgres.
export { openSqlite, DEFAULT_BUSY_TIMEOUT_MS, DEFAULT_MAX_QUEUE, DEFAULT_STATEMENT_CACHE_SIZE, type SqliteOptions } from "./open-sqlite.js";
export type { SqliteDatabase, SqliteTransaction, SqliteBeginOptions, SqliteTransactionBehavior, SqliteStats } from "./sqlite-database.js";
export { SqliteUnavailableError, MIN_NODE_FOR_SQLITE, nodeHasSqlite } from "./node-sqlite.js";
export { SqliteBusyError } from "./work-queue.js";
export type { IntegerMode } from "./values.js";
export { sql, migrate, MigrationError, type SqlDatabase, type SqlTransaction, type SqlExecutor, type SqlRows, type SqlRow, type SqlQueryOptions, type SqlFragment, type MigrateOptions, type AppliedMigration } from "../sql/index.js";
export { transaction, tx, databaseCheck, DEFAULT_DATABASE_CHECK_TIMEOUT_MS, type DatabaseCheckOptions } from "../sql/index.js";
