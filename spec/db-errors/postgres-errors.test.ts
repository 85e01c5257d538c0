// keel/db-errors against errors a real PostgreSQL raises (a throwaway cluster, spec/support/
// postgres-server.ts), as keel's own client (keel/postgres) and the two common drivers report
// them: `pg` (node-postgres) and `postgres` (postgres.js), both test peers at pinned versions. Each SQLSTATE the mapping names
// is provoked for real (constraint violations, a serialization failure between two serializable
// transactions, a deadlock, a statement timeout, a terminated backend, the server stopped under a
// query and then refusing connections), and the error the driver throws goes through an app with
// `mapErrors(mapDatabaseError)`: the status, body and Retry-After the client sees are asserted.
// Skips visibly when Postgres or the peers are not available.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, route, silentLogger } from "../../lib/index.js";
import { isRetryableDatabaseError, mapDatabaseError } from "../../lib/db-errors/index.js";
import { postgresUnavailable, startPostgres, type PostgresServerHandle } from "../support/postgres-server.js";
import { pg, postgresJs, postgresPeersSkip } from "../support/postgres-peers.js";
import { connectPostgres, type PostgresDatabase, type SqlTransaction } from "../../lib/postgres/index.js";

const unavailable = postgresPeersSkip || postgresUnavailable();
const skip = unavailable === null ? false : unavailable;

/** One connection of either driver: plain SQL text, its backend pid, closing. */
interface Conn {
  query(text: string): Promise<unknown>;
  close(): Promise<void>;
}
interface Driver {
  readonly name: "keel/postgres" | "pg" | "postgres.js";
  connect(url: string): Promise<Conn>;
}

/** Thrown inside keel's `begin` to end it with a rollback when the test sends ROLLBACK. */
const ROLLBACK = Symbol("rollback");

/**
 * keel/postgres as one connection taking plain SQL text. Its pool gives a transaction only through
 * `db.begin` (a connection released inside one is destroyed), so BEGIN ... COMMIT sent as text
 * opens a `db.begin` that stays open until COMMIT or ROLLBACK; statements between run in it.
 */
function keelConnection(db: PostgresDatabase): Conn {
  let open: { tx: SqlTransaction; end: (commit: boolean) => void; done: Promise<unknown> } | null = null;
  return {
    async query(text) {
      const head = text.trim().toLowerCase();
      if (head.startsWith("begin")) {
        let started!: (tx: SqlTransaction) => void;
        let end!: (commit: boolean) => void;
        const got = new Promise<SqlTransaction>((resolve) => (started = resolve));
        const ended = new Promise<boolean>((resolve) => (end = resolve));
        const done = db.begin(async (tx) => {
          started(tx);
          if (!(await ended)) throw ROLLBACK;
        });
        done.catch(() => {}); // observed by COMMIT / ROLLBACK below
        const tx = await Promise.race([got, done.then(() => Promise.reject(new Error("the transaction ended before it began")))]);
        open = { tx, end, done };
        const mode = head.slice("begin".length).trim();
        if (mode !== "") await tx.executeScript!(`set transaction ${mode}`);
        return undefined;
      }
      if ((head === "commit" || head === "rollback") && open !== null) {
        const { end, done } = open;
        open = null;
        end(head === "commit");
        try {
          await done;
        } catch (err) {
          if (err !== ROLLBACK) throw err;
        }
        return undefined;
      }
      return open !== null ? open.tx.executeScript!(text) : db.executeScript(text);
    },
    close: () => db.close(),
  };
}

const drivers: Driver[] = [
  {
    name: "keel/postgres",
    async connect(url) {
      // max 1: one connection, as with the others (session settings such as statement_timeout stay).
      const db = connectPostgres(url, { max: 1, connectTimeoutMs: 5000 });
      try {
        await db.sql`select 1`;
      } catch (err) {
        await db.close();
        throw err;
      }
      return keelConnection(db);
    },
  },
  {
    name: "pg",
    async connect(url) {
      const client = new pg.Client({ connectionString: url });
      // A terminated or lost connection is also an 'error' event; the query's rejection is what we check.
      client.on("error", () => {});
      await client.connect();
      return { query: (text) => client.query(text), close: () => client.end().catch(() => {}) };
    },
  },
  {
    name: "postgres.js",
    async connect(url) {
      // max 1: every statement on the same connection, so BEGIN ... COMMIT as plain text is one transaction.
      const sql = postgresJs(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });
      await sql`select 1`;
      return { query: (text) => sql.unsafe(text), close: () => sql.end({ timeout: 1 }).catch(() => {}) };
    },
  },
];

