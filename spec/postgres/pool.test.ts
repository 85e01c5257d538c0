// keel/postgres's pool, transactions, LISTEN/NOTIFY and outages against a real server (one
// throwaway cluster for the file; its server is stopped and started again in the outage test).
// Skips visibly when PostgreSQL is not installed.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { mapDatabaseError } from "../../lib/db-errors/index.js";
import { asApiError } from "../../lib/plugin.js";
import { connectPostgres, PostgresConnectionError, PostgresError, PostgresPoolError, ResultTooLargeError, sql, type PostgresDatabase } from "../../lib/postgres/index.js";
import { postgresUnavailable, startPostgres, type PostgresServerHandle } from "../support/postgres-server.js";

let server: PostgresServerHandle | null = null;
let db: PostgresDatabase;
const skip = (): string => postgresUnavailable() ?? "PostgreSQL could not start";

before(async () => {
  server = await startPostgres();
  if (server === null) return;
  db = connectPostgres(server.url, { max: 4 });
  await db.executeScript(`create table items (id serial primary key, name text not null unique);`);
});
after(async () => {
  await db?.close();
  await server?.stop();
});

async function errorOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(() => assert.fail("expected a rejection"), (e: unknown) => e);
}

/** Polls `check` until true (a condition, not a duration: fails after 5 s). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function names(): Promise<string[]> {
  return (await db.sql`select name from items order by name`).map((r) => r["name"] as string);
}

describe("keel/postgres: transactions", () => {
  it("commits when the handler resolves; rolls back and rethrows when it throws, leaving no row", async (t) => {
    if (server === null) return t.skip(skip());
    const value = await db.begin(async (tx) => {
      await tx.sql`insert into items (name) values ('kept')`;
      return 42;
    });
    assert.equal(value, 42);
    const boom = new Error("handler failed");
    const err = await errorOf(
      db.begin(async (tx) => {
        await tx.sql`insert into items (name) values ('gone')`;
        throw boom;
      }),
    );
    assert.equal(err, boom);
    assert.deepEqual(await names(), ["kept"]);
    await db.sql`delete from items`;
  });

  it("savepoints: an inner failure rolls back to the savepoint only; a caught failed statement makes commit reject (25P02)", async (t) => {
    if (server === null) return t.skip(skip());
    await db.begin(async (tx) => {
      await tx.sql`insert into items (name) values ('outer')`;
      await tx
        .savepoint(async (inner) => {
          await inner.sql`insert into items (name) values ('inner')`;
          throw new Error("undo inner");
        })
        .catch(() => undefined);
      assert.equal(await tx.savepoint(async (inner) => (await inner.sql`insert into items (name) values ('inner2') returning name`)[0]!["name"]), "inner2");
    });
    assert.deepEqual(await names(), ["inner2", "outer"]);
    const err = await errorOf(
      db.begin(async (tx) => {
        await tx.sql`insert into items (name) values ('never')`;
        await tx.sql`insert into items (name) values ('outer')`.catch(() => undefined); // 23505, caught
      }),
    );
    assert.ok(err instanceof PostgresError);
    assert.equal(err.code, "25P02");
    assert.deepEqual(await names(), ["inner2", "outer"]);
    await db.sql`delete from items`;
  });

  it("a statement on a finished transaction is refused", async (t) => {
    if (server === null) return t.skip(skip());
    let leaked: { sql: typeof db.sql } | null = null;
    await db.begin(async (tx) => {
      leaked = tx;
    });
    await assert.rejects(leaked!.sql`select 1`, /transaction is finished/);
  });

  it("a transaction whose connection dies rejects with a class-08 error, never hangs; the pool goes on", async (t) => {
    if (server === null) return t.skip(skip());
    const err = await errorOf(
      db.begin(async (tx) => {
        const [{ pid }] = (await tx.sql`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
        await db.sql`select pg_terminate_backend(${pid})`;
        await tx.sql`insert into items (name) values ('lost')`;
      }),
    );
    assert.ok(err instanceof PostgresConnectionError, String(err));
    assert.match(err.code, /^08/);
    assert.equal(mapDatabaseError(err)?.status, 503);
    assert.deepEqual(await names(), []);
  });
});

describe("keel/postgres: pool", () => {
  it("acquire timeout and a full wait queue are PostgresPoolErrors that answer 503 with Retry-After", async (t) => {
    if (server === null) return t.skip(skip());
    const one = connectPostgres(server.url, { max: 1, acquireTimeoutMs: 100, maxWaiting: 1 });
    try {
      let release!: () => void;
      const held = one.begin(() => new Promise<void>((r) => (release = r)));
      await until(() => one.stats().total === 1 && one.stats().idle === 0, "the transaction to hold the connection");
      const waiting = one.sql`select 1`;
      const full = await errorOf(one.sql`select 2`);
      assert.ok(full instanceof PostgresPoolError);
      assert.equal(full.code, "KEEL_POOL_QUEUE_FULL");
      const timedOut = await errorOf(waiting);
      assert.ok(timedOut instanceof PostgresPoolError);
      assert.equal(timedOut.code, "KEEL_POOL_TIMEOUT");
      assert.equal(timedOut.retryable, true);
      const api = timedOut[asApiError]();
      assert.equal(api.status, 503);
      release();
      await held;
      assert.equal((await one.sql`select 3 as v`)[0]!["v"], 3);
      const stats = one.stats();
      assert.equal(stats.acquireTimeouts, 1);
      assert.equal(stats.queueFull, 1);
    } finally {
      await one.close();
    }
  });

  it("ping's deadline covers the wait for a connection; a statement aborted while it waits is never run", async (t) => {
    if (server === null) return t.skip(skip());
    const one = connectPostgres(server.url, { max: 1, acquireTimeoutMs: 5000 });
    try {
      let release!: () => void;
      const held = one.begin(() => new Promise<void>((r) => (release = r)));
      await until(() => one.stats().total === 1 && one.stats().idle === 0, "the transaction to hold the connection");
      const ping = await errorOf(one.ping(50));
      assert.ok(ping instanceof PostgresConnectionError, String(ping));
      assert.match(ping.message, /ping within 50 ms/);
      const controller = new AbortController();
      const waiting = errorOf(one.query(sql`insert into items (name) values ('aborted while queued')`, { signal: controller.signal }));
      const reason = new Error("gave up waiting");
      controller.abort(reason);
      release();
      await held;
      assert.equal(await waiting, reason);
      // Neither aborted statement may reach the server: a CancelRequest sent for one of them would
      // land during this sleep and cancel it (57014).
      assert.equal((await one.sql`select pg_sleep(0.2), 'after' as v`)[0]!["v"], "after");
      assert.deepEqual(await names(), []);
    } finally {
      await one.close();
    }
  });

  it("idle connections close after idleTimeoutMs down to min; old ones retire after maxLifetimeMs", async (t) => {
    if (server === null) return t.skip(skip());
    const idle = connectPostgres(server.url, { max: 3, min: 1, idleTimeoutMs: 100 });
    try {
      await Promise.all([1, 2, 3].map(() => idle.sql`select pg_sleep(0.05)`));
      assert.equal(idle.stats().total, 3);
      await until(() => idle.stats().total === 1, "idle connections to close down to min");
      assert.ok(idle.stats().retired >= 2);
    } finally {
      await idle.close();
    }
    const aging = connectPostgres(server.url, { max: 1, maxLifetimeMs: 50 });
    try {
      const first = (await aging.sql`select pg_backend_pid() as pid`)[0]!["pid"];
      await until(() => aging.stats().retired >= 1, "the old connection to retire");
      const second = (await aging.sql`select pg_backend_pid() as pid`)[0]!["pid"];
      assert.notEqual(first, second);
    } finally {
      await aging.close();
    }
  });

  it("close() lets running statements finish, then refuses new ones (08003); past drainTimeoutMs it destroys", async (t) => {
    if (server === null) return t.skip(skip());
    const draining = connectPostgres(server.url, { max: 2 });
    const running = draining.sql`select pg_sleep(0.2), 'done' as v`;
    await until(() => draining.stats().inFlight === 1 && draining.stats().total === 1 && draining.stats().opened === 1, "the statement to be sent");
    const closed = draining.close();
    assert.equal((await running)[0]!["v"], "done");
    await closed;
    const refused = await errorOf(draining.sql`select 1`);
    assert.ok(refused instanceof PostgresConnectionError);
    assert.equal(refused.code, "08003");

    const impatient = connectPostgres(server.url, { drainTimeoutMs: 50 });
    const long = impatient.sql`select pg_sleep(0.5)`;
    await until(() => impatient.stats().opened === 1, "the connection to open");
    await impatient.close();
    const cut = await errorOf(long);
    assert.ok(cut instanceof PostgresConnectionError);
    assert.equal(cut.code, "08006");
  });

  it("a server message over maxMessageBytes closes that connection with 08006; the pool opens another", async (t) => {
    if (server === null) return t.skip(skip());
    const small = connectPostgres(server.url, { max: 1, maxMessageBytes: 4096 });
    try {
      const err = await errorOf(small.sql`select repeat('x', 100000) as big`);
      assert.ok(err instanceof PostgresConnectionError);
      assert.equal(err.code, "08006");
      assert.match(err.message, /maxMessageBytes/);
      assert.equal((await small.sql`select 'ok' as v`)[0]!["v"], "ok");
      assert.equal(small.stats().lost, 1);
    } finally {
      await small.close();
    }
  });
});

describe("keel/postgres: result bound", () => {
  it("a result over maxResultBytes rejects with ResultTooLargeError, keeping nothing; the connection goes on", async (t) => {
    if (server === null) return t.skip(skip());
    const bounded = connectPostgres(server.url, { max: 1, maxResultBytes: 64 * 1024 });
    try {
      const before = process.memoryUsage().heapUsed;
      // About 16 MiB of rows against a 64 KiB bound.
      const err = await errorOf(bounded.sql`select repeat('x', 1000) as v from generate_series(1, 16000)`);
      assert.ok(err instanceof ResultTooLargeError, String(err));
      const grown = process.memoryUsage().heapUsed - before;
      assert.ok(grown < 12 * 1024 * 1024, `heap grew ${grown} bytes`);
      assert.equal((await bounded.sql`select count(*)::int as n from generate_series(1, 10)`)[0]!["n"], 10);
      assert.equal(bounded.stats().opened, 1);
    } finally {
      await bounded.close();
    }
  });
});

describe("keel/postgres: LISTEN/NOTIFY and outages", () => {
  it("listen() gets notify()'s payloads; unlisten() stops them", async (t) => {
    if (server === null) return t.skip(skip());
    const heard: string[] = [];
    const sub = await db.listen("events", (payload) => heard.push(payload));
    await db.notify("events", "one");
    await db.notify("events", "it's 'quoted'");
    await until(() => heard.length === 2, "two notifications");
    assert.deepEqual(heard, ["one", "it's 'quoted'"]);
    await sub.unlisten();
    // A marker on another channel, notified after: once it arrives, "unheard" would have too.
    const markers: string[] = [];
    const marker = await db.listen("markers", (p) => markers.push(p));
    await db.notify("events", "unheard");
    await db.notify("markers", "marker");
    await until(() => markers.length === 1, "the marker");
    assert.deepEqual(heard, ["one", "it's 'quoted'"]);
    await marker.unlisten();
  });

  it("server stopped mid-query: every pending statement rejects with a class-08 error (503); recovery after restart, LISTEN included", async (t) => {
    if (server === null) return t.skip(skip());
    const outage = connectPostgres(server.url, { max: 3, connectTimeoutMs: 1000 });
    const heard: string[] = [];
    try {
      await outage.listen("after_restart", (p) => heard.push(p));
      const pending = Array.from({ length: 6 }, () => errorOf(outage.sql`select pg_sleep(5)`));
      await until(() => outage.stats().inFlight === 6, "the statements to be in flight");
      await server.stopServer();
      const errors = await Promise.all(pending);
      for (const err of errors) {
        assert.ok(err instanceof PostgresConnectionError, String(err));
        assert.match(err.code, /^08/);
        assert.equal(mapDatabaseError(err)?.status, 503);
      }
      // While it is down: a fast 08001, not a hang.
      const down = await errorOf(outage.sql`select 1`);
      assert.ok(down instanceof PostgresConnectionError);
      assert.equal(down.code, "08001");
      await server.startServer();
      assert.equal((await outage.sql`select 'back' as v`)[0]!["v"], "back");
      await until(() => outage.stats().listenReconnects >= 1, "the listener to LISTEN again");
      await outage.notify("after_restart", "hello again");
      await until(() => heard.length === 1, "the notification after the restart");
      assert.deepEqual(heard, ["hello again"]);
    } finally {
      await outage.close();
    }
  });
});
