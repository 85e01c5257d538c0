// Runs one statement on a given connection as a promise: the AbortSignal wiring (drop it when
// not yet sent, CancelRequest when running; reject with the signal's reason either way) and the
// `rows` schema check. The pool, transactions and the listener all go through here.
import type { AnySchema, Static } from "../plugin.js";
import { renderSql, type SqlFragment, type SqlDialect, type SqlRow } from "../sql/index.js";
import type { Connection, Rows } from "./connection.js";
import { checkRows } from "./rows.js";

/** A row as query() answers it: the schema's static type, or plain columns without one (as lib/sql's SqlExecutor). */
export type RowOf<S> = S extends AnySchema ? Static<S> : SqlRow;

/** `$1`, `$2`, ... and the protocol's 16-bit parameter count. */
export const POSTGRES_DIALECT: SqlDialect = {
  placeholder: (position) => "$" + position,
  maxParameters: 65535,
};

export interface RunOptions {
  readonly rows?: AnySchema | undefined;
  readonly signal?: AbortSignal | undefined;
}

export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException("The operation was aborted", "AbortError");
}

/** Renders `fragment` (throws synchronously on a bad one: before a connection is taken). */
export function render(fragment: SqlFragment): { text: string; values: unknown[] } {
  return renderSql(fragment, POSTGRES_DIALECT);
}

/** Runs `text` on `connection`; `after` runs once it settled (the pool's bookkeeping). */
export function runOn(connection: Connection, text: string, values: readonly unknown[], simple: boolean, signal: AbortSignal | undefined, after: (() => void) | null): Promise<Rows> {
  return new Promise<Rows>((resolve, reject) => startOn(connection, text, values, simple, signal, after, resolve, reject));
}

/**
 * runOn without a promise of its own: settles through `resolve`/`reject`, so the pool's path
 * (which already holds a promise for the caller) makes one promise per statement, not three.
 */
export function startOn(
  connection: Connection,
  text: string,
  values: readonly unknown[],
  simple: boolean,
  signal: AbortSignal | undefined,
  after: (() => void) | null,
  resolve: (rows: Rows) => void,
  reject: (error: Error) => void,
): void {
  // Aborted while waiting for a connection: never enqueued. Once enqueued, the statement is on its
  // way to the socket, and a CancelRequest (its own connection, so it can land after this
  // statement ended) could interrupt the next statement on the backend instead.
  if (signal?.aborted === true) {
    if (after !== null) after();
    return reject(abortReason(signal));
  }
  let onAbort: (() => void) | null = null;
  const settle = (error: Error | null, rows: Rows | null): void => {
    if (onAbort !== null) signal!.removeEventListener("abort", onAbort);
    if (after !== null) after();
    if (error !== null) reject(error);
    else resolve(rows!);
  };
  const job = simple ? connection.simple(text, settle) : connection.query(text, values, settle);
  if (signal !== undefined && !job.settled) {
    onAbort = () => connection.abort(job, abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
  }
}

/** The rows, checked against `schema` when there is one (no extra promise when there is none). */
export function withRows(pending: Promise<Rows>, schema: AnySchema | undefined): Promise<Rows> {
  return schema === undefined ? pending : pending.then((rows) => checkRows(rows, schema));
}
