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
  loaded = (import(specifier) as Promise<NativeSqlite>).catch((err: unknown) => {
    loaded = null;
    throw unavailable(err);
  });
  return loaded;
}
