// keel/postgres against a real server (one throwaway cluster for the file, with TLS): logins,
// TLS modes, every type both ways, parameters never spliced, the statement cache bound,
// pipelining, rows schemas, SQLSTATE errors as keel/db-errors reads them, statement timeouts and
// cancellation. Skips visibly when PostgreSQL is not installed.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Socket } from "node:net";
import { Duplex } from "node:stream";
import { t as schema } from "../../lib/index.js";
import { mapDatabaseError } from "../../lib/db-errors/index.js";
import { connectPostgres, PostgresConnectionError, PostgresError, PostgresRowError, sql, type PostgresDatabase } from "../../lib/postgres/index.js";
import { postgresUnavailable, startPostgres, type PostgresServerHandle } from "../support/postgres-server.js";

let server: PostgresServerHandle | null = null;
let db: PostgresDatabase;
const skip = (): string => postgresUnavailable() ?? "PostgreSQL could not start";

before(async () => {
  server = await startPostgres({ tls: true });
  if (server === null) return;
  db = connectPostgres(server.url, { max: 4 });
  await db.executeScript(`
    create table users (id serial primary key, email text not null unique check (email like '%@%'), nick text);
    create table posts (id serial primary key, user_id int not null references users(id), title text);
  `);
});
after(async () => {
  await db?.close();
  await server?.stop();
});

async function errorOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(() => assert.fail("expected a rejection"), (e: unknown) => e);
}

describe("keel/postgres: logins and TLS", () => {
  it("SCRAM-SHA-256 login (the server signature checked), md5 login", async (t) => {
    if (server === null) return t.skip(skip());
    const scram = await db.sql`select current_user as user`;
    assert.deepEqual([...scram], [{ user: "keel" }]);
    const md5 = connectPostgres(server.md5Url, { sslmode: "disable" });
    try {
      assert.equal((await md5.sql`select current_user as user`)[0]!["user"], "keel_md5");
    } finally {
      await md5.close();
    }
  });

  it("a wrong password rejects with SQLSTATE 28P01, for SCRAM and md5", async (t) => {
    if (server === null) return t.skip(skip());
    for (const url of [server.url.replace("keel-secret", "wrong"), server.md5Url.replace("md5-secret", "wrong")]) {
      const bad = connectPostgres(url);
      try {
        const err = await errorOf(bad.sql`select 1`);
        assert.ok(err instanceof PostgresError, String(err));
        assert.equal(err.code, "28P01");
        assert.doesNotMatch(String(err.message), /wrong/);
      } finally {
        await bad.close();
      }
    }
  });

  it("sslmode=verify-full with the cluster's CA, and sslmode=require, run over TLS", async (t) => {
    if (server === null) return t.skip(skip());
    if (server.ca === undefined) return t.skip("openssl not available");
    for (const [url, options] of [
      [`${server.url.replace("127.0.0.1", "localhost")}?sslmode=verify-full`, { tls: { ca: server.ca } }],
      [`${server.url}?sslmode=require`, {}],
    ] as const) {
      const secure = connectPostgres(url, options);
      try {
        const rows = await secure.sql`select ssl from pg_stat_ssl where pid = pg_backend_pid()`;
        assert.equal(rows[0]!["ssl"], true, url);
      } finally {
        await secure.close();
      }
    }
  });

  it("sslmode=verify-full without the CA refuses the self-signed certificate: 08001, not a hang", async (t) => {
    if (server === null) return t.skip(skip());
    if (server.ca === undefined) return t.skip("openssl not available");
    const strict = connectPostgres(`${server.url}?sslmode=verify-full`);
    try {
      const err = await errorOf(strict.sql`select 1`);
      assert.ok(err instanceof PostgresConnectionError);
      assert.equal(err.code, "08001");
      assert.equal(mapDatabaseError(err)?.status, 503);
    } finally {
      await strict.close();
    }
  });
});

