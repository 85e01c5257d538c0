// The sample keeps its users in a database (issue 35): SQLite under the data directory where
// node:sqlite exists, migrated on start, so users survive a restart; a taken email is a 409 from
// the table's unique index; pages walk the table by cursor. On Node 20: memory, with one log line
// saying so. `migrate` applies the migrations and exits.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createSampleApp, migrateSample } from "../../lib/sample/index.js";
import { nodeHasSqlite, openSqlite, type SqliteDatabase } from "../../lib/sqlite/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { sendWithin, startSample } from "../support/sample-process.js";

const MAIN = fileURLToPath(new URL("../../lib/sample/main.ts", import.meta.url));
const hasSqlite = nodeHasSqlite();
const needsSqlite = hasSqlite ? {} : { skip: "node:sqlite needs Node 22.13+" };
const JSON_BODY = { "content-type": "application/json" };
const userBody = (email: string) => JSON.stringify({ email, password: "correct horse" });

interface Page {
  users: Array<{ id: number; email: string }>;
  total: number;
  next_cursor: string | null;
}

let root: string;
before(() => void (root = mkdtempSync(join(tmpdir(), "keel-sample-db-"))));
after(() => rmSync(root, { recursive: true, force: true }));

describe("the sample on SQLite, in process", needsSqlite, () => {
  let db: SqliteDatabase;
  before(async () => {
    db = await openSqlite(":memory:");
    await migrateSample(db, captureLogger());
  });
  after(() => db.close());

  it("starts with the twelve seed users, ids 1 to 12, as the memory table does", async () => {
    const app = createSampleApp({ logger: captureLogger(), env: "development", database: db });
    const page = (await app.inject({ url: "/api/v1/users?limit=100" })).json<Page>();
    assert.equal(page.total, 12);
    assert.deepEqual(page.users.map((u) => u.id), Array.from({ length: 12 }, (_, i) => i + 1));
    assert.deepEqual((await app.inject({ url: "/users/3" })).json(), { id: 3, email: "carol@example.com" });
    assert.equal((await app.inject({ url: "/users/999" })).status, 404);
  });

  it("a taken email is a 409 from SQLite's unique index (the driver's message is in the log)", async () => {
    const logger = captureLogger();
    const app = createSampleApp({ logger, env: "development", database: db });
    const made = await app.inject({ method: "POST", url: "/users", headers: JSON_BODY, body: userBody("unique@example.com") });
    assert.equal(made.status, 201, made.body);
    assert.equal(made.headers["location"], `/users/${made.json<{ id: number }>().id}`);
    const again = await app.inject({ method: "POST", url: "/users", headers: JSON_BODY, body: userBody("unique@example.com") });
    assert.equal(again.status, 409, again.body);
    assert.equal(again.json<{ error: { type: string } }>().error.type, "conflict");
    assert.match(JSON.stringify(logger.records), /UNIQUE constraint failed: users\.email/);
  });

  it("walks 250 users a page at a time by cursor, each once, in id order", async () => {
    const before = Number((await db.sql<{ n: number }>`select count(*) as n from users`)[0]!.n);
    await db.begin(async (tx) => {
      for (let i = 0; i < 250 - before; i++) await tx.sql`insert into users (email) values (${`page${i}@example.com`})`;
    });
    const app = createSampleApp({ logger: captureLogger(), env: "development", database: db });
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await app.inject({ url: "/api/v1/users?limit=40" + (cursor === null ? "" : `&cursor=${cursor}`) });
      assert.equal(r.status, 200, r.body);
      const page = r.json<Page>();
      assert.equal(page.total, 250);
      seen.push(...page.users.map((u) => u.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor !== null && pages < 20);
    assert.equal(pages, 7);
    const ids = (await db.sql<{ id: number }>`select id from users order by id`).map((r) => r.id);
    assert.deepEqual(seen, ids);
  });
});

describe("the sample's database and shutdown", needsSqlite, () => {
  it("the app closes the database it was given when it shuts down", async () => {
    const own = await openSqlite(":memory:");
    await migrateSample(own, captureLogger());
    const server = await createSampleApp({ logger: captureLogger(), env: "development", database: own }).listen({ port: 0 });
    assert.equal((await sendWithin(`${server.url}/users/1`)).status, 200);
    await own.ping();
    await server.close();
    await assert.rejects(own.ping(), /the database is closed/);
  });
});

describe("the sample as a process", () => {
  it("keeps users in <data dir>/keel-sample.db: a user made before a restart is there after it", needsSqlite, async () => {
    const dataDir = join(root, "restart");
    const first = await startSample({ KEEL_DATA_DIR: dataDir });
    let id: number;
    try {
      assert.match(first.output(), /"msg":"users are kept in SQLite"/);
      const health = await sendWithin(`${first.url}/health`);
      assert.equal(health.status, 200, health.body);
      assert.equal((JSON.parse(health.body) as { checks: Record<string, { status: string }> }).checks["database"]?.status, "ok", health.body);
      const made = await sendWithin(`${first.url}/users`, { method: "POST", headers: JSON_BODY, body: userBody("survivor@example.com") });
      assert.equal(made.status, 201, made.body);
      id = (JSON.parse(made.body) as { id: number }).id;
      assert.equal(id, 13);
    } finally {
      assert.equal(await first.stop(), 0, first.output());
    }
    const second = await startSample({ KEEL_DATA_DIR: dataDir });
    try {
      const got = await sendWithin(`${second.url}/users/${id}`);
      assert.equal(got.status, 200, got.body);
      assert.deepEqual(JSON.parse(got.body), { id, email: "survivor@example.com" });
      const again = await sendWithin(`${second.url}/users`, { method: "POST", headers: JSON_BODY, body: userBody("survivor@example.com") });
      assert.equal(again.status, 409, again.body);
      const list = JSON.parse((await sendWithin(`${second.url}/api/v1/users`)).body) as Page;
      assert.equal(list.total, 13, "the seed migration ran once: twelve seed users and the survivor");
    } finally {
      assert.equal(await second.stop(), 0, second.output());
    }
  });

  it("on Node 20 keeps users in memory and says so in one log line", { skip: hasSqlite && "this Node has node:sqlite" }, async () => {
    const sample = await startSample({});
    try {
      assert.equal((await sendWithin(`${sample.url}/users/12`)).status, 200);
      const lines = sample.output().split("\n").filter((line) => line.includes("node:sqlite"));
      assert.equal(lines.length, 1, sample.output());
      assert.match(lines[0]!, /"msg":"users are kept in memory and lost on restart: node:sqlite needs Node 22\.13\.0 or later"/);
    } finally {
      assert.equal(await sample.stop(), 0, sample.output());
    }
  });

  it("`migrate` applies the migrations and exits 0; run again it applies none", needsSqlite, async () => {
    const dataDir = join(root, "migrate");
    const run = () => promisify(execFile)(process.execPath, ["--no-warnings", "--import", "tsx", MAIN, "migrate", "--data-dir", dataDir], { env: { ...process.env, KEEL_ENV: "development" } });
    const firstRun = await run();
    assert.match(firstRun.stdout, /applying migration \{"id":1,"name":"create_users","dialect":"sqlite"\}\napplying migration \{"id":2,"name":"seed_users","dialect":"sqlite"\}\n/);
    assert.match((await run()).stdout, /"migrations_applied":0/);
    const db = await openSqlite(join(dataDir, "keel-sample.db"));
    try {
      assert.deepEqual((await db.sql<{ id: number }>`select id from keel_migrations order by id`).map((r) => r.id), [1, 2]);
    } finally {
      await db.close();
    }
  });
});
