// keel/db-errors against errors node:sqlite really throws (Node 22.13+; on older Node the test
// skips with the reason): unique, foreign key, check, not null, and SQLITE_BUSY from a second
// connection to a file another holds an exclusive transaction on.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { App, route, silentLogger } from "../../lib/index.js";
import { isRetryableDatabaseError, mapDatabaseError } from "../../lib/db-errors/index.js";

interface Statement {
  run(...params: unknown[]): unknown;
}
interface DatabaseSync {
  exec(sql: string): void;
  prepare(sql: string): Statement;
  close(): void;
}
type DatabaseSyncClass = new (path: string, options?: { timeout?: number }) => DatabaseSync;

/** node:sqlite when this Node has it (process.getBuiltinModule is 20.16+/22.3+; require works on all). */
function loadSqlite(): DatabaseSyncClass | string {
  try {
    // Silence the ExperimentalWarning node:sqlite prints once on Node 22/23.
    const emit = process.emitWarning;
    process.emitWarning = () => {};
    try {
      return (createRequire(import.meta.url)("node:sqlite") as { DatabaseSync: DatabaseSyncClass }).DatabaseSync;
    } finally {
      process.emitWarning = emit;
    }
  } catch {
    return `node:sqlite is not available on Node ${process.versions.node} (it needs 22.13 or later)`;
  }
}

const loaded = loadSqlite();
const skip = typeof loaded === "string" ? loaded : false;
const dir = mkdtempSync(join(tmpdir(), "keel-sqlite-errors-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function answer(err: unknown): Promise<{ status: number; type: string; fields: unknown; retryAfter: unknown }> {
  const app = new App({ logger: silentLogger }).mapErrors(mapDatabaseError).route(route.get("/x", [], () => Promise.reject(err)));
  const r = await app.inject({ url: "/x" });
  const body = r.json<{ error: { type: string; fields?: unknown } }>();
  return { status: r.status, type: body.error.type, fields: body.error.fields, retryAfter: r.headers["retry-after"] };
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  assert.fail("expected the statement to fail");
}

describe("keel/db-errors against node:sqlite", { skip }, () => {
  const Database = loaded as DatabaseSyncClass;
  const file = join(dir, "errors.db");
  const open = (): DatabaseSync => {
    const db = new Database(file, { timeout: 0 });
    db.exec("pragma foreign_keys = on");
    return db;
  };

  it("unique 409, foreign key 409, check 422 without a field, not null 422 naming the column", async () => {
    const db = open();
    try {
      db.exec(`create table parents (id integer primary key);
        create table items (id integer primary key, parent int references parents (id), qty int check (qty >= 0), name text not null);
        insert into parents values (1); insert into items values (1, 1, 1, 'a');`);
      const insert = db.prepare("insert into items values (?, ?, ?, ?)");
      assert.deepEqual(await answer(thrown(() => insert.run(1, 1, 1, "again"))), { status: 409, type: "conflict", fields: undefined, retryAfter: undefined });
      assert.deepEqual(await answer(thrown(() => insert.run(2, 999, 1, "b"))), { status: 409, type: "conflict", fields: undefined, retryAfter: undefined });
      assert.deepEqual(await answer(thrown(() => db.exec("delete from parents where id = 1"))), { status: 409, type: "conflict", fields: undefined, retryAfter: undefined });
      assert.deepEqual(await answer(thrown(() => insert.run(3, 1, -1, "c"))), { status: 422, type: "validation_error", fields: [], retryAfter: undefined });
      const notNull = await answer(thrown(() => insert.run(4, 1, 1, null)));
      assert.equal(notNull.status, 422);
      assert.deepEqual((notNull.fields as Array<{ field: string; code: string }>).map((f) => [f.field, f.code]), [["name", "required"]]);
    } finally {
      db.close();
    }
  });

  it("SQLITE_BUSY (another connection holds the write lock): 503 with Retry-After, retryable", async () => {
    const holder = open();
    const other = open();
    try {
      holder.exec("begin exclusive");
      const err = thrown(() => other.exec("insert into parents values (2)"));
      holder.exec("rollback");
      assert.equal((err as { errcode?: number }).errcode! & 0xff, 5, String(err));
      assert.deepEqual(await answer(err), { status: 503, type: "service_unavailable", fields: undefined, retryAfter: "1" });
      assert.equal(isRetryableDatabaseError(err), true);
    } finally {
      holder.close();
      other.close();
    }
  });
});
