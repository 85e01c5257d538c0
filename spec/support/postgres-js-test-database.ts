// TEST ADAPTER, not keel's client: lib/sql's SqlDatabase over the postgres.js test peer, so the
// code written against SqlDatabase (the transaction(db) layer, databaseCheck) runs against a real
// PostgreSQL before keel/postgres exists, and the same tests can later run over keel's own
// client. Row schemas are not checked here (keel/postgres does that); everything else follows
// the SqlDatabase contract: begin commits or rolls back and rethrows, ping has a deadline.
import { renderSql, sql as tag, type SqlDialect } from "../../lib/sql/index.js";
import type { SqlDatabase, SqlExecutor, SqlFragment as SqlFragmentLike, SqlRows, SqlTransaction } from "../../lib/sql/index.js";
import { postgresJs } from "./postgres-peers.js";

type Any = any;

const POSTGRES: SqlDialect = { placeholder: (n) => "$" + n, maxParameters: 65535 };

function executor(run: Any): SqlExecutor {
  const query = async (fragment: SqlFragmentLike, options?: { signal?: AbortSignal }): Promise<Any> => {
    const { text, values } = renderSql(fragment as Any, POSTGRES);
    const pending = run.unsafe(text, values as Any[]);
    const signal = options?.signal;
    if (signal !== undefined) {
      signal.throwIfAborted();
      signal.addEventListener("abort", () => pending.cancel(), { once: true });
    }
    const result = await pending;
    const rows = [...result] as Any[] & { count: number };
    rows.count = result.count ?? rows.length;
    return rows as SqlRows<Any>;
  };
  return {
    query,
    sql: (strings: TemplateStringsArray, ...values: unknown[]) => query(tag(strings, ...values)),
  } as SqlExecutor;
}

function transaction(t: Any): SqlTransaction {
  return Object.assign(executor(t), {
    savepoint: <T>(fn: (inner: SqlTransaction) => Promise<T>): Promise<T> => t.savepoint((s: Any) => fn(transaction(s))),
  });
}

/** A SqlDatabase over postgres.js at `url` (pool of `max` connections, default 4). */
export function postgresJsTestDatabase(url: string, options: { max?: number } = {}): SqlDatabase & { readonly raw: Any } {
  const raw = postgresJs(url, { max: options.max ?? 4, onnotice: () => {}, connect_timeout: 2, idle_timeout: 5 });
  return {
    ...executor(raw),
    raw,
    dialect: "postgres",
    begin: <T>(fn: (t: SqlTransaction) => Promise<T>): Promise<T> => raw.begin((t: Any) => fn(transaction(t))),
    executeScript: async (text: string) => {
      await raw.unsafe(text).simple();
    },
    ping: (timeoutMs = 1000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`ping: no answer within ${timeoutMs} ms`)), timeoutMs);
        raw`select 1`.then(
          () => (clearTimeout(timer), resolve()),
          (err: unknown) => (clearTimeout(timer), reject(err)),
        );
      }),
    close: () => raw.end({ timeout: 5 }),
  };
}
