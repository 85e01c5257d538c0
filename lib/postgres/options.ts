// Options of connectPostgres and their resolution: the URL first, explicit options over it,
// defaults last. Every number is checked here, once, with a message naming the option.
import type { ConnectionOptions } from "node:tls";
import type { ConnectionConfig } from "./connection.js";
import type { Int8Mode } from "./decode.js";
import type { PoolConfig } from "./pool.js";
import { parsePostgresUrl, SSL_MODES, type SslMode } from "./url.js";

/** Most bytes one server message may take (a row, an error): past it the connection closes. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** Most row bytes one statement's result may hold (as sent by the server). */
export const DEFAULT_MAX_RESULT_BYTES = 256 * 1024 * 1024;
export const DEFAULT_STATEMENT_CACHE_SIZE = 100;
export const DEFAULT_MAX_PIPELINE = 32;
export const DEFAULT_POOL_MAX = 10;
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_WAITING = 1000;
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_LIFETIME_MS = 30 * 60_000;
export const DEFAULT_DRAIN_TIMEOUT_MS = 5000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

export interface PostgresOptions {
  /** postgres://user:password@host:port/database?sslmode=...&application_name=...&connect_timeout=...&options=... */
  url?: string;
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  /** libpq's sslmode (default `prefer`). */
  sslmode?: SslMode;
  /** TLS settings for the connection (`ca` for verify-ca / verify-full, client certificates). */
  tls?: ConnectionOptions;
  applicationName?: string;
  /** Socket, TLS and authentication together (default 5000). */
  connectTimeoutMs?: number;
  /** The server cancels a statement running longer (SQLSTATE 57014); set at startup for every connection. */
  statementTimeoutMs?: number;
  /** Extra backend options (libpq's `options`, e.g. `-c search_path=app`). */
  options?: string;
  /** Answer a cleartext password request (only over TLS; default false). */
  allowCleartextPassword?: boolean;
  /** How int8 (bigint) columns come back: `"string"` (default) or `"bigint"`. */
  int8?: Int8Mode;
  /** Most connections (default 10). */
  max?: number;
  /** Connections kept open once the pool is in use (default 0). */
  min?: number;
  /** An idle connection closes after this (default 30 s), down to `min`. */
  idleTimeoutMs?: number;
  /** A connection older than this takes no new work and closes (default 30 min). */
  maxLifetimeMs?: number;
  /** Longest wait for a connection (default 5000): then a PostgresPoolError KEEL_POOL_TIMEOUT. */
  acquireTimeoutMs?: number;
  /** Most callers waiting for a connection (default 1000): more fail at once with KEEL_POOL_QUEUE_FULL. */
  maxWaiting?: number;
  /** Most statements pipelined on one connection (default 32). */
  maxPipeline?: number;
  /** close() waits this long for running statements before destroying connections (default 5000). */
  drainTimeoutMs?: number;
  /** Prepared statements kept per connection (default 100); the least recently used is closed. */
  statementCacheSize?: number;
  /** Largest server message accepted (default 64 MiB); a larger one closes the connection (08006). */
  maxMessageBytes?: number;
  /** Most row bytes one statement may return (default 256 MiB); past it the statement rejects with ResultTooLargeError and the rest is discarded. */
  maxResultBytes?: number;
}

export interface ResolvedPostgresOptions {
  readonly connection: ConnectionConfig;
  readonly pool: PoolConfig;
}

function positiveInt(name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) throw new TypeError(`Postgres option ${name} must be an integer >= ${min}, got ${value}`);
  return value;
}

/** Backend options text: each `-c name=value`, spaces escaped with a backslash (libpq's rule). */
function backendOption(name: string, value: string): string {
  return `-c ${name}=${value.replaceAll("\\", "\\\\").replaceAll(" ", "\\ ")}`;
}

export function resolvePostgresOptions(urlOrOptions: string | PostgresOptions | undefined, more: PostgresOptions | undefined): ResolvedPostgresOptions {
  const base: PostgresOptions = typeof urlOrOptions === "string" ? { url: urlOrOptions } : (urlOrOptions ?? {});
  const options: PostgresOptions = { ...base, ...more };
  const fromUrl = options.url === undefined ? {} : parsePostgresUrl(options.url);

  const port = options.port ?? fromUrl.port ?? 5432;
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new TypeError(`Postgres option port must be 1..65535, got ${port}`);
  const sslmode = options.sslmode ?? fromUrl.sslmode ?? "prefer";
  if (!SSL_MODES.includes(sslmode)) throw new TypeError(`Postgres option sslmode must be one of ${SSL_MODES.join(", ")}`);
  const int8 = options.int8 ?? "string";
  if (int8 !== "string" && int8 !== "bigint") throw new TypeError(`Postgres option int8 must be "string" or "bigint"`);
  const user = options.user ?? fromUrl.user ?? "postgres";
  const backend: string[] = [];
  const extra = options.options ?? fromUrl.options;
  if (extra !== undefined && extra !== "") backend.push(extra);
  if (options.statementTimeoutMs !== undefined) backend.push(backendOption("statement_timeout", String(positiveInt("statementTimeoutMs", options.statementTimeoutMs, 0))));

  const max = positiveInt("max", options.max, DEFAULT_POOL_MAX);
  const min = positiveInt("min", options.min, 0, 0);
  if (min > max) throw new TypeError(`Postgres option min (${min}) must not exceed max (${max})`);

  return {
    connection: {
      host: options.host ?? fromUrl.host ?? "127.0.0.1",
      port,
      sslmode,
      tls: options.tls ?? {},
      connectTimeoutMs: positiveInt("connectTimeoutMs", options.connectTimeoutMs ?? fromUrl.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS),
      user,
      password: options.password ?? fromUrl.password,
      database: options.database ?? fromUrl.database ?? user,
      applicationName: options.applicationName ?? fromUrl.applicationName,
      backendOptions: backend.length === 0 ? undefined : backend.join(" "),
      allowCleartextPassword: options.allowCleartextPassword === true,
      maxMessageBytes: positiveInt("maxMessageBytes", options.maxMessageBytes, DEFAULT_MAX_MESSAGE_BYTES, 1024),
      maxResultBytes: positiveInt("maxResultBytes", options.maxResultBytes, DEFAULT_MAX_RESULT_BYTES, 1024),
      statementCacheSize: positiveInt("statementCacheSize", options.statementCacheSize, DEFAULT_STATEMENT_CACHE_SIZE),
      int8,
    },
    pool: {
      min,
      max,
      idleTimeoutMs: positiveInt("idleTimeoutMs", options.idleTimeoutMs, DEFAULT_IDLE_TIMEOUT_MS),
      maxLifetimeMs: positiveInt("maxLifetimeMs", options.maxLifetimeMs, DEFAULT_MAX_LIFETIME_MS),
      acquireTimeoutMs: positiveInt("acquireTimeoutMs", options.acquireTimeoutMs, DEFAULT_ACQUIRE_TIMEOUT_MS),
      maxWaiting: positiveInt("maxWaiting", options.maxWaiting, DEFAULT_MAX_WAITING, 0),
      maxPipeline: positiveInt("maxPipeline", options.maxPipeline, DEFAULT_MAX_PIPELINE),
      drainTimeoutMs: positiveInt("drainTimeoutMs", options.drainTimeoutMs, DEFAULT_DRAIN_TIMEOUT_MS, 0),
    },
  };
}
