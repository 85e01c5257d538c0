// keel/middleware: responseCache(), a bounded response cache with ETags and invalidation.
export {
  responseCache,
  strongEtag,
  ifNoneMatchHits,
  CACHE_STATUS_HEADER,
  type ResponseCache,
  type ResponseCacheOptions,
  type CacheRouteConfig,
  type CacheCredentials,
  type CacheEntry,
  type CachedVariant,
  type ReplyClass,
} from "./cache.js";
