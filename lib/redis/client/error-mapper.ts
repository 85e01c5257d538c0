// A Redis outage as an HTTP answer. RedisConnectionError and RedisUnavailableError carry their answer (errors.ts,
// keel/plugin's asApiError: 503 with Retry-After), so every app maps it with no registration;
// this function gives the same answer to code that maps errors by hand.
import type { ApiError } from "../../index.js";
import { asApiError } from "../../plugin.js";
import { RedisConnectionError, RedisUnavailableError } from "./errors.js";

export function redisErrorMapper(err: unknown): ApiError | undefined {
  return err instanceof RedisConnectionError || err instanceof RedisUnavailableError ? err[asApiError]() : undefined;
}
