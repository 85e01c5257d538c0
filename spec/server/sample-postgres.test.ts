// The sample on a real PostgreSQL (issue 35): DATABASE_URL makes the sample keep its users in
// Postgres through keel/postgres, so instances share them. One throwaway cluster for the file
// (spec/support/postgres-server.ts) and real sample processes: instance A migrates on start
// (KEEL_MIGRATE=1), B only connects. Cross-instance reads, the 409 from the unique index,
// cursors, and Postgres stopped mid-load (every request answered: 2xx or 503 with Retry-After,
// /ready 503) then started again (the same processes serve again). Skips visibly without Postgres.
//
// The list (GET /api/v1/users) is cached 30 s per process: a user made on A shows in B's list
// only once B's cached list expired (or was never cached). So users are compared across
// instances by GET /users/{id}, which is not cached, and the list is read on B before B ever
// served it.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createSampleApp, openSamplePostgres, SAMPLE_SETTINGS } from "../../lib/sample/index.js";
import { ConfigurationError, parseServiceConfig } from "../../lib/service/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { postgresUnavailable, startPostgres, type PostgresServerHandle } from "../support/postgres-server.js";
import { sendWithin, startSample, type SampleProcess, type TimedResponse } from "../support/sample-process.js";

const MAIN = fileURLToPath(new URL("../../lib/sample/main.ts", import.meta.url));
const unavailable = postgresUnavailable();
const skip = unavailable === null ? false : unavailable;
const JSON_BODY = { "content-type": "application/json" };
const userBody = (email: string) => JSON.stringify({ email, password: "correct horse" });
/** Far above the pool's acquire and connect timeouts (5 s each): a request past it hung. */
const CLIENT_TIMEOUT_MS = 20_000;

interface Page {
  users: Array<{ id: number; email: string }>;
  total: number;
  next_cursor: string | null;
}

let server: PostgresServerHandle | null = null;
let a: SampleProcess;
let b: SampleProcess;

before(async () => {
  if (skip !== false) return;
  server = await startPostgres();
  assert.ok(server, "postgres started");
  a = await startSample({ DATABASE_URL: server.url, KEEL_MIGRATE: "1" });
  b = await startSample({ DATABASE_URL: server.url });
});

after(async () => {
  const codes = await Promise.all([a?.stop(), b?.stop()]);
  await server?.stop();
  if (a !== undefined) assert.equal(codes[0], 0, a.output());
  if (b !== undefined) assert.equal(codes[1], 0, b.output());
});

describe("the sample's DATABASE_URL setting", () => {
  it("is read from DATABASE_URL (or --database-url); a malformed one is a configuration error naming it without its password", async () => {
    const config = parseServiceConfig([], { DATABASE_URL: "postgres://app:hunter2@db.internal:5432/app" }, SAMPLE_SETTINGS);
    assert.notEqual(config, "help");
    assert.notEqual(config, "version");
    assert.equal((config as { settings: { databaseUrl?: string } }).settings.databaseUrl, "postgres://app:hunter2@db.internal:5432/app");
    await assert.rejects(openSamplePostgres("mysql://app:hunter2@db.internal/app", false, captureLogger()), (err: unknown) => {
      assert.ok(err instanceof ConfigurationError);
      assert.match(err.message, /^DATABASE_URL: Invalid Postgres URL mysql:\/\/\*\*\*@db\.internal\/app/);
      assert.doesNotMatch(err.message, /hunter2/);
      return true;
    });
  });
});

