// RedisJobStore: keel's JobStore on Redis, for job queues shared by several processes.
export { RedisJobStore, DEFAULT_JOB_LEASE_MS, DEFAULT_JOB_PREFIX, type RedisJobStoreOptions } from "./redis-job-store.js";
