// keel's own Redis client over node:net / node:tls, no dependencies: RESP2 + RESP3, pipelined
// connections in a small pool, reconnect with backoff, fail-fast while down, AUTH / SELECT / TLS,
// per-command timeouts, EVALSHA with SCRIPT LOAD fallback, pub/sub with resubscribe. A
// RedisConnectionError, or an error reply that means "not now" (RedisUnavailableError: OOM,
// READONLY, LOADING, BUSY...), thrown from a handler becomes a 503 (see errors.ts). Replies are
// bounded (maxReplyBytes, maxReplyElements, maxLineBytes).
export { RedisClient, redisClient, type RedisStatus } from "./client.js";
export type { RedisClientOptions } from "./options.js";
export type { RedisArg, RedisReply } from "./types.js";
export { RedisScript } from "./script.js";
export { RedisError, RedisConnectionError, RedisTimeoutError, RedisUnavailableError, RedisDesyncError, RedisProtocolError, UNAVAILABLE_CODES } from "./errors.js";
// The streaming parser itself, bounded as the client uses it: for proxies, test servers, fuzzers.
export { RespParser, DEFAULT_MAX_REPLY_BYTES, DEFAULT_MAX_REPLY_ELEMENTS, DEFAULT_MAX_LINE_BYTES, type RespLimits, type ReplyHandler, type ParsedReply } from "./resp-parser.js";
export { redisErrorMapper } from "./error-mapper.js";
export { parseRedisUrl, type RedisUrlParts } from "./url.js";