describe("the sample on Postgres (DATABASE_URL)", { skip, timeout: 60_000 }, () => {
  it("A migrated on start and says where the users are, never with the password; B did not migrate", async () => {
    assert.match(a.output(), /"msg":"applying migration"[^\n]*"dialect":"postgres"/);
    assert.match(a.output(), /"msg":"users are kept in Postgres"[^\n]*"url":"postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/keel"[^\n]*"migrations_applied":2/);
    assert.match(b.output(), /"msg":"users are kept in Postgres"/);
    assert.doesNotMatch(b.output(), /applying migration/);
    for (const p of [a, b]) assert.doesNotMatch(p.output(), /keel-secret/);
    for (const p of [a, b]) {
      const health = await sendWithin(`${p.url}/health`);
      assert.equal(health.status, 200, health.body);
      assert.equal((JSON.parse(health.body) as { checks: Record<string, { status: string }> }).checks["database"]?.status, "ok", health.body);
    }
  });

  it("a user made on one instance is read on the other; the same email again is a 409 from the unique index", async () => {
    const made = await sendWithin(`${a.url}/users`, { method: "POST", headers: JSON_BODY, body: userBody("shared@example.com") });
    assert.equal(made.status, 201, made.body);
    const { id } = JSON.parse(made.body) as { id: number };
    assert.equal(id, 13);
    const got = await sendWithin(`${b.url}/users/${id}`);
    assert.equal(got.status, 200, got.body);
    assert.deepEqual(JSON.parse(got.body), { id, email: "shared@example.com" });
    const again = await sendWithin(`${b.url}/users`, { method: "POST", headers: JSON_BODY, body: userBody("shared@example.com") });
    assert.equal(again.status, 409, again.body);
    assert.equal((JSON.parse(again.body) as { error: { type: string } }).error.type, "conflict");
    assert.equal((await server!.psql("select count(*) from users where email = 'shared@example.com'")).trim(), "1");
  });

  it("the list walks every user by cursor on the other instance, each once, in id order", async () => {
    await server!.psql("insert into users (email) select 'bulk' || g || '@example.com' from generate_series(1, 187) g");
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await sendWithin(`${b.url}/api/v1/users?limit=40` + (cursor === null ? "" : `&cursor=${cursor}`));
      assert.equal(r.status, 200, r.body);
      const page = JSON.parse(r.body) as Page;
      assert.equal(page.total, 200, "12 seeded, 1 made on A, 187 inserted");
      seen.push(...page.users.map((u) => u.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor !== null && pages < 20);
    assert.equal(pages, 5);
    const ids = (await server!.psql("select id from users order by id")).trim().split("\n").map(Number);
    assert.deepEqual(seen, ids);
  });

  it("Postgres stopped mid-load: every request answers (2xx or 503 with Retry-After), /ready is 503; after a restart the same processes serve again", async (t) => {
    const answers: TimedResponse[] = [];
    let running = true;
    let posts = 0;
    const worker = async (p: SampleProcess, w: number): Promise<void> => {
      for (let i = 0; running; i++) {
        // Mostly reads; a few writes (the write budget is 20 per client).
        const write = w === 0 && i % 5 === 0 && posts < 8;
        if (write) posts++;
        const r = write
          ? await sendWithin(`${p.url}/users`, { method: "POST", headers: JSON_BODY, body: userBody(`load${posts}@example.com`), timeoutMs: CLIENT_TIMEOUT_MS })
          : await sendWithin(`${p.url}/users/${1 + (i % 12)}`, { timeoutMs: CLIENT_TIMEOUT_MS });
        answers.push(r);
      }
    };
    const load = [worker(a, 0), worker(a, 1), worker(b, 2), worker(b, 3)];
    // Some answers with the database up, then the stop under load, then some answers without it.
    while (answers.length < 20) await new Promise((r) => setTimeout(r, 10));
    await server!.stopServer();
    const atStop = answers.length;
    while (answers.length < atStop + 40) await new Promise((r) => setTimeout(r, 10));
    running = false;
    await Promise.all(load);

    for (const r of answers) {
      assert.ok([200, 201, 503].includes(r.status), `${r.status} ${r.body}`);
      if (r.status === 503) assert.match(String(r.headers["retry-after"]), /^\d+$/, r.body);
    }
    assert.ok(answers.slice(atStop).some((r) => r.status === 503), "requests after the stop are refused with 503");
    const count = (status: number): number => answers.filter((r) => r.status === status).length;
    t.diagnostic(`${answers.length} answers: ${count(200)} × 200, ${count(201)} × 201, ${count(503)} × 503 (${answers.length - atStop} after the stop began)`);
    // /ready's checks are cached for a moment (checkCacheMs): ask until the cached "ok" expired.
    for (const p of [a, b]) {
      let ready: TimedResponse | undefined;
      for (let i = 0; i < 100 && ready?.status !== 503; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 50));
        ready = await sendWithin(`${p.url}/ready`, { timeoutMs: CLIENT_TIMEOUT_MS });
      }
      assert.equal(ready!.status, 503, ready!.body);
      assert.match(ready!.body, /"database":\{"status":"(fail|timeout)/);
    }

    await server!.startServer();
    for (const p of [a, b]) {
      let ready = 0;
      for (let i = 0; i < 100 && ready !== 200; i++) {
        ready = (await sendWithin(`${p.url}/ready`, { timeoutMs: CLIENT_TIMEOUT_MS })).status;
        if (ready !== 200) await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(ready, 200, "ready again");
      const got = await sendWithin(`${p.url}/users/13`, { timeoutMs: CLIENT_TIMEOUT_MS });
      assert.equal(got.status, 200, got.body);
    }
    const made = await sendWithin(`${b.url}/users`, { method: "POST", headers: JSON_BODY, body: userBody("after-restart@example.com"), timeoutMs: CLIENT_TIMEOUT_MS });
    assert.equal(made.status, 201, made.body);
    assert.equal((await sendWithin(`${a.url}/users/${(JSON.parse(made.body) as { id: number }).id}`)).status, 200);
  });

  it("the app drains and closes its pool on shutdown: the database refuses work afterwards", async () => {
    const own = openSamplePostgres(server!.url, false, captureLogger());
    const db = await own;
    const app = await createSampleApp({ logger: captureLogger(), env: "development", database: db }).listen({ port: 0 });
    assert.equal((await sendWithin(`${app.url}/users/1`)).status, 200);
    await app.close();
    await assert.rejects(db.ping(), (err: unknown) => (err as { code?: string }).code === "08003");
  });

  it("`migrate` with DATABASE_URL finds the database up to date and exits 0", async () => {
    const run = await promisify(execFile)(process.execPath, ["--no-warnings", "--import", "tsx", MAIN, "migrate"], {
      env: { ...process.env, KEEL_ENV: "development", DATABASE_URL: server!.url },
    });
    assert.match(run.stdout, /users are kept in Postgres \{"url":"postgres:\/\/\*\*\*@[^"]+","migrations_applied":0\}/);
    assert.doesNotMatch(run.stdout + run.stderr, /keel-secret/);
  });
});