describe("keel/postgres: types", () => {
  it("every type round-trips as documented", async (t) => {
    if (server === null) return t.skip(skip());
    const when = new Date("2024-02-29T12:34:56.789Z");
    const bytes = Buffer.from([0, 1, 2, 254, 255]);
    const [row] = await db.sql`select
      ${1}::int2 as i2, ${2147483647}::int4 as i4, ${"9223372036854775807"}::int8 as i8,
      ${"12345678901234567890.123456789"}::numeric as num, ${1.5}::float4 as f4, ${Math.PI}::float8 as f8,
      ${true}::bool as yes, ${false}::bool as no, ${"héllo"}::text as txt, ${"v"}::varchar as vc, 'pg'::name as nm,
      ${{ a: [1, "x", null] }}::json as js, ${{ b: { c: true } }}::jsonb as jsb, ${[1, 2]}::jsonb as jsarr,
      ${when}::timestamptz as tz, ${"2024-02-29 12:34:56.789"}::timestamp as ts, ${"2024-02-29"}::date as d,
      ${"0e8c1ae6-3bd4-4f5e-9a57-8a4a1f0c2b11"}::uuid as id, ${bytes}::bytea as bin, ${null}::text as nothing,
      'infinity'::timestamptz as inf, ${9007199254740993n}::int8 as big`;
    assert.ok(row);
    assert.equal(row["i2"], 1);
    assert.equal(row["i4"], 2147483647);
    assert.equal(row["i8"], "9223372036854775807");
    assert.equal(row["num"], "12345678901234567890.123456789");
    assert.equal(row["f4"], 1.5);
    assert.equal(row["f8"], Math.PI);
    assert.equal(row["yes"], true);
    assert.equal(row["no"], false);
    assert.equal(row["txt"], "héllo");
    assert.equal(row["vc"], "v");
    assert.equal(row["nm"], "pg");
    assert.deepEqual(row["js"], { a: [1, "x", null] });
    assert.deepEqual(row["jsb"], { b: { c: true } });
    assert.deepEqual(row["jsarr"], [1, 2]);
    assert.deepEqual(row["tz"], when);
    assert.deepEqual(row["ts"], when, "timestamp without zone is read as UTC");
    assert.deepEqual(row["d"], new Date("2024-02-29T00:00:00Z"), "date is UTC midnight");
    assert.equal(row["id"], "0e8c1ae6-3bd4-4f5e-9a57-8a4a1f0c2b11");
    assert.deepEqual(row["bin"], bytes);
    assert.equal(row["nothing"], null);
    assert.equal(row["inf"], Infinity);
    assert.equal(row["big"], "9007199254740993");
  });

  it("int8: 'bigint' answers bigint; a non-UTC zone offset still gives the right instant", async (t) => {
    if (server === null) return t.skip(skip());
    const big = connectPostgres(server.url, { int8: "bigint", options: "-c TimeZone=Asia/Kolkata" });
    try {
      const [row] = await big.sql`select ${"9223372036854775807"}::int8 as v, '2024-01-01T00:00:00Z'::timestamptz as tz, now()::text as local`;
      assert.equal(row!["v"], 9223372036854775807n);
      assert.deepEqual(row!["tz"], new Date("2024-01-01T00:00:00Z"));
      assert.match(String(row!["local"]), /\+05:30$/);
    } finally {
      await big.close();
    }
  });

  it("arrays: 1-D and n-D, NULLs, quoting, every element type; JS arrays as parameters", async (t) => {
    if (server === null) return t.skip(skip());
    const [row] = await db.sql`select
      ${[1, null, 3]}::int4[] as ints, ${[["a", "b,c"], ['q"uote', "back\\slash"]]}::text[] as texts,
      ${[true, false]}::bool[] as bools, ${["1.5", "2"]}::numeric[] as nums, ${[new Date(0)]}::timestamptz[] as dates,
      ${[Buffer.from("hi")]}::bytea[] as bins, ${[{ a: 1 }, null]}::jsonb[] as jsons, ${[]}::int4[] as empty,
      '[0:1]={7,8}'::int[] as bounded, ${[["NULL", ""]]}::text[] as tricky, ${["9007199254740993"]}::int8[] as bigs`;
    assert.ok(row);
    assert.deepEqual(row["ints"], [1, null, 3]);
    assert.deepEqual(row["texts"], [["a", "b,c"], ['q"uote', "back\\slash"]]);
    assert.deepEqual(row["bools"], [true, false]);
    assert.deepEqual(row["nums"], ["1.5", "2"]);
    assert.deepEqual(row["dates"], [new Date(0)]);
    assert.deepEqual(row["bins"], [Buffer.from("hi")]);
    assert.deepEqual(row["jsons"], [{ a: 1 }, null]);
    assert.deepEqual(row["empty"], []);
    assert.deepEqual(row["bounded"], [7, 8]);
    assert.deepEqual(row["tricky"], [["NULL", ""]], "a quoted NULL is the string, not SQL NULL");
    assert.deepEqual(row["bigs"], ["9007199254740993"]);
  });

  it("undefined as a parameter is refused (pass null for NULL); the connection stays usable", async (t) => {
    if (server === null) return t.skip(skip());
    const err = await errorOf(db.sql`select ${undefined}::text as v`);
    assert.match(String(err), /undefined: pass null/);
    assert.equal((await db.sql`select ${null}::text as v`)[0]!["v"], null);
  });
});

