// Migrations: plain .sql files in a directory, applied in order, each once, each in its own
// transaction, and recorded in keel_migrations with a checksum of its text. Written against
// SqlDatabase, so one runner serves keel/postgres and keel/sqlite. Several runners at once (two
// instances starting, `migrate` beside a running service) are serialised by the database: each
// file's transaction first takes a fixed Postgres advisory lock (pg_advisory_xact_lock, released
// with the transaction) or, on SQLite, is an EXCLUSIVE transaction; inside it the record is read
// again, so a runner that waited finds the file applied and does nothing.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { SqlDatabase, SqlTransaction } from "./database.js";
import { sql } from "./fragment.js";

/** `0001_create_users.sql`: a number, an underscore, a name. */
const FILE_NAME = /^(\d{1,9})_([A-Za-z0-9][A-Za-z0-9_.-]*)\.sql$/;

/** The advisory lock's key ("keel" in ASCII): fixed, so every runner on one database takes the same. */
export const MIGRATION_LOCK_KEY = 0x6b65656c;

/** More files than this in one directory is refused (each is read into memory to checksum it). */
const MAX_FILES = 10_000;

export interface MigrateOptions {
  /** The directory of `NNNN_name.sql` files. */
  readonly dir: string;
  /** Called before each file is applied (a log line). */
  readonly onApply?: (migration: { id: number; name: string }) => void;
}

export interface AppliedMigration {
  readonly id: number;
  readonly name: string;
  readonly checksum: string;
}

interface MigrationFile extends AppliedMigration {
  readonly file: string;
  readonly text: string;
}

/** A migration directory or record that cannot be applied as it is. */
export class MigrationError extends Error {
  override readonly name = "MigrationError";
}

/** SHA-256 of the text with CRLF read as LF (a checkout on Windows must not change it). */
export function migrationChecksum(text: string): string {
  return createHash("sha256").update(text.replaceAll("\r\n", "\n")).digest("hex");
}

/** The migration files of `dir` by number; refuses a name that is not `NNNN_name.sql`, a duplicate number, or a gap. */
export async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith(".sql"));
  if (names.length > MAX_FILES) throw new MigrationError(`${dir}: ${names.length} migration files; at most ${MAX_FILES}`);
  const files: MigrationFile[] = [];
  const byId = new Map<number, string>();
  for (const file of names.sort()) {
    const match = FILE_NAME.exec(file);
    if (match === null) throw new MigrationError(`${join(dir, file)}: a migration is named NNNN_name.sql (digits, an underscore, letters, digits, _ . -)`);
    const id = Number(match[1]);
    const other = byId.get(id);
    if (other !== undefined) throw new MigrationError(`${dir}: ${other} and ${file} have the same number ${id}`);
    byId.set(id, file);
    const text = await readFile(join(dir, file), "utf8");
    files.push({ id, name: match[2]!, file, text, checksum: migrationChecksum(text) });
  }
  files.sort((a, b) => a.id - b.id);
  files.forEach((f, i) => {
    if (f.id !== i + 1) throw new MigrationError(`${dir}: migration ${i + 1} is missing (${i === 0 ? "numbering starts at 1" : `after ${files[i - 1]!.file} comes ${f.file}`})`);
  });
  return files;
}

/** The statements that differ: the record table's DDL, and the lock each transaction takes first. */
function dialectOf(db: SqlDatabase) {
  if (db.dialect === "postgres") {
    return {
      createTable: sql`create table if not exists keel_migrations (id integer primary key, name text not null, checksum text not null, applied_at timestamptz not null default now())`,
      lock: (tx: SqlTransaction) => tx.sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}::bigint)`.then(() => undefined),
      begin: <T>(fn: (tx: SqlTransaction) => Promise<T>) => db.begin(fn),
    };
  }
  return {
    createTable: sql`create table if not exists keel_migrations (id integer primary key, name text not null, checksum text not null, applied_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`,
    lock: () => Promise.resolve(),
    // keel/sqlite's begin takes the behaviour as a second argument; EXCLUSIVE keeps another
    // process's runner (and, outside WAL, its readers) out until the file is applied.
    begin: <T>(fn: (tx: SqlTransaction) => Promise<T>) => (db.begin as (fn: (tx: SqlTransaction) => Promise<T>, options: { behavior: "exclusive" }) => Promise<T>)(fn, { behavior: "exclusive" }),
  };
}

/** A transaction that can run a whole file: keel/sqlite's and keel/postgres's have executeScript. */
function scriptRunner(tx: SqlTransaction): (text: string) => Promise<void> {
  const run = tx.executeScript;
  if (typeof run !== "function") throw new MigrationError("this database's transactions cannot run a script (executeScript): keel/sqlite's and keel/postgres's can");
  return (text) => run.call(tx, text);
}

function checkRecorded(recorded: { id: unknown; name: unknown; checksum: unknown }, files: readonly MigrationFile[], dir: string): void {
  const id = Number(recorded.id);
  const file = files[id - 1];
  if (file === undefined) throw new MigrationError(`migration ${id} (${String(recorded.name)}) was applied but is not in ${dir}`);
  if (file.name !== recorded.name) throw new MigrationError(`migration ${id} was applied as ${String(recorded.name)}, but ${dir} has ${file.file}`);
  if (file.checksum !== recorded.checksum) {
    throw new MigrationError(`${join(dir, file.file)} changed after it was applied (checksum ${file.checksum.slice(0, 12)}…, applied ${String(recorded.checksum).slice(0, 12)}…): add a new migration instead of editing an applied one`);
  }
}

/**
 * Applies the migrations of `options.dir` that this database has not applied yet, in order, each
 * in its own transaction, and returns those it applied (empty when it is up to date). An applied
 * file that changed, a missing number, or a file that fails rejects with the reason; the files
 * before it stay applied.
 *
 * @example
 * await migrate(db, { dir: new URL("./migrations/", import.meta.url).pathname });
 */
export async function migrate(db: SqlDatabase, options: MigrateOptions): Promise<AppliedMigration[]> {
  const dir = options.dir;
  const files = await readMigrations(dir);
  const dialect = dialectOf(db);
  await dialect.begin(async (tx) => {
    await dialect.lock(tx);
    await tx.query(dialect.createTable);
  });
  // Every record is checked against its file before anything new runs.
  const recorded = await db.sql<{ id: unknown; name: unknown; checksum: unknown }>`select id, name, checksum from keel_migrations order by id`;
  for (const row of recorded) checkRecorded(row, files, dir);
  const done = new Set(recorded.map((row) => Number(row.id)));
  const applied: AppliedMigration[] = [];
  for (const file of files) {
    if (done.has(file.id)) continue;
    const ran = await dialect.begin(async (tx) => {
      await dialect.lock(tx);
      // Another runner may have applied it while this one waited for the lock.
      const again = await tx.sql<{ id: unknown; name: unknown; checksum: unknown }>`select id, name, checksum from keel_migrations where id = ${file.id}`;
      if (again.length > 0) {
        checkRecorded(again[0]!, files, dir);
        return false;
      }
      options.onApply?.({ id: file.id, name: file.name });
      await scriptRunner(tx)(file.text);
      await tx.sql`insert into keel_migrations (id, name, checksum) values (${file.id}, ${file.name}, ${file.checksum})`;
      return true;
    });
    if (ran) applied.push({ id: file.id, name: file.name, checksum: file.checksum });
  }
  return applied;
}
