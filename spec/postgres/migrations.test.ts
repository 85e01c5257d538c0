// migrate() on a real PostgreSQL through keel/postgres (a throwaway cluster): files applied once,
// in order, each in a transaction that runs the file through the transaction's executeScript and
// records it with its checksum; an applied file that changed refused; two runners at once
// serialised by the advisory lock (one applies, the other waits for the lock, then finds the work
// done). Also: keel/postgres and keel/sqlite export the same SQL surface. Skips visibly without
// Postgres.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import * as postgres from "../../lib/postgres/index.js";
import * as sqlite from "../../lib/sqlite/index.js";
import { MIGRATION_LOCK_KEY } from "../../lib/sql/index.js";
import { postgresUnavailable, startPostgres, type PostgresServerHandle } from "../support/postgres-server.js";

const { connectPostgres, migrate, MigrationError } = postgres;
const unavailable = postgresUnavailable();
const skip = unavailable === null ? false : unavailable;

let server: PostgresServerHandle | null = null;
let root: string;
let n = 0;

function migrationDir(files: Record<string, string>): string {
  const dir = join(root, `m${++n}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), "keel-pg-migrate-"));
  if (skip !== false) return;
  server = await startPostgres();
  assert.ok(server, "postgres started");
});

after(async () => {
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** A fresh database on the cluster, so each case starts without keel_migrations. */
async function freshDatabase(name: string): Promise<string> {
  await server!.psql(`create database ${name}`);
  return server!.url.replace(/\/keel$/, "/" + name);
}

/** Runners waiting for the migration lock (advisory, not granted). */
async function lockWaiters(dbName: string): Promise<number> {
  const out = await server!.psql(
    `select count(*) from pg_locks l join pg_database d on d.oid = l.database where l.locktype = 'advisory' and not l.granted and l.objid = ${MIGRATION_LOCK_KEY} and d.datname = '${dbName}'`,
  );
  return Number(out.trim());
}

describe("keel/postgres and keel/sqlite export the same SQL surface", () => {
  it("sql, transaction, tx, databaseCheck, migrate and MigrationError are the same functions in both", () => {
    for (const name of ["sql", "transaction", "tx", "databaseCheck", "migrate", "MigrationError", "DEFAULT_DATABASE_CHECK_TIMEOUT_MS"] as const) {
      assert.ok(name in postgres, `keel/postgres exports ${name}`);
      assert.ok(name in sqlite, `keel/sqlite exports ${name}`);
      assert.equal((postgres as Record<string, unknown>)[name], (sqlite as Record<string, unknown>)[name], name);
    }
  });
});

describe("migrate on a real PostgreSQL (keel/postgres)", { skip, timeout: 60_000 }, () => {
  const FILES = {
    "0001_create_items.sql": "create table items (id integer primary key, name text not null unique);\ncreate index items_name on items (name);\n",
    "0002_seed.sql": "insert into items values (1, 'a');\ninsert into items values (2, 'b');\n",
  };

  it("applies each file once, in order, through the transaction's executeScript, and records it", async () => {
    const db = connectPostgres(await freshDatabase("once"), { max: 2 });
    try {
      const dir = migrationDir(FILES);
      const applied = await migrate(db, { dir });
      assert.deepEqual(applied.map((m) => [m.id, m.name]), [[1, "create_items"], [2, "seed"]]);
      assert.deepEqual(await migrate(db, { dir }), [], "the second run has nothing to do");
      assert.equal((await db.sql`select * from items`).length, 2);
      const recorded = await db.sql<{ id: number; name: string; checksum: string; applied_at: Date }>`select id, name, checksum, applied_at from keel_migrations order by id`;
      assert.deepEqual(recorded.map((r) => [r.id, r.name, r.checksum]), applied.map((m) => [m.id, m.name, m.checksum]));
      assert.ok(recorded.every((r) => r.applied_at instanceof Date));
      // A file that fails is rolled back alone: its first statement leaves nothing.
      writeFileSync(join(dir, "0003_broken.sql"), "insert into items values (3, 'c');\ninsert into items values (4, 'a');\n");
      await assert.rejects(migrate(db, { dir }), (err: unknown) => (err as { code?: string }).code === "23505");
      assert.equal((await db.sql`select * from items`).length, 2);
      assert.equal((await db.sql`select * from keel_migrations`).length, 2);
    } finally {
      await db.close();
    }
  });

  it("executeScript runs inside the transaction: a rollback undoes the script", async () => {
    const db = connectPostgres(await freshDatabase("script"), { max: 1 });
    try {
      await db.executeScript("create table t (x int)");
      await assert.rejects(
        db.begin(async (tx) => {
          await tx.executeScript!("insert into t values (1); insert into t values (2);");
          assert.equal((await tx.sql`select * from t`).length, 2, "the transaction sees what its script wrote");
          throw new Error("undo");
        }),
        /undo/,
      );
      assert.equal((await db.sql`select * from t`).length, 0);
    } finally {
      await db.close();
    }
  });

  it("refuses to run when an applied file changed", async () => {
    const db = connectPostgres(await freshDatabase("changed"), { max: 2 });
    try {
      const dir = migrationDir(FILES);
      await migrate(db, { dir });
      writeFileSync(join(dir, "0002_seed.sql"), "insert into items values (9, 'z');\n");
      await assert.rejects(migrate(db, { dir }), (err: unknown) => err instanceof MigrationError && /0002_seed\.sql changed after it was applied/.test(err.message));
      assert.equal((await db.sql`select * from items where id = 9`).length, 0);
    } finally {
      await db.close();
    }
  });

  it("two runners at once: the advisory lock makes one apply and the other wait, then do nothing", async () => {
    const url = await freshDatabase("race");
    const holder = connectPostgres(url, { max: 1 });
    const a = connectPostgres(url, { max: 1 });
    const b = connectPostgres(url, { max: 1 });
    try {
      // The record table exists, so both runners go straight to the file, and the lock is held
      // (by a third connection) while both start: both are then queued on it.
      await migrate(holder, { dir: migrationDir({}) }).catch(() => undefined);
      const dir = migrationDir({ "0001_create_items.sql": FILES["0001_create_items.sql"] });
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const held = holder.begin(async (tx) => {
        await tx.sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}::bigint)`;
        await released;
      });
      // Wait until the holder has the lock before the runners start.
      for (let i = 0; i < 200 && Number((await server!.psql(`select count(*) from pg_locks where locktype = 'advisory' and granted and objid = ${MIGRATION_LOCK_KEY}`)).trim()) === 0; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      const runs = [migrate(a, { dir }), migrate(b, { dir })];
      for (let i = 0; i < 500 && (await lockWaiters("race")) < 2; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(await lockWaiters("race"), 2, "both runners wait for the advisory lock");
      release();
      await held;
      const [ra, rb] = await Promise.all(runs);
      assert.deepEqual([ra!.length, rb!.length].sort(), [0, 1], "one applied the file, the other found it applied");
      assert.equal((await a.sql`select * from keel_migrations`).length, 1);
    } finally {
      await Promise.all([holder.close(), a.close(), b.close()]);
    }
  });

  it("the sample's Postgres migrations apply: users with the twelve seeded and the unique email index", async () => {
    const { sampleMigrationsDir } = await import("../../lib/sample/index.js");
    const db = connectPostgres(await freshDatabase("sample"), { max: 2 });
    try {
      assert.equal((await migrate(db, { dir: sampleMigrationsDir("postgres") })).length, 2);
      assert.equal((await db.sql`select * from users`).length, 12);
      await assert.rejects(db.sql`insert into users (email) values ('alice@example.com')`, (err: unknown) => (err as { code?: string }).code === "23505");
    } finally {
      await db.close();
    }
  });
});
