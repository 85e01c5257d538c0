// keel/stores: the `Store` interface behind every piece of layer state (buckets, idempotency
// records, cache entries, breaker state), its in-memory implementation, and the optional
// capabilities a shared store adds (token buckets in one step, tag invalidation).
export { MemoryStore, DEFAULT_STORE_MAX_ENTRIES, type Store, type StoreSetOptions, type StoreUpdater, type MemoryStoreOptions, type MaybePromise } from "./store.js";
export { isTokenBucketStore, isTaggedStore, type TokenBucketState, type TokenBucketStore, type TaggedStore } from "./capabilities.js";
