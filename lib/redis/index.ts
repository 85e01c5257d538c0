// keel/redis: state shared by several processes through Redis (or Valkey), without a runtime
// dependency: our own RESP client over node:net (client/), `redisStore` behind the `Store`
// interface with atomic Lua operations for the traffic layers and sessions (store/), and
// `RedisJobStore`, an at-least-once job queue across processes (jobs/).
export * from "./client/index.js";
export * from "./store/index.js";
export * from "./jobs/index.js";
