// lib/sql's per-route transaction (transaction(db) + tx()) and databaseCheck, against a real
// PostgreSQL (one throwaway cluster for the file), over two SqlDatabases: keel's own client
// (keel/postgres's connectPostgres) and the TEST ADAPTER over postgres.js
// (spec/support/postgres-js-test-database.ts). Commit on success, rollback on every error reply
// (thrown, returned, mapped database error, failed commit), on a client that went away, on a
// stream that failed; never an open transaction left behind. Skips visibly without Postgres, and
// the postgres.js cases without that peer.
import assert from "node:assert/strict";
import { request } from "node:http";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { App, created, extractor, json, reply, route, silentLogger, stream, t, type Context, type ListeningServer } from "../../lib/index.js";
import { mapDatabaseError } from "../../lib/db-errors/index.js";
import { HealthChecks, probeRoutes } from "../../lib/service/index.js";
import { databaseCheck, transaction, tx, type SqlDatabase } from "../../lib/sql/index.js";
import { connectPostgres } from "../../lib/postgres/index.js";
import { postgresUnavailable, startPostgres, type PostgresServerHandle } from "../support/postgres-server.js";
import { postgresPeersSkip } from "../support/postgres-peers.js";
import { postgresJsTestDatabase } from "../support/postgres-js-test-database.js";
import { send } from "../support/http.js";

const pgUnavailable = postgresUnavailable();
const skipAll = pgUnavailable === null ? false : pgUnavailable;

let server: PostgresServerHandle | null = null;
let db: Pick<SqlDatabase, "sql" | "begin" | "ping" | "close">;
let app: App;
let http: ListeningServer;

const context = extractor("ctx", (ctx: Context) => ctx);
/** Resolved by the disconnect test's handler once it has written and seen the client leave. */
let handlerSawClose: () => void = () => {};

async function rows(tag: string): Promise<number> {
  const [r] = await db.sql<{ n: number }>`select count(*)::int as n from notes where tag = ${tag}`;
  return r!.n;
}

before(async () => {
  if (skipAll !== false) return;
  server = await startPostgres();
  assert.ok(server, "postgres started");
  await server.psql(`
    create table notes (id serial primary key, tag text not null, body text not null unique);
    create table parents (id int primary key);
    create table late (id int primary key, parent int references parents (id) deferrable initially deferred);
  `);
});

after(async () => {
  await server?.stop();
});

/** The app over `made` (a fresh pool of 2), on empty tables. */
async function setUp(made: typeof db): Promise<void> {
  await server!.psql("truncate notes, late, parents");
  db = made;
  const layers = [transaction(db)];
  const note = t.object({ tag: t.string(), body: t.string() });
  app = new App({ logger: silentLogger }).mapErrors(mapDatabaseError).routes(
    route.post("/notes", { layers }, [tx(), json(note)], async (tx, n) => {
      await tx.sql`insert into notes (tag, body) values (${n.tag}, ${n.body})`;
      if (n.body.startsWith("throw")) throw new Error("the handler failed after writing");
      if (n.body.startsWith("refuse")) return reply.json({ error: { type: "validation_error", message: "refused after writing", fields: [] } }, 422);
      if (n.body.startsWith("twice")) await tx.sql`insert into notes (tag, body) values (${n.tag}, ${n.body})`;
      return created({ ok: true });
    }),
    route.post("/late", { layers }, [tx()], async (tx) => {
      // A deferred foreign key is checked at COMMIT: the commit fails after the handler succeeded.
      await tx.sql`insert into late values (1, 999)`;
      return { written: true };
    }),
    route.post("/streamed/{mode}", { layers }, [tx(), context], async (tx, ctx) => {
      const mode = ctx.params["mode"];
      await tx.sql`insert into notes (tag, body) values (${"stream-" + mode}, ${"streamed " + mode})`;
      async function* body(): AsyncGenerator<string> {
        yield "first ";
        // The stream reads through the transaction while it is sent.
        const [r] = await tx.sql<{ n: number }>`select count(*)::int as n from notes where tag = ${"stream-" + mode}`;
        yield `seen ${r!.n} `;
        if (mode === "fail") throw new Error("the stream failed");
        yield "last";
      }
      return stream(Readable.from(body()), "text/plain");
    }),
    route.post("/gone", { layers }, [tx(), context], async (tx, ctx) => {
      await tx.sql`insert into notes (tag, body) values ('gone', 'written before the client left')`;
      await new Promise<void>((resolve) => (ctx.res!.closed ? resolve() : ctx.res!.once("close", () => resolve())));
      handlerSawClose();
      return created({ ok: true });
    }),
    route.get("/no-layer", [tx()], async () => ({})),
  );
  http = await app.listen({ port: 0 });
}

async function tearDown(): Promise<void> {
  await http?.close();
  await db?.close().catch(() => {});
}

