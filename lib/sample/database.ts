// Where the sample keeps its users. Postgres when DATABASE_URL says where, migrated on start only
// when asked (--migrate / KEEL_MIGRATE=1, or the `migrate` command as a release step): several
// instances share it. Otherwise SQLite in `<data dir>/keel-sample.db` where node:sqlite exists
// (Node 22.13+), migrated on every start: the file belongs to this process, and applying nothing
// costs one read of keel_migrations. On Node 20: memory, with one log line saying so.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "../index.js";
import { ConfigurationError } from "../service/index.js";
import { connectPostgres, redactPostgresUrl } from "../postgres/index.js";
import { migrate, MIN_NODE_FOR_SQLITE, nodeHasSqlite, openSqlite, type AppliedMigration, type SqlDatabase } from "../sqlite/index.js";

/** Default of --data-dir / KEEL_DATA_DIR, relative to the working directory. */
export const DEFAULT_DATA_DIR = "./data";
/** The SQLite file under the data directory. */
export const SAMPLE_DB_FILE = "keel-sample.db";

/** The sample's migrations for `dialect` (beside server.js in dist: the build copies lib/sample/migrations). */
export function sampleMigrationsDir(dialect: SqlDatabase["dialect"]): string {
  return fileURLToPath(new URL(`./migrations/${dialect}/`, import.meta.url));
}

/** Applies the sample's migrations, logging each file as it is applied. */
export function migrateSample(db: SqlDatabase, logger: Logger): Promise<AppliedMigration[]> {
  return migrate(db, {
    dir: sampleMigrationsDir(db.dialect),
    onApply: (m) => logger.log(30, "applying migration", { id: m.id, name: m.name, dialect: db.dialect }),
  });
}

/** The SQLite file of `dataDir`, migrated; undefined (and one log line) where node:sqlite is missing. */
export async function openSampleSqlite(dataDir: string | undefined, logger: Logger): Promise<SqlDatabase | undefined> {
  if (!nodeHasSqlite()) {
    logger.log(40, "users are kept in memory and lost on restart: node:sqlite needs Node " + MIN_NODE_FOR_SQLITE + " or later", { node: process.versions.node });
    return undefined;
  }
  const dir = dataDir ?? DEFAULT_DATA_DIR;
  mkdirSync(dir, { recursive: true });
  const path = join(dir, SAMPLE_DB_FILE);
  const db = await openSqlite(path);
  try {
    const applied = await migrateSample(db, logger);
    logger.log(30, "users are kept in SQLite", { path, migrations_applied: applied.length });
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/**
 * keel/postgres's pool on `url` (nothing connects before the first statement), migrated first when
 * `runMigrations`. A malformed URL is a configuration error naming it without its password.
 */
export async function openSamplePostgres(url: string, runMigrations: boolean, logger: Logger): Promise<SqlDatabase> {
  let db;
  try {
    db = connectPostgres(url);
  } catch (err) {
    throw new ConfigurationError(`DATABASE_URL: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const applied = runMigrations ? (await migrateSample(db, logger)).length : undefined;
    logger.log(30, "users are kept in Postgres", { url: redactPostgresUrl(url), ...(applied === undefined ? {} : { migrations_applied: applied }) });
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}
