// The errors a caller of keel/postgres can see, shaped so keel/db-errors recognises them by their
// fields (a 5-character SQLSTATE `code` plus `severity`), as it does for pg and postgres.js:
// - PostgresError: the server's ErrorResponse, every field it sent.
// - PostgresConnectionError: no answer came (connect refused or timed out: 08001; the connection
//   lost with the statement in flight, which may or may not have run: 08006; the database
//   closed: 08003). Class 08 maps to 503; it also answers 503 with Retry-After by itself
//   (keel/plugin's asApiError), in an app without the db-errors mapper.
// - PostgresPoolError: no connection within acquireTimeoutMs, or the wait queue was full
//   (`code` KEEL_POOL_TIMEOUT / KEEL_POOL_QUEUE_FULL): 503 with Retry-After as well.
import { ApiError } from "../index.js";
import { asApiError, type FieldError } from "../plugin.js";

/** ErrorResponse field type bytes to property names (protocol "Error and Notice Message Fields"). */
const FIELDS: Record<string, string> = {
  S: "severityLocalized",
  V: "severity",
  C: "code",
  M: "message",
  D: "detail",
  H: "hint",
  P: "position",
  p: "internalPosition",
  q: "internalQuery",
  W: "where",
  s: "schema",
  t: "table",
  c: "column",
  d: "dataType",
  n: "constraint",
  F: "file",
  L: "line",
  R: "routine",
};

/** An error the server reported (ErrorResponse). `code` is the SQLSTATE, e.g. 23505. */
export class PostgresError extends Error {
  code = "";
  severity = "";
  detail?: string;
  hint?: string;
  position?: string;
  where?: string;
  schema?: string;
  table?: string;
  column?: string;
  dataType?: string;
  constraint?: string;
  routine?: string;
  file?: string;
  line?: string;
  internalPosition?: string;
  internalQuery?: string;
  severityLocalized?: string;

  constructor(fields: Readonly<Record<string, string>>) {
    super(fields["M"] ?? "unknown server error");
    this.name = "PostgresError";
    for (const key of Object.keys(fields)) {
      const property = FIELDS[key];
      if (property !== undefined && property !== "message") (this as Record<string, unknown>)[property] = fields[key];
    }
    if (this.severity === "") this.severity = this.severityLocalized ?? "ERROR";
  }
}

/** A PostgresError built on the client side for a state the server reports the same way (a commit that rolled back). */
export function clientError(code: string, message: string): PostgresError {
  return new PostgresError({ C: code, M: message, V: "ERROR", R: "keel" });
}

/** No answer: connect failed (08001), connection lost (08006) or the database closed (08003). */
export class PostgresConnectionError extends Error {
  readonly code: string;
  readonly severity = "FATAL";
  readonly routine = "keel";

  constructor(code: "08001" | "08003" | "08006", message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PostgresConnectionError";
    this.code = code;
  }

  [asApiError](): ApiError {
    return unavailable(this);
  }
}

/** The 503 a connection or pool failure answers with by itself (no keel/db-errors needed). */
function unavailable(error: Error): ApiError {
  return ApiError.serviceUnavailable("A backing service is unavailable", {
    headers: { "retry-after": "1" },
    detail: `postgres: ${error.message}`,
    cause: error,
  });
}

/** The pool had no connection for the caller: waited acquireTimeoutMs, or maxWaiting callers already waited. */
export class PostgresPoolError extends Error {
  readonly code: "KEEL_POOL_TIMEOUT" | "KEEL_POOL_QUEUE_FULL";
  /** Always true: waiting and retrying may succeed. */
  readonly retryable = true;

  constructor(code: "KEEL_POOL_TIMEOUT" | "KEEL_POOL_QUEUE_FULL", message: string) {
    super(message);
    this.name = "PostgresPoolError";
    this.code = code;
  }

  [asApiError](): ApiError {
    return unavailable(this);
  }
}

/** Rows that do not match the `rows` schema given to query(): our bug, a 500. */
export class PostgresRowError extends Error {
  readonly fields: readonly FieldError[];
  constructor(index: number, fields: readonly FieldError[]) {
    super(`row ${index} does not match the rows schema: ${fields.map((f) => `${f.field} ${f.message}`).join("; ")}`);
    this.name = "PostgresRowError";
    this.fields = fields;
  }
}

/** A statement's rows passed maxResultBytes: page the query (limit/cursor) or raise the option. A 500: the query is the bug. */
export class ResultTooLargeError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`the result passed maxResultBytes (${limit} bytes of rows): page the query or raise the option`);
    this.name = "ResultTooLargeError";
    this.limit = limit;
  }
}