const drivers: Array<{ name: string; skip: string | false; make: (url: string) => typeof db }> = [
  { name: "keel/postgres", skip: skipAll, make: (url) => connectPostgres(url, { max: 2 }) },
  { name: "postgres.js test adapter", skip: skipAll || postgresPeersSkip, make: (url) => postgresJsTestDatabase(url, { max: 2 }) },
];

for (const driver of drivers) {
    const skip = driver.skip;

  async function openTransactions(): Promise<number> {
    return Number((await server!.psql("select count(*) from pg_stat_activity where state like 'idle in transaction%'")).trim());
  }

  describe(`transaction(db) and tx() against a real PostgreSQL (${driver.name})`, { skip, timeout: 60_000 }, () => {
    before(() => setUp(driver.make(server!.url)));
    after(() => tearDown());
    const post = (url: string, body: unknown) => app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

    it("a success commits before the answer: the row is there when the 201 arrives", async () => {
      const r = await post("/notes", { tag: "commit", body: "kept" });
      assert.equal(r.status, 201);
      assert.equal(await rows("commit"), 1);
    });

    it("a handler that throws after writing leaves no row (500)", async () => {
      assert.equal((await post("/notes", { tag: "throw", body: "throw please" })).status, 500);
      assert.equal(await rows("throw"), 0);
    });

    it("a returned error reply (422) rolls back too", async () => {
      assert.equal((await post("/notes", { tag: "refuse", body: "refuse please" })).status, 422);
      assert.equal(await rows("refuse"), 0);
    });

    it("a database error inside maps (409) and undoes the earlier statement of the same transaction", async () => {
      const r = await post("/notes", { tag: "twice", body: "twice the same" });
      assert.equal(r.status, 409);
      assert.equal(await rows("twice"), 0);
    });

    it("a commit that fails (a deferred foreign key) is the answer: 409, nothing written", async () => {
      const r = await app.inject({ method: "POST", url: "/late" });
      assert.equal(r.status, 409, r.body);
      assert.equal(Number((await server!.psql("select count(*) from late")).trim()), 0);
    });

    it("a streamed body reads through the open transaction and commits once sent in full", async () => {
      const r = await send(http.url + "/streamed/full", { method: "POST" });
      assert.equal(r.status, 200);
      assert.equal(r.body, "first seen 1 last");
      assert.equal(await rows("stream-full"), 1);
    });

    it("a stream that fails midway rolls back", async () => {
      // The status line went out before the failure: the client sees a cut-off body, not an error status.
      await send(http.url + "/streamed/fail", { method: "POST" }).catch(() => undefined);
      // The rollback runs when the response is over; poll the outcome, not the timing.
      for (let i = 0; i < 100 && (await openTransactions()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(await rows("stream-fail"), 0);
    });

    it("a client gone before the commit: rolled back, the transaction not left open", async () => {
      const seen = new Promise<void>((resolve) => (handlerSawClose = resolve));
      const req = request(http.url + "/gone", { method: "POST", agent: false });
      req.on("error", () => {});
      req.end();
      // Once the row is written (inside the open transaction), the client leaves.
      for (let i = 0; i < 200 && (await openTransactions()) === 0; i++) await new Promise((r) => setTimeout(r, 10));
      req.destroy();
      await seen;
      for (let i = 0; i < 100 && (await openTransactions()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(await rows("gone"), 0);
    });

    it("no transaction is left open after all of the above, and the pool still serves", async () => {
      assert.equal(await openTransactions(), 0);
      assert.equal((await post("/notes", { tag: "after", body: "still works" })).status, 201);
    });

    it("tx() on a route without the layer is a 500 (a wiring mistake)", async () => {
      assert.equal((await app.inject({ url: "/no-layer" })).status, 500);
    });
  });

  describe(`databaseCheck for /ready (${driver.name})`, { skip, timeout: 60_000 }, () => {
    before(() => setUp(driver.make(server!.url)));
    after(() => tearDown());

    it("a database that never answers fails the check at its timeout instead of hanging", async () => {
      const check = databaseCheck({ ping: () => new Promise<void>(() => {}) }, { timeoutMs: 50 });
      await assert.rejects(check(), /did not answer within 50 ms/);
    });

    it("/ready is 200 with the database up, 503 once it stops, 200 again after it restarts", async () => {
      const checks = new HealthChecks({ cacheMs: 0 }).add("db", databaseCheck(db, { timeoutMs: 500 }));
      const probes = await new App({ logger: silentLogger }).routes(probeRoutes({ service: "test", version: "0", checks })).listen({ port: 0 });
      try {
        assert.equal((await send(probes.url + "/ready")).status, 200);
        await server!.stopServer();
        const down = await send(probes.url + "/ready");
        assert.equal(down.status, 503, down.body);
        await server!.startServer();
        let status = 0;
        for (let i = 0; i < 50 && status !== 200; i++) status = (await send(probes.url + "/ready")).status;
        assert.equal(status, 200);
      } finally {
        await probes.close();
      }
    });
  });
}
