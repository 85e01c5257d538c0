// Public surface of the background job queue.
export { JobQueue, DEFAULT_JOB_CONCURRENCY, DEFAULT_JOB_MAX_ATTEMPTS, DEFAULT_JOB_TIMEOUT_MS, DEFAULT_DRAIN_MS } from "./queue.js";
export type {
  EnqueueOptions,
  JobChange,
  JobDrainResult,
  JobQueueHealth,
  JobQueueHealthOptions,
  JobQueueOptions,
  JobQueuePhase,
  JobQueueStats,
  JobQueueTotals,
} from "./queue-types.js";
export { defineJob, MAX_JOB_ATTEMPTS, type AnyJobType, type JobDefinition, type JobHandler, type JobType } from "./job-type.js";
export { JOB_STATES, MAX_ERROR_HISTORY, type JobCounts, type JobErrorEntry, type JobInfo, type JobRecord, type JobState } from "./job-record.js";
export type { JobStore } from "./job-store.js";
export type { JobRunTrace } from "./job-channels.js";
export { MemoryJobStore, type MemoryJobStoreOptions } from "./memory-store.js";
export { FileJobStore, DEFAULT_COMPACT_BYTES, type FileJobStoreOptions, type FsyncPolicy, type JournalRecovery } from "./file-store.js";
export { DEFAULT_KEEP_DEAD, DEFAULT_KEEP_SUCCEEDED, DEFAULT_RETAINED_BYTES, INTERRUPTED_MESSAGE, type JobRetention, type JobTableOptions, type RetainedJobs } from "./job-table.js";
export { DEFAULT_JOB_BACKOFF, jobBackoffCeiling, jobBackoffDelay, type JobBackoffPolicy } from "./job-backoff.js";
export { systemJobClock, type JobClock } from "./clock.js";
export { ManualJobClock } from "./manual-clock.js";
export { JobTimeoutError, JobDrainError, JobLeaseLostError, JobPayloadError, JobQueueClosedError } from "./job-errors.js";
export { jobErrorMapper } from "./job-error-mapper.js";
export { JobThreadError, type JobThreadPoolOptions, type JobThreadTarget } from "./thread-pool.js";
