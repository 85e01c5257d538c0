// keel's SQL surface shared by keel/postgres and keel/sqlite: the `sql` tag and the executor types.
export { sql, isSqlFragment, SqlFragment, SqlIdentifier, SqlList, type SqlTag, type SqlPart } from "./fragment.js";
export { renderSql, quoteIdentifier, type SqlDialect, type RenderedSql } from "./render.js";
export type { SqlDatabase, SqlExecutor, SqlTransaction, SqlRows, SqlRow, SqlQueryOptions } from "./database.js";
export { transaction, tx, TRANSACTION_KEY } from "./transaction.js";
export { databaseCheck, DEFAULT_DATABASE_CHECK_TIMEOUT_MS, type DatabaseCheckOptions } from "./check.js";
export { migrate, readMigrations, migrationChecksum, MigrationError, MIGRATION_LOCK_KEY, type MigrateOptions, type AppliedMigration } from "./migrations.js";
