// keel/sqlite on node:sqlite: types both ways, parameters never spliced, transactions and
// savepoints (commit, rollback, two concurrent begins serialised), the statement cache's bound,
// the wait queue's bound, rows checked against a schema, ping and close. On Node before 22.13:
// the clear error naming the running Node.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { t } from "../../lib/index.js";
import { mapDatabaseError } from "../../lib/db-errors/index.js";
import { MIN_NODE_FOR_SQLITE, nodeHasSqlite, openSqlite, sql, SqliteUnavailableError, type SqliteDatabase } from "../../lib/sqlite/index.js";

const hasSqlite = nodeHasSqlite();
const needsSqlite = hasSqlite ? {} : { skip: `node:sqlite needs Node ${MIN_NODE_FOR_SQLITE}+ (this is ${process.versions.node})` };

describe("keel/sqlite where node:sqlite is missing", () => {
  it("knows which Node releases have node:sqlite", () => {
    assert.equal(nodeHasSqlite("20.20.2"), false);
    assert.equal(nodeHasSqlite("22.12.0"), false);
    assert.equal(nodeHasSqlite("22.13.0"), true);
    assert.equal(nodeHasSqlite("24.0.0"), true);
  });

  it("openSqlite rejects with an error naming the running Node and the minimum", { skip: hasSqlite && "this Node has node:sqlite" }, async () => {
    await assert.rejects(openSqlite(":memory:"), (err: unknown) => {
      assert.ok(err instanceof SqliteUnavailableError);
      assert.equal(err.message, `keel/sqlite needs node:sqlite, which Node 22.13.0 and later provide; this is Node ${process.versions.node}`);
      return true;
    });
  });
});