interface Answer {
  status: number;
  type: string;
  fields: Array<{ field: string; code: string }> | undefined;
  retryAfter: string | undefined;
}

/** What a client gets when a handler lets `err` through an app that maps database errors. */
async function answer(err: unknown): Promise<Answer> {
  const app = new App({ logger: silentLogger }).mapErrors(mapDatabaseError).route(route.get("/x", [], () => Promise.reject(err)));
  const r = await app.inject({ url: "/x" });
  const body = r.json<{ error: { type: string; fields?: Array<{ field: string; code: string }> } }>();
  const retry = r.headers["retry-after"];
  return { status: r.status, type: body.error.type, fields: body.error.fields, retryAfter: retry === undefined ? undefined : String(retry) };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  assert.fail("expected the statement to fail");
}

let server: PostgresServerHandle | null = null;

before(async () => {
  if (skip !== false) return;
  // A short deadlock_timeout: the deadlock check runs 100 ms after a lock wait begins, not 1 s.
  server = await startPostgres({ config: ["deadlock_timeout = '100ms'"] });
  assert.ok(server, "postgres started");
  await server.psql(`
    create table parents (id int primary key);
    create table items (id int primary key, parent int references parents (id), qty int check (qty >= 0), name text not null);
    create table counters (id int primary key, v int not null);
    insert into parents values (1);
    insert into items values (1, 1, 1, 'a');
    insert into counters values (1, 0), (2, 0);
  `);
});

after(async () => {
  await server?.stop();
});

