// keel's own Redis client over node:net / node:tls, no dependencies: RESP2 + RESP3, pipelined
// connections in a small pool, reconnect with backoff, fail-fast while down, AUTH / SELECT / TLS,
// per-command timeouts, EVALSHA with SCRIPT LOAD fallback, pub/sub with resubscribe. A
// RedisConnectionError thrown from a handler becomes a 503 (see error-mapper.ts).
export { RedisClient, redisClient, type RedisStatus } from "./client.js";
export type { RedisClientOptions } from "./options.js";
export type { RedisArg, RedisReply } from "./types.js";
export { RedisScript } from "./script.js";
export { RedisError, RedisConnectionError, RedisTimeoutError } from "./errors.js";
export { redisErrorMapper } from "./error-mapper.js";
export { parseRedisUrl, type RedisUrlParts } from "./url.js";