describe("keel/postgres: statements", () => {
  it("values are parameters, never spliced: a value with '; drop table stays data", async (t) => {
    if (server === null) return t.skip(skip());
    const evil = "x@y'); drop table users; --";
    await db.sql`insert into users (email) values (${evil})`;
    const rows = await db.sql`select email from users where email = ${evil}`;
    assert.equal(rows[0]!["email"], evil);
    assert.equal((await db.sql`select count(*)::int as n from users`)[0]!["n"], 1);
    assert.throws(() => (sql as unknown as (s: string[]) => unknown)(["select 1; drop table users"]), /template tag/);
    await db.sql`delete from users`;
  });

  it("rows count, sql.id, sql.list, nested fragments, multi-statement scripts", async (t) => {
    if (server === null) return t.skip(skip());
    const inserted = await db.sql`insert into ${sql.id("users")} (email) values ('a@x'), ('b@x'), ('c@x') returning id`;
    assert.equal(inserted.count, 3);
    const ids = inserted.map((r) => r["id"]);
    const where = sql`where id in ${sql.list(ids)}`;
    const picked = await db.query(sql`select email from users ${where} order by email`);
    assert.deepEqual(picked.map((r) => r["email"]), ["a@x", "b@x", "c@x"]);
    const updated = await db.sql`update users set nick = 'n' where email <> 'a@x'`;
    assert.equal(updated.count, 2);
    await db.sql`delete from users`;
  });

  it("the statement cache is bounded: the least recently used statement is closed on the server", async (t) => {
    if (server === null) return t.skip(skip());
    const small = connectPostgres(server.url, { max: 1, statementCacheSize: 3 });
    try {
      for (let i = 0; i < 10; i++) await small.query(sql`select ${i}::int + ${"0"}::int as n, ${String(i)}::text as ${sql.id(`c${i}`)}`);
      const [row] = await small.sql`select count(*)::int as n from pg_prepared_statements`;
      assert.ok(row!["n"] as number <= 3, `at most 3 prepared statements, saw ${row!["n"]}`);
      assert.ok(small.stats().statementEvictions >= 8, JSON.stringify(small.stats()));
    } finally {
      await small.close();
    }
  });

  it("pipelining: 200 concurrent statements on a pool of one connection, each answered with its own rows", async (t) => {
    if (server === null) return t.skip(skip());
    const one = connectPostgres(server.url, { max: 1, maxPipeline: 16 });
    try {
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => one.sql`select ${i}::int as i, ${"v" + i}::text as v`));
      results.forEach((rows, i) => assert.deepEqual({ ...rows[0] }, { i, v: "v" + i }));
      const stats = one.stats();
      assert.equal(stats.opened, 1);
      assert.ok(stats.maxDepthSeen > 1 && stats.maxDepthSeen <= 16, JSON.stringify(stats));
    } finally {
      await one.close();
    }
  });

  it("statements issued in one tick leave in one socket write; past 64 KiB pending, at once", async (t) => {
    if (server === null) return t.skip(skip());
    const one = connectPostgres(server.url, { max: 1, maxPipeline: 32, sslmode: "disable" });
    // Counts writes on the sockets to this server (Duplex.prototype.write: net.Socket has no write of its own).
    const original = Duplex.prototype.write;
    let writes = 0;
    const sizes: number[] = [];
    Duplex.prototype.write = function (this: Duplex, chunk: unknown, ...rest: unknown[]) {
      if (this instanceof Socket && this.remotePort === server!.port) {
        writes++;
        sizes.push((chunk as Buffer).length);
      }
      return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof original;
    try {
      // Prepared first (their Parse + Describe round trips are not what is counted).
      await one.sql`select ${0}::int as i`;
      await one.sql`select length(${"x"}::text) as n`;
      writes = 0;
      sizes.length = 0;
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => one.sql`select ${i}::int as i`));
      results.forEach((rows, i) => assert.equal(rows[0]!["i"], i));
      assert.equal(writes, 1, `10 statements in one tick took ${writes} socket writes`);
      // Four 40 KB parameters: the batch goes out when it passes 64 KiB, so two writes, none far above it.
      writes = 0;
      sizes.length = 0;
      const big = "x".repeat(40_000);
      const lengths = await Promise.all(Array.from({ length: 4 }, () => one.sql`select length(${big}::text) as n`));
      for (const rows of lengths) assert.equal(rows[0]!["n"], 40_000);
      assert.equal(writes, 2, `sizes ${sizes.join(", ")}`);
      for (const size of sizes) assert.ok(size < 64 * 1024 + 41_000, `a write of ${size} bytes`);
    } finally {
      Duplex.prototype.write = original;
      await one.close();
    }
  });

  it("rows are checked against a t schema or a Standard Schema; a mismatch is a PostgresRowError", async (t) => {
    if (server === null) return t.skip(skip());
    const Row = schema.object({ id: schema.integer(), email: schema.string() });
    const ok = await db.query(sql`select 1 as id, 'a@b' as email`, { rows: Row });
    assert.deepEqual({ ...ok[0] }, { id: 1, email: "a@b" });
    const err = await errorOf(db.query(sql`select 'one' as id, 'a@b' as email`, { rows: Row }));
    assert.ok(err instanceof PostgresRowError, String(err));
    const upper = { "~standard": { version: 1, vendor: "test", validate: (v: unknown) => ({ value: { EMAIL: String((v as { email: string }).email).toUpperCase() } }) } };
    const mapped = await db.query(sql`select 'a@b' as email`, { rows: upper as never });
    assert.deepEqual(mapped[0], { EMAIL: "A@B" });
  });

  it("SQLSTATE fields on 23505, 23503, 23514, 23502, and keel/db-errors maps each", async (t) => {
    if (server === null) return t.skip(skip());
    await db.sql`insert into users (email) values ('dup@x')`;
    const cases: [() => Promise<unknown>, string, number, string | undefined, string | undefined][] = [
      [() => db.sql`insert into users (email) values ('dup@x')`, "23505", 409, "users_email_key", undefined],
      [() => db.sql`insert into posts (user_id, title) values (${-1}, 't')`, "23503", 409, "posts_user_id_fkey", undefined],
      [() => db.sql`insert into users (email) values ('no-at-sign')`, "23514", 422, "users_email_check", undefined],
      [() => db.sql`insert into users (email) values (${null})`, "23502", 422, undefined, "email"],
    ];
    for (const [run, code, status, constraint, column] of cases) {
      const err = await errorOf(run());
      assert.ok(err instanceof PostgresError, String(err));
      assert.equal(err.name, "PostgresError");
      assert.equal(err.code, code);
      assert.equal(err.severity, "ERROR");
      assert.equal(err.table, code === "23503" ? "posts" : "users");
      assert.equal(err.schema, "public");
      assert.ok(typeof err.routine === "string" && err.routine.length > 0);
      if (constraint !== undefined) assert.equal(err.constraint, constraint);
      if (column !== undefined) assert.equal(err.column, column);
      if (code === "23505") assert.match(err.detail ?? "", /already exists/);
      const mapped = mapDatabaseError(err);
      assert.ok(mapped !== undefined, code);
      if (code === "23505") assert.equal(mapped.status, status);
      else assert.ok([409, 422, 400].includes(mapped.status), `${code} → ${mapped.status}`);
    }
    await db.sql`delete from users`;
  });
});

