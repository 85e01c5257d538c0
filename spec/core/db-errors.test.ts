import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, App, route, silentLogger } from "../../lib/index.js";
import { isRetryableDatabaseError, mapDatabaseError } from "../../lib/db-errors/index.js";
import { captureLogger } from "../support/capture-logger.js";

function driverError(message: string, fields: Record<string, unknown>, name = "Error"): Error {
  const e = new Error(message);
  e.name = name;
  Object.assign(e, fields);
  return e;
}

const cases: Array<[string, Error, number, string]> = [
  ["pg unique", driverError('duplicate key value violates unique constraint "users_email_key"', { code: "23505", severity: "ERROR", constraint: "users_email_key" }), 409, "conflict"],
  ["pg foreign key", driverError("insert violates foreign key", { code: "23503", severity: "ERROR" }), 409, "conflict"],
  ["pg check", driverError("violates check constraint", { code: "23514", severity: "ERROR" }), 422, "validation_error"],
  ["pg not null", driverError("null value in column", { code: "23502", severity: "ERROR", column: "email" }), 422, "validation_error"],
  ["pg serialization", driverError("could not serialize access", { code: "40001", severity: "ERROR" }), 503, "service_unavailable"],
  ["pg deadlock", driverError("deadlock detected", { code: "40P01", severity: "ERROR" }), 503, "service_unavailable"],
  ["pg statement timeout", driverError("canceling statement due to statement timeout", { code: "57014", severity: "ERROR" }), 503, "service_unavailable"],
  ["pg lost connection", driverError("Connection terminated unexpectedly", {}), 503, "service_unavailable"],
  ["postgres.js closed", driverError("write CONNECTION_CLOSED 127.0.0.1:5432", { code: "CONNECTION_CLOSED", errno: "CONNECTION_CLOSED", address: "127.0.0.1", port: 5432 }), 503, "service_unavailable"],
  ["mysql not null", driverError("Column 'email' cannot be null", { code: "ER_BAD_NULL_ERROR", errno: 1048, sqlState: "23000" }), 422, "validation_error"],
  ["keel pool timeout", driverError("no connection within 5000 ms", { code: "KEEL_POOL_TIMEOUT" }), 503, "service_unavailable"],
  ["mysql deadlock", driverError("Deadlock found", { code: "ER_LOCK_DEADLOCK", errno: 1213, sqlState: "40001" }), 503, "service_unavailable"],
  ["sqlite busy", driverError("database is locked", { code: "ERR_SQLITE_ERROR", errcode: 5 }), 503, "service_unavailable"],
  ["sqlite not null", driverError("NOT NULL constraint failed: users.email", { code: "ERR_SQLITE_ERROR", errcode: 1299 }), 422, "validation_error"],
  ["pg connection", driverError("the database system is shutting down", { code: "57P01", severity: "FATAL" }), 503, "service_unavailable"],
  ["pg class 08", driverError("connection failure", { code: "08006", severity: "FATAL" }), 503, "service_unavailable"],
  ["mysql dup code", driverError("Duplicate entry 'a@b' for key 'email'", { code: "ER_DUP_ENTRY", errno: 1062, sqlState: "23000" }), 409, "conflict"],
  ["mysql dup errno", driverError("Duplicate entry", { errno: 1062, sqlState: "23000" }), 409, "conflict"],
  ["mysql fk", driverError("Cannot add or update a child row", { code: "ER_NO_REFERENCED_ROW_2", errno: 1452, sqlState: "23000" }), 409, "conflict"],
  ["mysql too many", driverError("Too many connections", { code: "ER_CON_COUNT_ERROR", errno: 1040, sqlState: "08004" }), 503, "service_unavailable"],
  ["sqlite unique code", driverError("UNIQUE constraint failed: users.email", { code: "SQLITE_CONSTRAINT_UNIQUE" }), 409, "conflict"],
  ["sqlite unique errcode", driverError("UNIQUE constraint failed: users.email", { code: "ERR_SQLITE_ERROR", errcode: 2067 }), 409, "conflict"],
  ["sqlite fk", driverError("FOREIGN KEY constraint failed", { code: "SQLITE_CONSTRAINT_FOREIGNKEY" }), 409, "conflict"],
  ["not found by name", driverError("No row", {}, "EntityNotFoundError"), 404, "not_found"],
  ["prisma not found", driverError("Record to update not found.", { code: "P2025" }), 404, "not_found"],
  ["pool refused", driverError("connect ECONNREFUSED 127.0.0.1:5432", { code: "ECONNREFUSED", syscall: "connect", address: "127.0.0.1", port: 5432 }), 503, "service_unavailable"],
  ["unknown sqlstate", driverError("syntax error at or near", { code: "42601", severity: "ERROR" }), 500, "internal_error"],
];