describe("keel/sqlite", needsSqlite, () => {
  let dir: string;
  let db: SqliteDatabase;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "keel-sqlite-"));
    db = await openSqlite(join(dir, "test.db"));
    await db.executeScript(`
      create table users (id integer primary key, email text not null unique, score real, avatar blob, big integer);
      create table log (id integer primary key, msg text not null);
    `);
  });

  after(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("loading node:sqlite prints no ExperimentalWarning line (Node 22 would); other warnings still print", async () => {
    const fixture = fileURLToPath(new URL("./fixtures/open-memory.ts", import.meta.url));
    const { stderr } = await promisify(execFile)(process.execPath, ["--import", "tsx", fixture]);
    assert.doesNotMatch(stderr, /SQLite is an experimental feature/);
    assert.match(stderr, /ExperimentalWarning: another experimental thing/);
  });

  it("opens in WAL mode with a busy timeout and foreign keys on", async () => {
    assert.equal(db.dialect, "sqlite");
    assert.deepEqual([...(await db.sql`pragma journal_mode`)], [{ journal_mode: "wal" }]);
    assert.deepEqual([...(await db.sql`pragma busy_timeout`)], [{ timeout: 5000 }]);
    assert.deepEqual([...(await db.sql`pragma foreign_keys`)], [{ foreign_keys: 1 }]);
  });

  it("reads integer, real, text, blob and null as number, number, string, Buffer and null", async () => {
    const avatar = Buffer.from([0, 1, 2, 255]);
    const inserted = await db.sql<{ id: number }>`insert into users (email, score, avatar) values (${"types@example.com"}, ${1.5}, ${avatar}) returning id`;
    assert.equal(inserted.count, 1);
    const [row] = await db.sql<Record<string, unknown>>`select id, email, score, avatar, big from users where id = ${inserted[0]!.id}`;
    assert.deepEqual(row, { id: inserted[0]!.id, email: "types@example.com", score: 1.5, avatar, big: null });
    assert.ok(Buffer.isBuffer(row!["avatar"]));
    assert.equal(Object.getPrototypeOf(row), Object.prototype, "rows are plain objects");
  });

  it("reads an integer past 2^53 as a bigint without rounding, and can read every integer as bigint", async () => {
    const [row] = await db.sql<{ big: unknown; small: unknown }>`select ${9007199254740993n} as big, 7 as small`;
    assert.deepEqual(row, { big: 9007199254740993n, small: 7 });
    const all = await openSqlite(":memory:", { integers: "bigint" });
    try {
      assert.deepEqual([...(await all.sql`select 7 as small`)], [{ small: 7n }]);
    } finally {
      await all.close();
    }
  });

  it("binds booleans as 1/0, a Date as ISO 8601 text, objects and arrays as JSON; refuses undefined, NaN and class instances", async () => {
    const when = new Date("2026-01-02T03:04:05.678Z");
    const [row] = await db.sql`select ${true} as yes, ${false} as no, ${when} as at, ${{ a: [1, 2] }} as obj, json_extract(${[10, 20]}, '$[1]') as second`;
    assert.deepEqual(row, { yes: 1, no: 0, at: "2026-01-02T03:04:05.678Z", obj: '{"a":[1,2]}', second: 20 });
    await assert.rejects(db.sql`select ${undefined} as x`, /parameter 1 is undefined; pass null for SQL NULL/);
    await assert.rejects(db.sql`select ${1}, ${Number.NaN} as x`, /parameter 2 is NaN/);
    await assert.rejects(db.sql`select ${new Map()} as x`, /parameter 1 is a Map/);
  });

  it("sends values as parameters, never as statement text", async () => {
    const hostile = "x'); drop table users; --";
    await db.sql`insert into log (msg) values (${hostile})`;
    const [row] = await db.sql<{ msg: string }>`select msg from log where msg = ${hostile}`;
    assert.equal(row!.msg, hostile);
    assert.equal((await db.sql`select name from sqlite_master where name = 'users'`).length, 1, "the table is still there");
    // The statement text holds only placeholders: the cache is keyed by text, so two values share one statement.
    const before = db.stats().cachedStatements;
    await db.sql`select msg, 1 as probe from log where msg = ${"a"}`;
    await db.sql`select msg, 1 as probe from log where msg = ${"b"}`;
    assert.equal(db.stats().cachedStatements, before + 1);
    // An ordinary array is not a template literal: refused, so text cannot be built from data.
    await assert.rejects(() => db.sql(["select 1"] as unknown as TemplateStringsArray), /sql is a template tag/);
  });

  it("counts rows changed by a statement that returns none, and rows returned otherwise", async () => {
    await db.sql`insert into log (msg) values (${"c1"}), (${"c2"}), (${"c3"})`;
    const changed = await db.sql`update log set msg = msg || '!' where msg in ${sql.list(["c1", "c2", "c3"])}`;
    assert.equal(changed.length, 0);
    assert.equal(changed.count, 3);
    const rows = await db.sql`select * from log where msg like ${"c_!"}`;
    assert.equal(rows.count, 3);
  });

  it("begin commits when the callback resolves and rolls back (and rethrows) when it throws", async () => {
    const id = await db.begin(async (tx) => {
      const [row] = await tx.sql<{ id: number }>`insert into users (email) values (${"tx-commit@example.com"}) returning id`;
      return row!.id;
    });
    assert.equal((await db.sql`select 1 from users where id = ${id}`).length, 1);
    const boom = new Error("boom");
    await assert.rejects(
      db.begin(async (tx) => {
        await tx.sql`insert into users (email) values (${"tx-rollback@example.com"})`;
        throw boom;
      }),
      (err) => err === boom,
    );
    assert.equal((await db.sql`select 1 from users where email = ${"tx-rollback@example.com"}`).length, 0);
    // The finished transaction refuses further statements instead of running them outside it.
    let leaked: Parameters<Parameters<SqliteDatabase["begin"]>[0]>[0] | undefined;
    await db.begin(async (tx) => void (leaked = tx));
    await assert.rejects(leaked!.sql`select 1`, /the transaction is finished/);
  });

  it("a savepoint rolls back alone; the transaction around it commits", async () => {
    await db.begin(async (tx) => {
      await tx.sql`insert into log (msg) values (${"outer"})`;
      await assert.rejects(
        tx.savepoint(async (sp) => {
          await sp.sql`insert into log (msg) values (${"inner-undone"})`;
          throw new Error("undo the savepoint");
        }),
        /undo the savepoint/,
      );
      await tx.savepoint(async (sp) => {
        await sp.sql`insert into log (msg) values (${"inner-kept"})`;
        await sp.savepoint(async (deeper) => void (await deeper.sql`insert into log (msg) values (${"deeper-kept"})`));
      });
    });
    const msgs = (await db.sql<{ msg: string }>`select msg from log where msg in ${sql.list(["outer", "inner-undone", "inner-kept", "deeper-kept"])} order by id`).map((r) => r.msg);
    assert.deepEqual(msgs, ["outer", "inner-kept", "deeper-kept"]);
  });

  it("two concurrent begins on one database do not interleave, and a statement outside waits for the open one", async () => {
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = db.begin(async (tx) => {
      await tx.sql`insert into log (msg) values (${"first-a"})`;
      seen.push("first-a");
      await gate;
      await tx.sql`insert into log (msg) values (${"first-b"})`;
      seen.push("first-b");
      throw new Error("first rolls back");
    });
    const second = db.begin(async (tx) => {
      seen.push("second");
      await tx.sql`insert into log (msg) values (${"second"})`;
    });
    const outside = db.sql`insert into log (msg) values (${"outside"})`.then(() => seen.push("outside"));
    // However long the first takes, neither of the others runs inside it.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(seen, ["first-a"]);
    assert.equal(db.stats().waiting, 2);
    release();
    await assert.rejects(first, /first rolls back/);
    await Promise.all([second, outside]);
    assert.deepEqual(seen, ["first-a", "first-b", "second", "outside"]);
    const msgs = (await db.sql<{ msg: string }>`select msg from log where msg in ${sql.list(["first-a", "first-b", "second", "outside"])} order by id`).map((r) => r.msg);
    assert.deepEqual(msgs, ["second", "outside"], "the first's rows went with its rollback; the others are not in it");
  });

  it("the wait queue is bounded: past maxQueue a call is refused with SQLITE_BUSY, which db-errors answers 503", async () => {
    const small = await openSqlite(":memory:", { maxQueue: 2 });
    try {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const holder = small.begin(() => gate);
      const queued = [small.sql`select 1`, small.sql`select 2`];
      const refused = small.sql`select 3`;
      await assert.rejects(refused, (err: unknown) => {
        assert.equal((err as { code?: string }).code, "SQLITE_BUSY");
        assert.equal(mapDatabaseError(err)?.status, 503);
        return true;
      });
      assert.deepEqual(small.stats(), { cachedStatements: 0, cacheEvictions: 0, waiting: 2, refused: 1 });
      release();
      await holder;
      assert.equal((await Promise.all(queued)).length, 2);
    } finally {
      await small.close();
    }
  });

  it("the statement cache holds at most statementCacheSize statements and counts what it dropped", async () => {
    const small = await openSqlite(":memory:", { statementCacheSize: 4 });
    try {
      // Fifty different texts (the column name differs): the cache keeps the last four.
      for (let i = 0; i < 50; i++) await small.query(sql`select ${i} as ${sql.id(`c${i}`)}`);
      assert.equal(small.stats().cachedStatements, 4);
      assert.equal(small.stats().cacheEvictions, 46);
      assert.deepEqual([...(await small.query(sql`select ${3} as ${sql.id("c3")}`))], [{ c3: 3 }], "a dropped statement is prepared again");
    } finally {
      await small.close();
    }
  });

  it("checks rows against a `t` schema when one is given, and rejects a row that does not match", async () => {
    const Row = t.object({ id: t.integer(), email: t.string() });
    const rows = await db.query(sql`select id, email from users order by id limit 2`, { rows: Row });
    assert.ok(rows.length > 0);
    assert.equal(typeof rows[0]!.email, "string");
    await assert.rejects(db.query(sql`select id, null as email from users limit 1`, { rows: Row }), /row 0 does not match the rows schema/);
  });

  it("a unique violation is node:sqlite's error as it is: db-errors answers 409", async () => {
    await db.sql`insert into users (email) values (${"dup@example.com"})`;
    await assert.rejects(db.sql`insert into users (email) values (${"dup@example.com"})`, (err: unknown) => {
      assert.equal(mapDatabaseError(err)?.status, 409);
      return true;
    });
  });

  it("an aborted signal rejects before the statement runs", async () => {
    const controller = new AbortController();
    controller.abort(new Error("gave up"));
    await assert.rejects(db.query(sql`insert into log (msg) values (${"aborted"})`, { signal: controller.signal }), /gave up/);
    assert.equal((await db.sql`select 1 from log where msg = ${"aborted"}`).length, 0);
  });

  it("ping resolves on an open database; close waits for the open transaction, then refuses new work", async () => {
    const other = await openSqlite(join(dir, "close.db"));
    await other.ping();
    await other.executeScript("create table t (x integer)");
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const tx = other.begin(async (t) => {
      await gate;
      await t.sql`insert into t (x) values (${1})`;
    });
    const closing = other.close();
    await assert.rejects(other.sql`select 1`, /the database is closed/);
    await assert.rejects(other.ping(), /the database is closed/);
    release();
    await tx;
    await closing;
    const reopened = await openSqlite(join(dir, "close.db"));
    assert.deepEqual([...(await reopened.sql`select x from t`)], [{ x: 1 }], "the transaction committed before the close");
    await reopened.close();
    await reopened.close();
  });
});
