// Optional capabilities a `Store` may add to the generic operations: atomic work a shared store
// can do in one round trip that the generic `update` would need two or more for. A layer checks
// for them once at startup and otherwise keeps the generic path; `MemoryStore` has neither (its
// synchronous `update` is already as cheap as it gets).
import type { MaybePromise, Store } from "./store.js";

/** One token bucket's state; `ok` records whether the last take succeeded. */
export interface TokenBucketState {
  tokens: number;
  /** When `tokens` was last computed (ms; on a `TokenBucketStore`, the store's own clock). */
  at: number;
  ok: boolean;
}

/** A store that refills and takes from a token bucket atomically in one step. */
export interface TokenBucketStore {
  /**
   * Refill the bucket under `key` from the time elapsed since its last take (a new bucket starts
   * full), take one token when there is one (`ok`), and keep the bucket for `ttlMs`.
   */
  takeToken(key: string, capacity: number, refillPerSecond: number, ttlMs: number): MaybePromise<TokenBucketState>;
}

/** A store that can delete every entry written with a tag (`StoreSetOptions.tags`) without a scan. */
export interface TaggedStore {
  /** Delete the live entries last written with `tag`; returns how many. */
  deleteTagged(tag: string): MaybePromise<number>;
}

export function isTokenBucketStore(store: object): store is TokenBucketStore {
  return typeof (store as Partial<TokenBucketStore>).takeToken === "function";
}

export function isTaggedStore<V>(store: Store<V>): store is Store<V> & TaggedStore {
  return typeof (store as Partial<TaggedStore>).deleteTagged === "function";
}
