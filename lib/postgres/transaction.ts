// A transaction on one connection the pool handed out for it alone. Statements go straight to
// that connection (pipelined, in order). Once the transaction ended (committed, rolled back, or
// its connection lost) every further statement is refused: it would run outside the transaction.
import type { AnySchema } from "../plugin.js";
import type { RowOf } from "./execute.js";
import { sql, type SqlFragment, type SqlQueryOptions, type SqlRow, type SqlRows, type SqlTransaction } from "../sql/index.js";
import type { Connection } from "./connection.js";
import { render, runOn, withRows } from "./execute.js";

export class PostgresTransaction implements SqlTransaction {
  readonly #connection: Connection;
  readonly #state: { finished: boolean; savepoints: number };

  constructor(connection: Connection, state: { finished: boolean; savepoints: number } = { finished: false, savepoints: 0 }) {
    this.#connection = connection;
    this.#state = state;
  }

  /** Marks the transaction over: statements from now on are refused. */
  finish(): void {
    this.#state.finished = true;
  }

  sql<Row = SqlRow>(strings: TemplateStringsArray, ...values: unknown[]): Promise<SqlRows<Row>> {
    return this.query(sql(strings, ...values)) as unknown as Promise<SqlRows<Row>>;
  }

  query<S extends AnySchema | undefined = undefined>(fragment: SqlFragment, options?: SqlQueryOptions<S>): Promise<SqlRows<RowOf<S>>> {
    if (this.#state.finished) return Promise.reject(new Error("the transaction is finished: a statement after commit or rollback would run outside it"));
    let rendered;
    try {
      rendered = render(fragment);
    } catch (error) {
      return Promise.reject(error);
    }
    return withRows(runOn(this.#connection, rendered.text, rendered.values, false, options?.signal, null), options?.rows) as unknown as Promise<SqlRows<RowOf<S>>>;
  }

  /** Several statements of plain SQL (a migration file) in this transaction: the simple query protocol, one round trip. */
  async executeScript(text: string): Promise<void> {
    if (typeof text !== "string") throw new TypeError("executeScript takes SQL text");
    if (this.#state.finished) throw new Error("the transaction is finished: a statement after commit or rollback would run outside it");
    await runOn(this.#connection, text, [], true, undefined, null);
  }

  /** Runs plain SQL text (BEGIN, SAVEPOINT ...) in this transaction. */
  command(text: string): Promise<string> {
    return runOn(this.#connection, text, [], true, undefined, null).then(() => text);
  }

  async savepoint<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    if (this.#state.finished) throw new Error("the transaction is finished");
    const name = `keel_sp_${++this.#state.savepoints}`;
    await this.command(`savepoint ${name}`);
    let result: T;
    try {
      result = await fn(this);
    } catch (error) {
      if (!this.#state.finished) await this.command(`rollback to savepoint ${name}`).catch(() => undefined);
      throw error;
    }
    await this.command(`release savepoint ${name}`);
    return result;
  }
}
