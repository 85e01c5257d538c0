// connectPostgres(): the pool behind the SqlDatabase interface keel/sqlite implements too, plus
// what only Postgres has (LISTEN/NOTIFY, stats). Synchronous: nothing connects until the first
// statement. The options (the password among them) live in private fields: util.inspect, JSON
// and logs of the object never show them.
import type { AnySchema } from "../plugin.js";
import type { RowOf } from "./execute.js";
import { sql, type SqlDatabase, type SqlFragment, type SqlQueryOptions, type SqlRow, type SqlRows, type SqlTransaction } from "../sql/index.js";
import type { Connection, Rows } from "./connection.js";
import { clientError, PostgresConnectionError } from "./errors.js";
import { render, runOn, startOn, withRows } from "./execute.js";
import { Listener, type PostgresSubscription } from "./listener.js";
import { resolvePostgresOptions, type PostgresOptions } from "./options.js";
import { Pool, type PoolStats } from "./pool.js";
import { PostgresTransaction } from "./transaction.js";

export interface PostgresStats extends PoolStats {
  /** Times the LISTEN connection came back and LISTENed again. */
  listenReconnects: number;
}

export class PostgresDatabase implements SqlDatabase {
  readonly dialect = "postgres" as const;
  readonly #pool: Pool;
  readonly #listener: Listener;
  #closing: Promise<void> | null = null;
  /** The pool's bookkeeping after each statement, bound once (not a closure per statement). */
  readonly #settled = (): void => this.#pool.settled();

  constructor(urlOrOptions?: string | PostgresOptions, options?: PostgresOptions) {
    const resolved = resolvePostgresOptions(urlOrOptions, options);
    this.#pool = new Pool(resolved.pool, resolved.connection);
    this.#listener = new Listener(resolved.connection);
  }

  sql<Row = SqlRow>(strings: TemplateStringsArray, ...values: unknown[]): Promise<SqlRows<Row>> {
    return this.query(sql(strings, ...values)) as unknown as Promise<SqlRows<Row>>;
  }

  query<S extends AnySchema | undefined = undefined>(fragment: SqlFragment, options?: SqlQueryOptions<S>): Promise<SqlRows<RowOf<S>>> {
    let rendered;
    try {
      rendered = render(fragment);
    } catch (error) {
      return Promise.reject(error);
    }
    return withRows(this.#run(rendered.text, rendered.values, false, options?.signal), options?.rows) as unknown as Promise<SqlRows<RowOf<S>>>;
  }

  async begin<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    const connection = await this.#exclusive();
    const tx = new PostgresTransaction(connection);
    try {
      await tx.command("begin");
      let result: T;
      try {
        result = await fn(tx);
      } catch (error) {
        tx.finish();
        if (!connection.closed) await tx.command("rollback").catch(() => connection.destroy("rollback failed"));
        throw error;
      }
      tx.finish();
      const done = await runOn(connection, "commit", [], true, undefined, null);
      // COMMIT of a transaction in which a statement failed (and was caught) rolls back instead.
      if ((done as Rows & { tag?: string }).tag === "ROLLBACK") {
        throw clientError("25P02", "the transaction was rolled back at commit: a statement in it had failed");
      }
      return result;
    } finally {
      tx.finish();
      this.#pool.release(connection);
    }
  }

  async executeScript(text: string): Promise<void> {
    if (typeof text !== "string") throw new TypeError("executeScript takes SQL text");
    await this.#run(text, [], true, undefined);
  }

  async ping(timeoutMs = 2000): Promise<void> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // The deadline covers the wait for a connection too, not only the statement.
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new PostgresConnectionError("08006", `no answer to a ping within ${timeoutMs} ms`);
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    try {
      await Promise.race([this.#run("select 1", [], false, controller.signal), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Calls `onMessage` with each NOTIFY payload on `channel`, on a dedicated connection that LISTENs again after a reconnect. */
  listen(channel: string, onMessage: (payload: string) => void): Promise<PostgresSubscription> {
    if (this.#closing !== null) return Promise.reject(new PostgresConnectionError("08003", "the database is closed"));
    return this.#listener.listen(channel, onMessage);
  }

  /** NOTIFY through pg_notify (the payload is a parameter, never spliced). */
  async notify(channel: string, payload = ""): Promise<void> {
    await this.query(sql`select pg_notify(${channel}, ${payload})`);
  }

  stats(): PostgresStats {
    return { ...this.#pool.stats(), listenReconnects: this.#listener.reconnects };
  }

  close(): Promise<void> {
    if (this.#closing === null) {
      this.#listener.close();
      this.#closing = this.#pool.close();
    }
    return this.#closing;
  }

  #run(text: string, values: readonly unknown[], simple: boolean, signal: AbortSignal | undefined): Promise<Rows> {
    if (signal?.aborted === true) return Promise.reject(signal.reason instanceof Error ? signal.reason : new DOMException("The operation was aborted", "AbortError"));
    return new Promise<Rows>((resolve, reject) => {
      this.#pool.acquire(false, (connection) => startOn(connection, text, values, simple, signal, this.#settled, resolve, reject), reject);
    });
  }

  #exclusive(): Promise<Connection> {
    return new Promise<Connection>((resolve, reject) => this.#pool.acquire(true, resolve, reject));
  }
}

/**
 * A Postgres database: a pool of connections speaking the wire protocol, no dependency.
 * Nothing connects until the first statement.
 *
 * @example
 * const db = connectPostgres(process.env.DATABASE_URL!, { max: 10 });
 * const rows = await db.sql`select id, email from users where id = ${id}`;
 * await db.begin(async (tx) => { await tx.sql`insert into users (email) values (${email})`; });
 */
export function connectPostgres(urlOrOptions?: string | PostgresOptions, options?: PostgresOptions): PostgresDatabase {
  return new PostgresDatabase(urlOrOptions, options);
}
