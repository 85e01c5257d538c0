// keel/redis store: `redisStore`, keel's Store in Redis, with the token-bucket and tag
// capabilities the traffic layers use when their store has them.
export { RedisStore, redisStore, type RedisStoreOptions } from "./redis-store.js";
export { jsonBytesCodec, type StoreCodec } from "./codec.js";