describe(`keel/db-errors against a real PostgreSQL through keel/postgres, pg and postgres.js`, { skip, timeout: 60_000 }, () => {
  for (const driver of drivers) {
    describe(driver.name, () => {
      let a: Conn;
      let b: Conn;
      before(async () => {
        a = await driver.connect(server!.url);
        b = await driver.connect(server!.url);
      });
      after(async () => {
        await a.close();
        await b.close();
      });

      it("23505 unique violation: 409 conflict", async () => {
        const err = await rejection(a.query("insert into items values (1, 1, 1, 'again')"));
        assert.equal((err as { code: string }).code, "23505");
        assert.deepEqual(await answer(err), { status: 409, type: "conflict", fields: undefined, retryAfter: undefined });
      });

      it("23503 foreign key, both ways (referenced row missing, row still referenced): 409 conflict", async () => {
        const missing = await rejection(a.query("insert into items values (2, 999, 1, 'b')"));
        const referenced = await rejection(a.query("delete from parents where id = 1"));
        for (const err of [missing, referenced]) {
          assert.equal((err as { code: string }).code, "23503");
          assert.deepEqual(await answer(err), { status: 409, type: "conflict", fields: undefined, retryAfter: undefined });
        }
      });

      it("23514 check violation: 422 validation_error with no field item (a check names no column)", async () => {
        const err = await rejection(a.query("insert into items values (3, 1, -1, 'c')"));
        assert.equal((err as { code: string }).code, "23514");
        assert.deepEqual(await answer(err), { status: 422, type: "validation_error", fields: [], retryAfter: undefined });
      });

      it("23502 not null violation: 422 validation_error with the column as the field", async () => {
        const err = await rejection(a.query("insert into items values (4, 1, 1, null)"));
        assert.equal((err as { code: string }).code, "23502");
        const got = await answer(err);
        assert.equal(got.status, 422);
        assert.equal(got.type, "validation_error");
        assert.deepEqual(got.fields?.map((f) => [f.field, f.code]), [["name", "required"]]);
      });

      it("40001 serialization failure between two serializable transactions: 503, Retry-After, retryable", async () => {
        // Write skew: each reads both rows, then writes the row the other read; the second commit fails.
        for (const c of [a, b]) {
          await c.query("begin isolation level serializable");
          await c.query("select sum(v) from counters");
        }
        await a.query("update counters set v = v + 1 where id = 1");
        await b.query("update counters set v = v + 1 where id = 2");
        await a.query("commit");
        const err = await rejection(b.query("commit"));
        assert.equal((err as { code: string }).code, "40001");
        assert.deepEqual(await answer(err), { status: 503, type: "service_unavailable", fields: undefined, retryAfter: "1" });
        assert.equal(isRetryableDatabaseError(err), true);
      });

      it("40P01 deadlock: 503, Retry-After, retryable", async () => {
        await a.query("begin");
        await b.query("begin");
        await a.query("update counters set v = v + 1 where id = 1");
        await b.query("update counters set v = v + 1 where id = 2");
        // Each now waits for the other's row: Postgres aborts one of the two (which one is its choice).
        const outcomes = await Promise.allSettled([a.query("update counters set v = v + 1 where id = 2"), b.query("update counters set v = v + 1 where id = 1")]);
        await Promise.all([a.query("rollback"), b.query("rollback")]);
        const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
        assert.equal(failed.length, 1, "exactly one transaction was chosen as the victim");
        const err = failed[0]!.reason;
        assert.equal((err as { code: string }).code, "40P01");
        assert.deepEqual(await answer(err), { status: 503, type: "service_unavailable", fields: undefined, retryAfter: "1" });
        assert.equal(isRetryableDatabaseError(err), true);
      });

      it("57014 statement timeout: 503 without Retry-After, not retryable", async () => {
        await a.query("set statement_timeout = 50");
        const err = await rejection(a.query("select pg_sleep(5)"));
        await a.query("set statement_timeout = 0");
        assert.equal((err as { code: string }).code, "57014");
        assert.deepEqual(await answer(err), { status: 503, type: "service_unavailable", fields: undefined, retryAfter: undefined });
        assert.equal(isRetryableDatabaseError(err), false);
      });

      it("57P01 a backend terminated under a statement (pg_terminate_backend): 503, Retry-After", async () => {
        const c = await driver.connect(server!.url);
        try {
          const running = rejection(c.query("select pg_sleep(10) /* victim */"));
          // Terminate it once it is running (polled: the statement may not have reached the server yet).
          for (let i = 0; i < 200; i++) {
            const out = await server!.psql("select count(pg_terminate_backend(pid)) from pg_stat_activity where state = 'active' and query like '%/* victim */%' and pid <> pg_backend_pid()");
            if (out.trim() !== "0") break;
            await new Promise((r) => setTimeout(r, 25));
          }
          const err = await running;
          // pg passes the server's FATAL 57P01 on; postgres.js reports the closed socket instead;
          // keel/postgres rejects with 08006 (connection lost) whose cause is the server's FATAL.
          const expected = { pg: "57P01", "postgres.js": "CONNECTION_CLOSED", "keel/postgres": "08006" }[driver.name];
          assert.equal((err as { code: string }).code, expected);
          if (driver.name === "keel/postgres") assert.equal((err as { cause?: { code?: string } }).cause?.code, "57P01");
          assert.deepEqual(await answer(err), { status: 503, type: "service_unavailable", fields: undefined, retryAfter: "1" });
        } finally {
          await c.close();
        }
      });
    });
  }

  // Last: the server goes away. A statement running when it stops fails with admin shutdown;
  // connecting afterwards is refused; both are 503 with Retry-After, and nothing hangs.
  describe("the server stopped", () => {
    const running: Array<{ driver: string; conn: Conn; pending: Promise<unknown> }> = [];
    before(async () => {
      for (const driver of drivers) {
        const conn = await driver.connect(server!.url);
        running.push({ driver: driver.name, conn, pending: rejection(conn.query("select pg_sleep(30) /* shutdown */")) });
      }
      for (let i = 0; i < 200; i++) {
        const out = await server!.psql("select count(*) from pg_stat_activity where state = 'active' and query like '%/* shutdown */%' and pid <> pg_backend_pid()");
        if (out.trim() === String(drivers.length)) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      await server!.stopServer();
    });
    after(async () => {
      for (const r of running) await r.conn.close();
    });

    it("a statement running at shutdown: 503 with Retry-After, for each driver", async () => {
      for (const r of running) {
        const err = await r.pending;
        const got = await answer(err);
        assert.equal(got.status, 503, `${r.driver}: ${String(err)}`);
        assert.equal(got.retryAfter, "1", r.driver);
      }
    });

    it("connection refused: 503 with Retry-After, retryable, for each driver", async () => {
      for (const driver of drivers) {
        const err = await rejection(driver.connect(server!.url));
        const got = await answer(err);
        assert.deepEqual(got, { status: 503, type: "service_unavailable", fields: undefined, retryAfter: "1" }, `${driver.name}: ${String(err)} ${JSON.stringify(err)}`);
        assert.equal(isRetryableDatabaseError(err), true, driver.name);
      }
    });
  });
});
