// Database driver errors thrown from handlers map to the uniform body on their own (SPEC Errors
// rule 5). Drivers are recognised by their error shapes, not by importing them:
//   PostgreSQL (keel/postgres, pg, postgres.js): `code` is a 5-character SQLSTATE
//   MySQL/MariaDB (mysql2):       `code` "ER_*" and numeric `errno`
//   SQLite (node:sqlite, better-sqlite3, sqlite3): `code` "SQLITE_*" or numeric `errcode`
// The driver's own text goes to the log as the private detail, never to the client.
//
// What each kind answers, and why:
//   unique                  409: the row exists already (a conflict with the current state)
//   foreign_key             409: the referenced row is missing, or the row is still referenced:
//                           also a conflict with the current state, not a malformed request
//   check, not_null         422: a value the client sent breaks a rule; a `fields` item names the
//                           column when the error names one
//   retry                   503 + Retry-After: the server refused or undid the work and said so
//                           (serialization failure, deadlock, too many connections, starting up,
//                           shut down, no pool connection in time, SQLITE_BUSY): nothing was
//                           applied, so repeating the request is safe (isRetryableDatabaseError)
//   unavailable             503 + Retry-After: the connection broke under the statement (class
//                           08, a reset socket): the database is away, but whether the statement
//                           ran is unknown, so it is not "retryable"
//   timeout                 503 without Retry-After: a statement ran past statement_timeout or
//                           was cancelled (57014); repeating an expensive query at once helps
//                           no one
//   not_found               404: an ORM's "no such row"
import { ApiError, type ValidationField } from "../index.js";

type Kind = "unique" | "foreign_key" | "check" | "not_null" | "not_found" | "retry" | "unavailable" | "timeout";

/** Seconds a client is asked to wait before repeating a request the database refused for now. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

const PG_STATES: Record<string, Kind> = {
  "23505": "unique",
  "23503": "foreign_key",
  "23514": "check",
  "23502": "not_null",
  "40001": "retry", // serialization_failure
  "40P01": "retry", // deadlock_detected
  "57014": "timeout", // query_canceled (statement_timeout, a cancel request)
  "57P01": "retry", // admin_shutdown: the backend ended the statement and the session
  "57P02": "unavailable", // crash_shutdown
  "57P03": "retry", // cannot_connect_now (starting up, shutting down)
  "53300": "retry", // too_many_connections
  "08001": "retry", // sqlclient_unable_to_establish_sqlconnection: never connected
  "08004": "retry", // sqlserver_rejected_establishment_of_sqlconnection
};

const MYSQL_CODES: Record<string, Kind> = {
  ER_DUP_ENTRY: "unique",
  ER_DUP_KEY: "unique",
  ER_NO_REFERENCED_ROW: "foreign_key",
  ER_NO_REFERENCED_ROW_2: "foreign_key",
  ER_ROW_IS_REFERENCED: "foreign_key",
  ER_ROW_IS_REFERENCED_2: "foreign_key",
  ER_CHECK_CONSTRAINT_VIOLATED: "check",
  ER_BAD_NULL_ERROR: "not_null",
  ER_LOCK_DEADLOCK: "retry",
  ER_LOCK_WAIT_TIMEOUT: "retry",
  ER_QUERY_TIMEOUT: "timeout",
  ER_CON_COUNT_ERROR: "retry",
  PROTOCOL_CONNECTION_LOST: "unavailable",
};

const MYSQL_ERRNOS: Record<number, Kind> = {
  1062: "unique",
  1451: "foreign_key",
  1452: "foreign_key",
  3819: "check",
  1048: "not_null",
  1213: "retry", // ER_LOCK_DEADLOCK
  1205: "retry", // ER_LOCK_WAIT_TIMEOUT
  3024: "timeout", // ER_QUERY_TIMEOUT (max_execution_time)
  1040: "retry",
};

const SQLITE_CODES: Record<string, Kind> = {
  SQLITE_CONSTRAINT_UNIQUE: "unique",
  SQLITE_CONSTRAINT_PRIMARYKEY: "unique",
  SQLITE_CONSTRAINT_FOREIGNKEY: "foreign_key",
  SQLITE_CONSTRAINT_CHECK: "check",
  SQLITE_CONSTRAINT_NOTNULL: "not_null",
  SQLITE_BUSY: "retry",
  SQLITE_BUSY_SNAPSHOT: "retry",
  SQLITE_BUSY_RECOVERY: "retry",
  SQLITE_BUSY_TIMEOUT: "retry",
  SQLITE_LOCKED: "retry",
  SQLITE_CANTOPEN: "unavailable",
};

/** Extended result codes (node:sqlite's `errcode`); the primary code is the low byte. */
const SQLITE_ERRCODES: Record<number, Kind> = {
  2067: "unique", // SQLITE_CONSTRAINT_UNIQUE
  1555: "unique", // SQLITE_CONSTRAINT_PRIMARYKEY
  787: "foreign_key",
  275: "check",
  1299: "not_null",
  14: "unavailable", // SQLITE_CANTOPEN
};

