// A Redis outage as an HTTP answer, through the kernel's error-mapper registry: any
// RedisConnectionError (timeouts included) thrown in a handler or layer becomes a 503
// service_unavailable with retry-after, instead of a 500. Every client registers it (idempotent).
import { ApiError, registerErrorMapper } from "../../index.js";
import { RedisConnectionError } from "./errors.js";

export function redisErrorMapper(err: unknown): ApiError | undefined {
  if (err instanceof RedisConnectionError) {
    return ApiError.serviceUnavailable("A backing service is unavailable", {
      headers: { "retry-after": "1" },
      detail: `redis: ${err.message}`,
      cause: err,
    });
  }
  return undefined;
}

export function registerRedisErrorMapper(): void {
  registerErrorMapper(redisErrorMapper);
}