describe("keel/postgres: timeouts and cancellation", () => {
  it("statementTimeoutMs: the server cancels a long statement with 57014", async (t) => {
    if (server === null) return t.skip(skip());
    const limited = connectPostgres(server.url, { statementTimeoutMs: 100 });
    try {
      const err = await errorOf(limited.sql`select pg_sleep(0.5)`);
      assert.ok(err instanceof PostgresError);
      assert.equal(err.code, "57014");
      assert.equal(err.severity, "ERROR");
      assert.equal((await limited.sql`show statement_timeout`)[0]!["statement_timeout"], "100ms");
    } finally {
      await limited.close();
    }
  });

  it("an AbortSignal cancels the running statement (CancelRequest) and rejects with its reason", async (t) => {
    if (server === null) return t.skip(skip());
    const one = connectPostgres(server.url, { max: 1 });
    try {
      const controller = new AbortController();
      const reason = new Error("caller gave up");
      const sleeping = one.query(sql`select pg_sleep(5)`, { signal: controller.signal });
      // Wait until the server runs it, then abort.
      for (;;) {
        const [r] = await db.sql`select count(*)::int as n from pg_stat_activity where query like 'select pg_sleep(5)%' and state = 'active'`;
        if (r!["n"] === 1) break;
      }
      controller.abort(reason);
      assert.equal(await errorOf(sleeping), reason);
      // The connection is still good, and the statement no longer runs.
      assert.equal((await one.sql`select 1 as v`)[0]!["v"], 1);
      const [r] = await db.sql`select count(*)::int as n from pg_stat_activity where query like 'select pg_sleep(5)%' and state = 'active'`;
      assert.equal(r!["n"], 0);
      const aborted = AbortSignal.abort(reason);
      assert.equal(await errorOf(one.query(sql`select 1`, { signal: aborted })), reason);
    } finally {
      await one.close();
    }
  });

  it("aborting a statement queued behind another on the same connection cancels only it, never the one running", async (t) => {
    if (server === null) return t.skip(skip());
    const one = connectPostgres(server.url, { max: 1 });
    try {
      // Both prepared first, so each is written at once (Bind + Execute) and they pipeline.
      await one.sql`select pg_sleep(${0}) as slept, 'a' as v`;
      await one.sql`select 'b' as v`;
      const controller = new AbortController();
      const running = one.sql`select pg_sleep(${0.3}) as slept, 'a' as v`;
      const behind = errorOf(one.query(sql`select 'b' as v`, { signal: controller.signal }));
      assert.equal(one.stats().inFlight, 2);
      const reason = new Error("not needed");
      controller.abort(reason);
      assert.equal((await running)[0]!["v"], "a", "the running statement was not cancelled");
      assert.equal(await behind, reason);
      assert.equal((await one.sql`select 'after' as v`)[0]!["v"], "after");
    } finally {
      await one.close();
    }
  });

  it("ping answers within its timeout", async (t) => {
    if (server === null) return t.skip(skip());
    await db.ping(2000);
  });
});