/** Error names used for "no such row" by common data layers. */
const NOT_FOUND_NAMES = new Set(["NotFoundError", "EntityNotFoundError", "EmptyResultError", "RowNotFound", "NoResultError"]);
/** Socket-level failures reaching a database or pool; a refused connect never reached it. */
const CONNECTION_CODES: Record<string, Kind> = {
  ECONNREFUSED: "retry",
  ENOTFOUND: "unavailable",
  EHOSTUNREACH: "unavailable",
  ETIMEDOUT: "unavailable",
  ECONNRESET: "unavailable",
  EPIPE: "unavailable",
};
/** postgres.js's connection errors: `code` and `errno` both these strings, with `address`. */
const POSTGRES_JS_CODES: Record<string, Kind> = {
  CONNECTION_CLOSED: "unavailable",
  CONNECTION_DESTROYED: "unavailable",
  CONNECTION_ENDED: "retry", // the pool was ended (shutting down) before the query was sent
  CONNECT_TIMEOUT: "retry",
};
/** pg (node-postgres) reports a lost connection as a plain Error with one of these messages. */
const PG_LOST_MESSAGES = new Set(["Connection terminated unexpectedly", "Connection terminated"]);

function sqliteKind(errcode: number): Kind | undefined {
  const kind = SQLITE_ERRCODES[errcode];
  if (kind !== undefined) return kind;
  const primary = errcode & 0xff;
  if (primary === 5 || primary === 6) return "retry"; // SQLITE_BUSY*, SQLITE_LOCKED*
  return undefined;
}

function classify(err: Record<string, unknown>): Kind | undefined {
  const code = err["code"];
  if (typeof code === "string") {
    if (/^[0-9A-Z]{5}$/.test(code) && ("severity" in err || "routine" in err || "schema" in err || "table" in err || "constraint" in err)) {
      return PG_STATES[code] ?? (code.startsWith("08") ? "unavailable" : undefined);
    }
    // keel/postgres: no pool connection within the acquire timeout (nothing was sent).
    if (code === "KEEL_POOL_TIMEOUT") return "retry";
    if (code in MYSQL_CODES) return MYSQL_CODES[code];
    if (code.startsWith("SQLITE_")) return SQLITE_CODES[code] ?? (code.startsWith("SQLITE_CONSTRAINT") ? "check" : undefined);
    if (code === "P2025") return "not_found"; // Prisma: record to update/delete not found
    if (code === "P2002") return "unique"; // Prisma: unique constraint failed
    if (code === "P2003") return "foreign_key";
    if (code in CONNECTION_CODES && "syscall" in err && ("address" in err || "port" in err)) return CONNECTION_CODES[code];
    if (code in POSTGRES_JS_CODES && err["errno"] === code && "address" in err) return POSTGRES_JS_CODES[code];
  }
  const errno = err["errno"];
  if (typeof errno === "number" && typeof err["sqlState"] === "string") return MYSQL_ERRNOS[errno];
  const errcode = err["errcode"];
  if (typeof errcode === "number") return sqliteKind(errcode);
  const name = err["name"];
  if (typeof name === "string" && NOT_FOUND_NAMES.has(name)) return "not_found";
  // AggregateError (Node's connect to several addresses): refused everywhere.
  if (code === "ECONNREFUSED" && name === "AggregateError") return "retry";
  if (code === undefined && name === "Error" && PG_LOST_MESSAGES.has(err["message"] as string)) return "unavailable";
  return undefined;
}

