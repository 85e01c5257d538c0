// Where the sample keeps what several instances must share: rate-limit buckets, idempotency
// records and the job queue. By default each lives in this process's memory; with REDIS_URL they
// live in Redis, so instances behind one load balancer (or `--workers N`) give a client one
// budget, run an idempotency key once and share one job queue.
// The response cache stays in each process: it caches the user list, and without DATABASE_URL
// the user table is each instance's own (its SQLite file or memory), so a shared cache would
// serve one instance's users from another. With Postgres, a list made on another instance shows
// here once this process's cached copy expired (30 s); `redisStore<CacheEntry>` as the cache's
// store would make the invalidation shared too.
import type { JobStore } from "../jobs/index.js";
import type { IdempotencyRecord, TokenBucketState } from "../middleware/index.js";
import { RedisJobStore, redisStore, type RedisClient } from "../redis/index.js";
import type { Store } from "../stores/index.js";
import { defined } from "../plugin.js";

export interface SampleSharedState {
  /** Rate-limit buckets (default: one MemoryStore per limiter). */
  readonly rateLimit?: Store<TokenBucketState>;
  /** Idempotency records (default: in memory). */
  readonly idempotency?: Store<IdempotencyRecord>;
  /** The job queue's store (default: in memory). */
  readonly jobs?: JobStore;
}

/** Every key the sample writes starts with this, so one Redis can hold other things too. */
export const SAMPLE_REDIS_PREFIX = "keel-sample:";

/** The shared state in Redis. Limiters and layers keep their own key prefixes inside each store. */
export function redisSharedState(client: RedisClient, options: { jobLeaseMs?: number } = {}): SampleSharedState {
  return {
    rateLimit: redisStore<TokenBucketState>(client, { prefix: SAMPLE_REDIS_PREFIX + "rl:" }),
    idempotency: redisStore<IdempotencyRecord>(client, { prefix: SAMPLE_REDIS_PREFIX + "idem:" }),
    jobs: new RedisJobStore({ client, prefix: SAMPLE_REDIS_PREFIX + "jobs:", ...defined({ leaseMs: options.jobLeaseMs }) }),
  };
}