describe("database errors map to the uniform body", () => {
  for (const [name, err, status, type] of cases) {
    it(name, async () => {
      const logger = captureLogger(0);
      const app = new App({ logger }).mapErrors(mapDatabaseError).route(route.get("/x", [], () => Promise.reject(err)));
      const r = await app.inject({ url: "/x" });
      assert.equal(r.status, status);
      const body = r.json<{ error: { type: string; message: string }; error_id: string }>();
      assert.equal(body.error.type, type);
      // The driver's text (constraint and table names, values) never reaches the client...
      assert.ok(!r.body.includes(err.message), "driver text leaked: " + r.body);
      // ...but is in the log with the same error_id.
      const rec = logger.records.find((x) => x.fields["error_id"] === body.error_id);
      assert.ok(rec);
      assert.equal(rec.fields["detail"], err.message);
    });
  }

  it("a not-null violation names the column as the field; a check names none", async () => {
    const fieldsOf = (err: Error) => mapDatabaseError(err)?.fields?.map((f) => [f.field, f.code]);
    assert.deepEqual(fieldsOf(driverError("null value", { code: "23502", severity: "ERROR", column: "email" })), [["email", "required"]]);
    assert.deepEqual(fieldsOf(driverError("null value", { code: "23502", severity: "ERROR", column_name: "email" })), [["email", "required"]]);
    assert.deepEqual(fieldsOf(driverError("Column 'email' cannot be null", { code: "ER_BAD_NULL_ERROR", errno: 1048, sqlState: "23000" })), [["email", "required"]]);
    assert.deepEqual(fieldsOf(driverError("NOT NULL constraint failed: users.email", { code: "SQLITE_CONSTRAINT_NOTNULL" })), [["email", "required"]]);
    assert.deepEqual(fieldsOf(driverError("violates check constraint", { code: "23514", severity: "ERROR", constraint: "qty_positive" })), []);
  });

  it("Retry-After and retryable: yes where nothing was applied, Retry-After only for a lost connection, neither for a timeout", () => {
    const deadlock = driverError("deadlock detected", { code: "40P01", severity: "ERROR" });
    const lost = driverError("Connection terminated unexpectedly", {});
    const timeout = driverError("canceling statement due to statement timeout", { code: "57014", severity: "ERROR" });
    assert.equal(mapDatabaseError(deadlock)?.headers?.["retry-after"], "1");
    assert.equal(isRetryableDatabaseError(deadlock), true);
    assert.equal(mapDatabaseError(lost)?.headers?.["retry-after"], "1");
    assert.equal(isRetryableDatabaseError(lost), false);
    assert.equal(mapDatabaseError(timeout)?.headers, undefined);
    assert.equal(isRetryableDatabaseError(timeout), false);
    assert.equal(isRetryableDatabaseError(new Error("x")), false);
  });

  it("plain errors with unrelated codes are not mistaken for database errors", async () => {
    const e = driverError("file missing", { code: "ENOENT", syscall: "open", path: "/x" });
    const app = new App({ logger: silentLogger }).mapErrors(mapDatabaseError).route(route.get("/x", [], () => Promise.reject(e)));
    assert.equal((await app.inject({ url: "/x" })).status, 500);
  });

  it("mappers belong to an app: another app in the same process does not map", async () => {
    const unique = driverError("duplicate key", { code: "23505", severity: "ERROR" });
    const handler = route.get("/x", [], () => Promise.reject(unique));
    const mapping = new App({ logger: silentLogger }).mapErrors(mapDatabaseError).mapErrors(mapDatabaseError).route(handler);
    const plain = new App({ logger: silentLogger }).route(handler);
    assert.equal((await mapping.inject({ url: "/x" })).status, 409);
    assert.equal((await plain.inject({ url: "/x" })).status, 500);
    assert.equal(mapping.runtime.errorMappers.length, 1, "adding the same mapper again is a no-op");
  });

  it("mappers are tried in order; the first answer wins", async () => {
    const first = (err: unknown) => (err instanceof RangeError ? ApiError.badRequest("first") : undefined);
    const second = () => ApiError.conflict("second");
    const app = new App({ logger: silentLogger }).mapErrors(first).mapErrors(second).routes(
      route.get("/range", [], () => Promise.reject(new RangeError("x"))),
      route.get("/other", [], () => Promise.reject(new Error("y"))),
    );
    assert.equal((await app.inject({ url: "/range" })).json<{ error: { message: string } }>().error.message, "first");
    assert.equal((await app.inject({ url: "/other" })).status, 409);
  });
});