/** The column a not-null or check error names: pg `column`, postgres.js `column_name`, or the SQLite/MySQL text. */
function columnOf(err: Record<string, unknown>): string | undefined {
  const column = err["column"] ?? err["column_name"];
  if (typeof column === "string" && column !== "") return column;
  const message = err["message"];
  if (typeof message !== "string") return undefined;
  // SQLite: "NOT NULL constraint failed: users.email"; MySQL: "Column 'email' cannot be null".
  const sqlite = /^NOT NULL constraint failed: (?:[^.\s]+\.)?([^.\s]+)$/.exec(message);
  if (sqlite !== null) return sqlite[1];
  const mysql = /^Column '([^']+)' cannot be null$/.exec(message);
  return mysql === null ? undefined : mysql[1];
}

const RETRY_HEADERS: Readonly<Record<string, string>> = { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) };

function invalid(err: Record<string, unknown>, code: string, message: string, detail: string, cause: unknown): ApiError {
  const column = columnOf(err);
  // The uniform 422 (SPEC: `fields` on every validation_error): one item naming the column when
  // the error names one, none otherwise (a check constraint names itself, not a column).
  const fields: ValidationField[] = column === undefined ? [] : [{ field: column, code, message }];
  return new ApiError(422, "validation_error", message, { fields, detail, cause });
}

/**
 * The ApiError a database driver error means (409 unique or foreign key, 422 check or not null,
 * 503 with Retry-After when the database refused for now or is unreachable, 503 for a statement
 * timeout, 404 ORM not-found), or undefined when it is not one we know.
 *
 * @example
 * const app = new App().mapErrors(mapDatabaseError);
 *
 * @see docs/features/db-errors.md
 */
export function mapDatabaseError(thrown: unknown): ApiError | undefined {
  if (thrown === null || typeof thrown !== "object") return undefined;
  const err = thrown as Record<string, unknown>;
  const kind = classify(err);
  if (kind === undefined) return undefined;
  const detail = thrown instanceof Error ? thrown.message : String(thrown);
  const options = { detail, cause: thrown };
  switch (kind) {
    case "unique":
      return ApiError.conflict("A resource with the same unique value already exists", options);
    case "foreign_key":
      return ApiError.conflict("A referenced resource does not exist or is still referenced", options);
    case "check":
      return invalid(err, "check", "A value violates a constraint", detail, thrown);
    case "not_null":
      return invalid(err, "required", "A required value is missing", detail, thrown);
    case "not_found":
      return ApiError.notFound("Resource not found", options);
    case "retry":
      return ApiError.serviceUnavailable("The database cannot take this request now", { ...options, headers: { ...RETRY_HEADERS } });
    case "unavailable":
      return ApiError.serviceUnavailable("The database is unavailable", { ...options, headers: { ...RETRY_HEADERS } });
    case "timeout":
      return ApiError.serviceUnavailable("The database did not answer in time", options);
  }
}

/**
 * True when the database refused or undid the work and said so (serialization failure, deadlock,
 * too many connections, shutting down, no pool connection in time, SQLITE_BUSY): nothing was
 * applied, so running the whole transaction again is safe. False for a connection lost under a
 * statement (it may have run) and for everything else.
 */
export function isRetryableDatabaseError(thrown: unknown): boolean {
  return thrown !== null && typeof thrown === "object" && classify(thrown as Record<string, unknown>) === "retry";
}
