// Client options, and their resolution (URL first, explicit options over it, defaults last)
// into the settings every connection uses.
import type { ConnectionOptions } from "node:tls";
import type { ConnectionConfig } from "./connection.js";
import type { Backoff } from "./backoff.js";
import { parseRedisUrl } from "./url.js";
import { DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_REPLY_BYTES, DEFAULT_MAX_REPLY_ELEMENTS, MAX_BULK_BYTES } from "./resp-parser.js";

export interface RedisClientOptions {
  /** redis://[user:pass@]host:port/db, rediss:// for TLS. */
  url?: string;
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  db?: number;
  tls?: boolean | ConnectionOptions;
  /** Connections, commands pipelined over them (default 2). */
  poolSize?: number;
  /** Default 2000. */
  connectTimeoutMs?: number;
  /** Default 2000: a command without reply by then rejects RedisTimeoutError and its connection is reset. */
  commandTimeoutMs?: number;
  /** Reconnect backoff with jitter, default 50 .. 2000 ms. */
  reconnect?: { baseMs?: number; maxMs?: number };
  /** Default 2 (HELLO 3 when 3). */
  resp?: 2 | 3;
  /** CLIENT SETNAME. */
  name?: string;
  /**
   * Most bytes one reply may take, every element of an aggregate included (default 32 MiB; at
   * most 512 MiB, Redis's own bulk limit). A reply announcing more fails its command with a
   * RedisConnectionError naming this option and resets the connection (it reconnects); nothing
   * is allocated at the announced size. Raise it to read values larger than 32 MiB.
   */
  maxReplyBytes?: number;
  /** Most elements one reply may announce, its nested aggregates summed (default 1,048,576); past it, as for maxReplyBytes. */
  maxReplyElements?: number;
  /** Longest line (a simple string, an error, a header) without its CRLF (default 1 MiB); past it, as for maxReplyBytes. */
  maxLineBytes?: number;
}

export interface ResolvedOptions {
  connection: ConnectionConfig;
  poolSize: number;
  backoff: Backoff;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`Redis option ${name} must be a positive number, got ${value}`);
  return value;
}

export function resolveOptions(input: string | RedisClientOptions | undefined): ResolvedOptions {
  const options: RedisClientOptions = typeof input === "string" ? { url: input } : (input ?? {});
  const fromUrl = options.url === undefined ? undefined : parseRedisUrl(options.url);

  let tls: ConnectionOptions | undefined;
  const tlsOption = options.tls ?? fromUrl?.tls ?? false;
  if (tlsOption === true) tls = {};
  else if (tlsOption !== false) tls = tlsOption;

  const port = options.port ?? fromUrl?.port ?? 6379;
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new TypeError(`Redis option port must be 1..65535, got ${port}`);
  const db = options.db ?? fromUrl?.db;
  if (db !== undefined && (!Number.isInteger(db) || db < 0)) throw new TypeError(`Redis option db must be a non-negative integer, got ${db}`);
  const resp = options.resp ?? 2;
  if (resp !== 2 && resp !== 3) throw new TypeError(`Redis option resp must be 2 or 3`);
  const poolSize = positive("poolSize", options.poolSize, 2);
  if (!Number.isInteger(poolSize)) throw new TypeError(`Redis option poolSize must be an integer, got ${poolSize}`);

  const baseMs = positive("reconnect.baseMs", options.reconnect?.baseMs, 50);
  const maxMs = Math.max(baseMs, positive("reconnect.maxMs", options.reconnect?.maxMs, 2000));
  const maxReplyBytes = positive("maxReplyBytes", options.maxReplyBytes, DEFAULT_MAX_REPLY_BYTES);
  if (maxReplyBytes > MAX_BULK_BYTES) throw new TypeError(`Redis option maxReplyBytes must be at most ${MAX_BULK_BYTES}, got ${maxReplyBytes}`);
  const maxReplyElements = positive("maxReplyElements", options.maxReplyElements, DEFAULT_MAX_REPLY_ELEMENTS);
  const maxLineBytes = positive("maxLineBytes", options.maxLineBytes, DEFAULT_MAX_LINE_BYTES);

  return {
    connection: {
      host: options.host ?? fromUrl?.host ?? "127.0.0.1",
      port,
      tls,
      username: options.username ?? fromUrl?.username,
      password: options.password ?? fromUrl?.password,
      db,
      name: options.name,
      resp,
      connectTimeoutMs: positive("connectTimeoutMs", options.connectTimeoutMs, 2000),
      commandTimeoutMs: positive("commandTimeoutMs", options.commandTimeoutMs, 2000),
      limits: { maxReplyBytes, maxReplyElements, maxLineBytes },
    },
    poolSize,
    backoff: { baseMs, maxMs },
  };
}
