// Database driver errors thrown from handlers map to the uniform body on their own (SPEC Errors
// rule 5). Drivers are recognised by their error shapes, not by importing them:
//   PostgreSQL (pg, postgres.js): `code` is a 5-character SQLSTATE
//   MySQL/MariaDB (mysql2):       `code` "ER_*" and numeric `errno`
//   SQLite (node:sqlite, better-sqlite3, sqlite3): `code` "SQLITE_*" or numeric `errcode`
// The driver's own text goes to the log as the private detail, never to the client.
import { ApiError } from "../index.js";

type Kind = "unique" | "foreign_key" | "check" | "not_null" | "not_found" | "unavailable";

const PG_STATES: Record<string, Kind> = {
  "23505": "unique",
  "23503": "foreign_key",
  "23514": "check",
  "23502": "not_null",
  "57P01": "unavailable", // admin shutdown
  "57P03": "unavailable", // cannot connect now
  "53300": "unavailable", // too many connections
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
  ER_CON_COUNT_ERROR: "unavailable",
  PROTOCOL_CONNECTION_LOST: "unavailable",
};

const MYSQL_ERRNOS: Record<number, Kind> = {
  1062: "unique",
  1451: "foreign_key",
  1452: "foreign_key",
  3819: "check",
  1048: "not_null",
  1040: "unavailable",
};

const SQLITE_CODES: Record<string, Kind> = {
  SQLITE_CONSTRAINT_UNIQUE: "unique",
  SQLITE_CONSTRAINT_PRIMARYKEY: "unique",
  SQLITE_CONSTRAINT_FOREIGNKEY: "foreign_key",
  SQLITE_CONSTRAINT_CHECK: "check",
  SQLITE_CONSTRAINT_NOTNULL: "not_null",
  SQLITE_BUSY: "unavailable",
  SQLITE_CANTOPEN: "unavailable",
};

const SQLITE_ERRCODES: Record<number, Kind> = {
  2067: "unique", // SQLITE_CONSTRAINT_UNIQUE
  1555: "unique", // SQLITE_CONSTRAINT_PRIMARYKEY
  787: "foreign_key",
  275: "check",
  1299: "not_null",
  5: "unavailable", // SQLITE_BUSY
};

/** Error names used for "no such row" by common data layers. */
const NOT_FOUND_NAMES = new Set(["NotFoundError", "EntityNotFoundError", "EmptyResultError", "RowNotFound", "NoResultError"]);
/** Socket-level failures reaching a database or pool. */
const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH"]);

function classify(err: Record<string, unknown>): Kind | undefined {
  const code = err["code"];
  if (typeof code === "string") {
    if (/^[0-9A-Z]{5}$/.test(code) && ("severity" in err || "routine" in err || "schema" in err || "table" in err || "constraint" in err)) {
      return PG_STATES[code] ?? (code.startsWith("08") ? "unavailable" : undefined);
    }
    if (code in MYSQL_CODES) return MYSQL_CODES[code];
    if (code.startsWith("SQLITE_")) return SQLITE_CODES[code] ?? (code === "SQLITE_CONSTRAINT" ? "check" : undefined);
    if (code === "P2025") return "not_found"; // Prisma: record to update/delete not found
    if (code === "P2002") return "unique"; // Prisma: unique constraint failed
    if (code === "P2003") return "foreign_key";
    if (CONNECTION_CODES.has(code) && "syscall" in err && ("address" in err || "port" in err)) return "unavailable";
  }
  const errno = err["errno"];
  if (typeof errno === "number" && typeof err["sqlState"] === "string") return MYSQL_ERRNOS[errno];
  const errcode = err["errcode"];
  if (typeof errcode === "number") return SQLITE_ERRCODES[errcode];
  const name = err["name"];
  if (typeof name === "string" && NOT_FOUND_NAMES.has(name)) return "not_found";
  return undefined;
}

/**
 * The ApiError a database driver error means (409 unique, 400 foreign key/check/not null, 404
 * ORM not-found, 503 unreachable), or undefined when it is not one we know.
 *
 * @example
 * const app = new App().mapErrors(mapDatabaseError);
 *
 * @see docs/features/db-errors.md
 */
export function mapDatabaseError(thrown: unknown): ApiError | undefined {
  if (thrown === null || typeof thrown !== "object") return undefined;
  const kind = classify(thrown as Record<string, unknown>);
  if (kind === undefined) return undefined;
  const options = { detail: thrown instanceof Error ? thrown.message : String(thrown), cause: thrown };
  switch (kind) {
    case "unique":
      return ApiError.conflict("A resource with the same unique value already exists", options);
    case "foreign_key":
      return ApiError.badRequest("A referenced resource does not exist or is still referenced", options);
    case "check":
      return ApiError.badRequest("A value violates a constraint", options);
    case "not_null":
      return ApiError.badRequest("A required value is missing", options);
    case "not_found":
      return ApiError.notFound("Resource not found", options);
    case "unavailable":
      return ApiError.serviceUnavailable("The database is unavailable", options);
  }
}
