// What `keel/postgres` and `keel/sqlite` both are, so an app (and the sample's user table, and
// migrations) can be written once against either.
import type { AnySchema, Static } from "../index.js";
import type { SqlFragment } from "./fragment.js";

/** Rows of a query, with the number of rows the statement affected (or returned). */
export type SqlRows<Row> = Row[] & { readonly count: number };

export type SqlRow = Record<string, unknown>;

export interface SqlQueryOptions<S extends AnySchema | undefined = undefined> {
  /** Each row is validated against this schema; a mismatch rejects the query (a 500: our bug). */
  readonly rows?: S;
  /** Aborting cancels the statement on the server (Postgres) and rejects with the reason. */
  readonly signal?: AbortSignal;
}

/** A `t` schema's static type or a Standard Schema's output type; plain rows without a schema. */
type RowOf<S> = S extends AnySchema ? Static<S> : SqlRow;

/** What runs statements: a pool, one connection, or a transaction. */
export interface SqlExecutor {
  /** Runs the statement: ``await db.sql`select * from users where id = ${id}` ``. */
  sql<Row = SqlRow>(strings: TemplateStringsArray, ...values: unknown[]): Promise<SqlRows<Row>>;
  /** Runs a built fragment, optionally checking rows and with a signal. */
  query<S extends AnySchema | undefined = undefined>(fragment: SqlFragment, options?: SqlQueryOptions<S>): Promise<SqlRows<RowOf<S>>>;
}

export interface SqlTransaction extends SqlExecutor {
  /** A nested unit as a savepoint: rolled back to on throw, released on success. */
  savepoint<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T>;
  /**
   * Several statements of plain SQL with no parameters, inside this transaction (what `migrate`
   * runs each file with). Optional so another driver's transaction can still be a SqlTransaction;
   * keel/postgres's and keel/sqlite's have it.
   */
  executeScript?(text: string): Promise<void>;
}

export interface SqlDatabase extends SqlExecutor {
  /** `"postgres"` or `"sqlite"`: for the few statements that differ (migrations' locking). */
  readonly dialect: "postgres" | "sqlite";
  /** Commits when `fn` resolves, rolls back when it throws (and rethrows); never left open. */
  begin<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T>;
  /** Several statements of plain SQL with no parameters (a migration file), in one round trip. */
  executeScript(text: string): Promise<void>;
  /** Resolves when a trivial statement succeeds within `timeoutMs`; rejects otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  /** Stops taking work, waits for what runs (up to the pool's drain timeout), closes. */
  close(): Promise<void>;
}
