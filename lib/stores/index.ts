// keel/stores: the `Store` interface behind every piece of layer state (buckets, idempotency
// records, cache entries, breaker state) and its in-memory implementation.
export { MemoryStore, DEFAULT_STORE_MAX_ENTRIES, type Store, type StoreSetOptions, type StoreUpdater, type MemoryStoreOptions, type MaybePromise } from "./store.js";
