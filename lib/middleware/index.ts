// keel/middleware: every optional HTTP layer, each also its own build-time feature.
export * from "./cors/index.js";
export * from "./csrf/index.js";
export * from "./security-headers/index.js";
export * from "./request-id/index.js";
export * from "./client-ip/index.js";
export * from "./rate-limit/index.js";
export * from "./idempotency/index.js";
export * from "./cache/index.js";
export * from "./compression/index.js";
export * from "./timeout/index.js";
export * from "./retry/index.js";
export * from "./circuit-breaker/index.js";
export * from "./alt-svc/index.js";
export * from "../stores/index.js";
