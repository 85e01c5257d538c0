// The errors a caller of the Redis client can see. A RedisError is the server's answer (the
// command ran and was refused); a RedisConnectionError means no answer came: not connected,
// connection lost with the command in flight (it may or may not have run), or closed. A
// RedisConnectionError (timeouts and desynchronised replies included) thrown in a handler or
// layer answers itself (keel/plugin's asApiError): a 503 service_unavailable with Retry-After, in
// any app, not a 500. So does a RedisUnavailableError: an error reply that says the server cannot
// serve now (out of memory, a read-only replica after a failover, loading, busy with a script, a
// replica without its primary): waiting or another instance fixes it, the request is not at fault.
// Any other error reply (WRONGTYPE, ERR syntax...) is a bug of the caller and stays a 500.
import { ApiError } from "../../index.js";
import { asApiError } from "../../plugin.js";

/** An error reply from the server. `code` is its first word: ERR, WRONGTYPE, NOSCRIPT, WRONGPASS, ... */
export class RedisError extends Error {
  readonly code: string;
  /**
   * When the error sits inside an aggregate reply (a failed command inside EXEC's results), the
   * command rejects with the first such error and `reply` holds the whole reply, errors included.
   */
  reply: unknown;

  constructor(message: string) {
    super(message);
    this.name = "RedisError";
    const space = message.indexOf(" ");
    this.code = space === -1 ? message : message.slice(0, space);
    this.reply = undefined;
  }
}

/**
 * Error codes that mean "the server cannot serve this now", not "this command is wrong": OOM
 * (maxmemory with noeviction), READONLY (a replica, e.g. the old primary after a failover),
 * LOADING (reading its dataset after a restart), MASTERDOWN (a replica that lost its primary, with
 * replica-serve-stale-data no), BUSY (a script or function past its time limit), TRYAGAIN and
 * CLUSTERDOWN (Cluster resharding or failing over), NOREPLICAS (min-replicas-to-write not met),
 * MISCONF (writes refused because the last snapshot failed).
 */
export const UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  "OOM", "READONLY", "LOADING", "MASTERDOWN", "BUSY", "TRYAGAIN", "CLUSTERDOWN", "NOREPLICAS", "MISCONF",
]);

/** An error reply of one of UNAVAILABLE_CODES: a RedisError (code, reply) that answers 503 with Retry-After. */
export class RedisUnavailableError extends RedisError {
  constructor(message: string) {
    super(message);
    this.name = "RedisUnavailableError";
  }

  [asApiError](): ApiError {
    return ApiError.serviceUnavailable("A backing service is unavailable", {
      headers: { "retry-after": "1" },
      detail: `redis: ${this.message}`,
      cause: this,
    });
  }
}

/** The error of an error reply: a RedisUnavailableError for the codes that mean "not now", a RedisError otherwise. */
export function redisErrorReply(message: string): RedisError {
  const space = message.indexOf(" ");
  const code = space === -1 ? message : message.slice(0, space);
  return UNAVAILABLE_CODES.has(code) ? new RedisUnavailableError(message) : new RedisError(message);
}

/** Not connected, connection lost, or client closed: the command got no answer. */
export class RedisConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RedisConnectionError";
  }

  [asApiError](): ApiError {
    return ApiError.serviceUnavailable("A backing service is unavailable", {
      headers: { "retry-after": "1" },
      detail: `redis: ${this.message}`,
      cause: this,
    });
  }
}

/** A command without a reply within `commandTimeoutMs`; its connection was reset. */
export class RedisTimeoutError extends RedisConnectionError {
  constructor(message: string) {
    super(message);
    this.name = "RedisTimeoutError";
  }
}

/**
 * A reply of the wrong shape for its command (a script answering something it never answers): the
 * stream is out of step with the commands, so replies may belong to other commands. The stores
 * throw it after resetting the client's connections (RedisClient.reset); a 503 like any lost connection.
 */
export class RedisDesyncError extends RedisConnectionError {
  constructor(message: string) {
    super(message);
    this.name = "RedisDesyncError";
  }
}

/** The server sent bytes that are not RESP, or a reply past the client's limits (maxReplyBytes...); the connection is reset. */
export class RedisProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RedisProtocolError";
  }
}
