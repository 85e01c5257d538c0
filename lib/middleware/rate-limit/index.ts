// keel/middleware: rateLimit(), a token bucket per client key.
export { rateLimit, DEFAULT_RATE_LIMIT_MAX_KEYS, type RateLimitOptions, type RateLimitKey, type TokenBucketState } from "./rate-limit.js";
