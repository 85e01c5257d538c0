// node:sqlite found at run time: Node 20 has no such module and @types/node 20 does not describe
// it, so the few parts keel uses are declared here and the module is imported dynamically.

/** The part of node:sqlite's StatementSync keel uses. */
export interface NativeStatement {
  all(...params: unknown[]): Record<string, unknown>[];
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  setReadBigInts(enabled: boolean): void;
  /** Node 22.16+: the result columns; an empty array for a statement that returns no rows. */
  columns?(): unknown[];
}

/** The part of node:sqlite's DatabaseSync keel uses. */
export interface NativeDatabase {
  prepare(text: string): NativeStatement;
  exec(text: string): void;
  close(): void;
}

export interface NativeSqlite {
  DatabaseSync: new (path: string, options?: { open?: boolean; readOnly?: boolean; enableForeignKeyConstraints?: boolean }) => NativeDatabase;
}

/** The first Node release where node:sqlite loads without a flag. */
export const MIN_NODE_FOR_SQLITE = "22.13.0";

/** True when this Node is at least 22.13 (23.0+ has it unflagged too). */
export function nodeHasSqlite(version: string = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 13);
}

/** Thrown by openSqlite where node:sqlite is not available. */
export class SqliteUnavailableError extends Error {
  override readonly name = "SqliteUnavailableError";
  readonly code = "ERR_KEEL_SQLITE_UNAVAILABLE";
}

let loaded: Promise<NativeSqlite> | null = null;

/** node:sqlite, or a SqliteUnavailableError naming the running Node and the minimum. */
export function loadNodeSqlite(): Promise<NativeSqlite> {
  if (loaded !== null) return loaded;
  const running = process.versions.node;
  const unavailable = (cause?: unknown) =>
    new SqliteUnavailableError(`keel/sqlite needs node:sqlite, which Node ${MIN_NODE_FOR_SQLITE} and later provide; this is Node ${running}`, cause === undefined ? undefined : { cause });
  if (!nodeHasSqlite(running)) return Promise.reject(unavailable());
  // A variable specifier: bundlers and tsc leave it alone, and Node 20 never resolves it.
  const specifier = "node:sqlite";
  const restore = withoutSqliteWarning();
  loaded = (import(specifier) as Promise<NativeSqlite>).then(
    (module) => {
      restore();
      return module;
    },
    (err: unknown) => {
      restore();
      loaded = null;
      throw unavailable(err);
    },
  );
  return loaded;
}

/**
 * Node 22 prints "ExperimentalWarning: SQLite is an experimental feature" on stderr when the
 * module loads (24 and later do not): a plain-text line in a service that logs JSON, and a second
 * line where a startup failure promises one. Only that warning, only while the module loads, is
 * dropped; every other warning goes through. Returns the function that puts emitWarning back.
 */
function withoutSqliteWarning(): () => void {
  const original = process.emitWarning;
  const filtered = function (this: unknown, warning: string | Error, ...rest: unknown[]): void {
    const type = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: unknown } | undefined)?.type;
    const text = typeof warning === "string" ? warning : warning.message;
    const kind = typeof warning === "string" ? type : warning.name;
    if (kind === "ExperimentalWarning" && text.startsWith("SQLite is an experimental feature")) return;
    (original as (...args: unknown[]) => void).call(process, warning, ...rest);
  };
  process.emitWarning = filtered as typeof process.emitWarning;
  return () => {
    if (process.emitWarning === filtered) process.emitWarning = original;
  };
}
