// keel/postgres: a PostgreSQL client of our own over node:net/node:tls (wire protocol 3.0), no
// dependency: SCRAM-SHA-256/md5, sslmode, DATABASE_URL, the extended protocol with a bounded
// prepared-statement cache and pipelining, a pool, transactions, cancellation, LISTEN/NOTIFY.
// It implements keel's SqlDatabase (lib/sql), which keel/sqlite implements too.
export { sql, type SqlDatabase, type SqlExecutor, type SqlTransaction, type SqlRows, type SqlRow, type SqlQueryOptions, type SqlFragment } from "../sql/index.js";
// The rest of the SQL surface an app needs, the same in keel/sqlite: the per-route transaction, the readiness check, migrations.
export { transaction, tx, databaseCheck, DEFAULT_DATABASE_CHECK_TIMEOUT_MS, type DatabaseCheckOptions } from "../sql/index.js";
export { migrate, MigrationError, type MigrateOptions, type AppliedMigration } from "../sql/index.js";
export { connectPostgres, PostgresDatabase, type PostgresStats } from "./database.js";
export type { PostgresOptions } from "./options.js";
export { PostgresError, PostgresConnectionError, PostgresPoolError, PostgresRowError, ResultTooLargeError } from "./errors.js";
export { parsePostgresUrl, redactPostgresUrl, type PostgresUrlParts, type SslMode } from "./url.js";
export type { PostgresSubscription } from "./listener.js";
export type { PoolStats } from "./pool.js";
export { POSTGRES_DIALECT } from "./execute.js";
