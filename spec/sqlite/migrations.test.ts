// migrate() on SQLite for real: files applied in order, once each, recorded with a checksum; an
// edited applied file, a gap, a duplicate number and a badly named file refused; a failing file
// rolled back alone; two runners at once (two processes) apply each file exactly once. The
// Postgres path is checked for its statements (advisory lock in every transaction) on a fake.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { migrate, MigrationError, nodeHasSqlite, openSqlite, sql, type SqlDatabase, type SqlTransaction } from "../../lib/sqlite/index.js";
import { renderSql, type SqlFragment } from "../../lib/sql/index.js";

const needsSqlite = nodeHasSqlite() ? {} : { skip: "node:sqlite needs Node 22.13+" };
let root: string;
before(() => void (root = mkdtempSync(join(tmpdir(), "keel-migrate-"))));
after(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function migrationDir(files: Record<string, string>): string {
  const dir = join(root, `m${++n}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const USERS = {
  "0001_create_users.sql": "create table users (id integer primary key, email text not null unique);\n",
  "0002_seed.sql": "insert into users (email) values ('a@example.com');\ninsert into users (email) values ('b@example.com');\n",
  "README.md": "not a migration: ignored",
};

describe("migrate on SQLite", needsSqlite, () => {
  it("applies each file once, in order, and records it with its checksum", async () => {
    const dir = migrationDir(USERS);
    const db = await openSqlite(join(root, "once.db"));
    try {
      const applied = await migrate(db, { dir });
      assert.deepEqual(applied.map((m) => [m.id, m.name]), [[1, "create_users"], [2, "seed"]]);
      assert.deepEqual(await migrate(db, { dir }), [], "the second run has nothing to do");
      assert.equal((await db.sql`select * from users`).length, 2);
      const recorded = await db.sql<{ id: number; name: string; checksum: string; applied_at: string }>`select id, name, checksum, applied_at from keel_migrations order by id`;
      assert.deepEqual(recorded.map((r) => [r.id, r.name, r.checksum]), applied.map((m) => [m.id, m.name, m.checksum]));
      for (const r of recorded) assert.match(r.applied_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // A new file later is applied alone.
      writeFileSync(join(dir, "0003_more.sql"), "insert into users (email) values ('c@example.com');");
      assert.deepEqual((await migrate(db, { dir })).map((m) => m.id), [3]);
    } finally {
      await db.close();
    }
  });

  it("refuses to run when an applied file changed", async () => {
    const dir = migrationDir(USERS);
    const db = await openSqlite(join(root, "changed.db"));
    try {
      await migrate(db, { dir });
      writeFileSync(join(dir, "0002_seed.sql"), "insert into users (email) values ('other@example.com');\n");
      await assert.rejects(migrate(db, { dir }), (err: unknown) => {
        assert.ok(err instanceof MigrationError);
        assert.match(err.message, /0002_seed\.sql changed after it was applied .*add a new migration instead of editing an applied one/);
        return true;
      });
      // Line endings alone are not a change.
      writeFileSync(join(dir, "0002_seed.sql"), USERS["0002_seed.sql"].replaceAll("\n", "\r\n"));
      assert.deepEqual(await migrate(db, { dir }), []);
    } finally {
      await db.close();
    }
  });

  for (const [what, files, message] of [
    ["a gap", { "0001_a.sql": "select 1;", "0003_c.sql": "select 1;" }, /migration 2 is missing \(after 0001_a\.sql comes 0003_c\.sql\)/],
    ["a duplicate number", { "0001_a.sql": "select 1;", "01_b.sql": "select 1;" }, /0001_a\.sql and 01_b\.sql have the same number 1/],
    ["a first number other than 1", { "0002_b.sql": "select 1;" }, /migration 1 is missing \(numbering starts at 1\)/],
    ["a badly named file", { "0001_a.sql": "select 1;", "second.sql": "select 1;" }, /second\.sql: a migration is named NNNN_name\.sql/],
  ] as const) {
    it(`refuses ${what} before applying anything`, async () => {
      const dir = migrationDir(files);
      const db = await openSqlite(":memory:");
      try {
        await assert.rejects(migrate(db, { dir }), message);
        assert.equal((await db.sql`select name from sqlite_master where name = 'keel_migrations'`).length, 0);
      } finally {
        await db.close();
      }
    });
  }

  it("a failing file is rolled back alone: the files before it stay applied, it is not recorded", async () => {
    const dir = migrationDir({
      "0001_ok.sql": "create table a (x integer);",
      "0002_fails.sql": "create table b (x integer);\ninsert into nowhere values (1);",
    });
    const db = await openSqlite(":memory:");
    try {
      await assert.rejects(migrate(db, { dir }), /no such table: nowhere/);
      assert.deepEqual((await db.sql<{ id: number }>`select id from keel_migrations`).map((r) => r.id), [1]);
      assert.equal((await db.sql`select name from sqlite_master where name = 'b'`).length, 0, "table b went with the rollback");
    } finally {
      await db.close();
    }
  });

  it("two runners at once (two processes) apply each file exactly once; the one that waited does nothing twice", async () => {
    // A slow first file widens the window in which both runners want the lock.
    const slow = "create table slow as with recursive c(x) as (select 1 union all select x + 1 from c where x < 300000) select count(*) as n from c;";
    const files: Record<string, string> = { "0001_slow.sql": slow };
    for (let i = 2; i <= 6; i++) files[`000${i}_t${i}.sql`] = `create table t${i} (x integer);`;
    const dir = migrationDir(files);
    const file = join(root, "concurrent.db");
    const runner = fileURLToPath(new URL("./fixtures/migrate-runner.ts", import.meta.url));
    const run = () =>
      new Promise<number[]>((resolve, reject) => {
        const child = spawn(process.execPath, ["--no-warnings", "--import", "tsx", runner, file, dir], { stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        let err = "";
        child.stdout.on("data", (c: Buffer) => (out += c));
        child.stderr.on("data", (c: Buffer) => (err += c));
        child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out) as number[]) : reject(new Error(`runner exited ${code}: ${err}`))));
      });
    const [a, b] = await Promise.all([run(), run()]);
    assert.deepEqual([...a, ...b].sort(), [1, 2, 3, 4, 5, 6], `each file applied by exactly one runner (a: ${a}, b: ${b})`);
    const db = await openSqlite(file);
    try {
      assert.deepEqual((await db.sql<{ id: number }>`select id from keel_migrations order by id`).map((r) => r.id), [1, 2, 3, 4, 5, 6]);
    } finally {
      await db.close();
    }
  });
});

describe("migrate on Postgres (the statements, on a fake)", () => {
  it("takes the advisory lock first in every transaction and records each file", async () => {
    const dir = migrationDir(USERS);
    const log: string[] = [];
    const run = (fragment: SqlFragment) => {
      const { text, values } = renderSql(fragment, { placeholder: (i) => `$${i}`, maxParameters: 65535 });
      log.push(values.length === 0 ? text : `${text} [${values.join(", ")}]`);
      return Promise.resolve(Object.assign([], { count: 0 }));
    };
    const tx: SqlTransaction & { executeScript(text: string): Promise<void> } = {
      sql: (strings, ...values) => run(sql(strings, ...values)) as never,
      query: (fragment) => run(fragment) as never,
      savepoint: (fn) => fn(tx),
      executeScript: (text) => {
        log.push(`script: ${text.trim().split("\n")[0]}`);
        return Promise.resolve();
      },
    };
    const db: SqlDatabase = {
      dialect: "postgres",
      sql: tx.sql,
      query: tx.query,
      begin: async (fn) => {
        log.push("begin");
        const r = await fn(tx);
        log.push("commit");
        return r;
      },
      executeScript: tx.executeScript,
      ping: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const applied = await migrate(db, { dir });
    assert.deepEqual(applied.map((m) => m.id), [1, 2]);
    const lock = `select pg_advisory_xact_lock($1::bigint) [${0x6b65656c}]`;
    assert.deepEqual(log.slice(0, 5), ["begin", lock, log[2], "commit", "select id, name, checksum from keel_migrations order by id"]);
    assert.match(log[2]!, /^create table if not exists keel_migrations \(id integer primary key, name text not null, checksum text not null, applied_at timestamptz not null default now\(\)\)$/);
    assert.deepEqual(log.slice(5, 11), [
      "begin",
      lock,
      "select id, name, checksum from keel_migrations where id = $1 [1]",
      "script: create table users (id integer primary key, email text not null unique);",
      `insert into keel_migrations (id, name, checksum) values ($1, $2, $3) [1, create_users, ${applied[0]!.checksum}]`,
      "commit",
    ]);
  });
});
