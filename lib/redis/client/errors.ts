// The three errors a caller of the Redis client can see. A RedisError is the server's answer
// (the command ran and was refused); a RedisConnectionError means no answer came: not connected,
// connection lost with the command in flight (it may or may not have run), or closed. A
// RedisConnectionError (timeouts included) thrown in a handler or layer answers itself
// (keel/plugin's asApiError): a 503 service_unavailable with Retry-After, in any app, not a 500.
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

/** The server sent bytes that are not RESP (or absurd lengths); the connection is reset. */
export class RedisProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RedisProtocolError";
  }
}
