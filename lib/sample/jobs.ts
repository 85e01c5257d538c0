// Background jobs: report building as a job type, the queue that runs it, and the routes that
// enqueue a report (`POST /api/v1/reports`, 202 + Location) and show a job (`GET /api/v1/jobs/{id}`).
import { accepted, ApiError, json, path, route, t, type Logger } from "../index.js";
import { setTimeout as sleep } from "node:timers/promises";
import { defineJob, JobQueue, type JobStore } from "../jobs/index.js";

const ReportRequest = t.named(
  "ReportRequest",
  t.object({
    kind: t.enum(["usage", "billing"]),
    month: t.string({ regex: "^[0-9]{4}-(0[1-9]|1[0-2])$" }),
    /** Documented failure: `fail: true` makes every attempt fail, so retries and dead letters can be seen. */
    fail: t.optional(t.boolean()),
  },
  // Nothing else is stored with the job: a client cannot park arbitrary data in the queue.
  { additionalProperties: false }),
);
/** A report request is a few dozen bytes; anything near this is not one. */
const REPORT_BODY_LIMIT = 1024;
const JobStateSchema = t.enum(["pending", "running", "succeeded", "dead"]);
const JobAccepted = t.named("JobAccepted", t.object({ id: t.string(), state: JobStateSchema, status_url: t.string() }));
const JobStatus = t.named(
  "JobStatus",
  t.object({
    id: t.string(),
    type: t.string(),
    state: JobStateSchema,
    attempts: t.u32(),
    max_attempts: t.u32(),
    last_error: t.nullable(t.string()),
    created_at: t.string({ format: "date-time" }),
    updated_at: t.string({ format: "date-time" }),
  }),
);

/**
 * Builds a report in the background (a stand-in: real work would query and render). `delayMs`
 * stands in for a slow data source (KEEL_REPORT_DELAY_MS), to watch retries, drains and the
 * recovery of a job whose instance died.
 */
export function reportJob(delayMs = 0) {
  return defineJob({
    name: "reports.build",
    payload: ReportRequest,
    timeoutMs: 60_000,
    handler: async (request, signal) => {
      if (delayMs > 0) await sleep(delayMs, undefined, { signal });
      if (request.fail === true) throw new Error(`report ${request.kind} ${request.month}: the data source refused the query`);
      let total = 0;
      for (let day = 1; day <= 31; day++) {
        if (signal.aborted) throw signal.reason;
        total += day * (request.kind === "usage" ? 3 : 5);
        await new Promise((resolve) => setImmediate(resolve));
      }
      return total;
    },
  });
}

export const buildReport = reportJob();

/** The report job each queue made by createSampleJobQueue runs (the routes enqueue that one). */
const reportJobs = new WeakMap<JobQueue, ReturnType<typeof reportJob>>();

export interface SampleJobQueueOptions {
  logger?: Logger;
  /** Where jobs live (default: in this process's memory; RedisJobStore with REDIS_URL). */
  store?: JobStore;
  backoff?: { baseMs: number; factor: number; maxMs: number };
  /** Simulated data-source latency of each report, ms (default 0). */
  reportDelayMs?: number;
}

/** The sample's queue (not started: the app starts it when it listens). */
export function createSampleJobQueue(options: SampleJobQueueOptions = {}): JobQueue {
  const { reportDelayMs, backoff, ...rest } = options;
  const job = reportDelayMs === undefined || reportDelayMs === 0 ? buildReport : reportJob(reportDelayMs);
  const queue = new JobQueue({ jobs: [job], concurrency: 4, maxAttempts: 3, backoff: backoff ?? { baseMs: 500, factor: 2, maxMs: 5_000 }, ...rest });
  reportJobs.set(queue, job);
  return queue;
}

/** `POST /api/v1/reports` (202 + Location) and `GET /api/v1/jobs/{id}`. */
export function jobRoutes(queue: JobQueue) {
  const report = reportJobs.get(queue) ?? buildReport;
  const createReport = route.post(
    "/api/v1/reports",
    {
      tag: "jobs",
      summary: "Request a report, built in the background (202, job id and Location)",
      responses: { 202: JobAccepted },
      bodyLimit: REPORT_BODY_LIMIT,
    },
    [json(ReportRequest)],
    async (body) => {
      // Asking again for the same report while it still waits returns the same job.
      const id = await queue.enqueue(report, body, { key: `report:${body.kind}:${body.month}:${body.fail === true}` });
      const location = `/api/v1/jobs/${id}`;
      const state = (await queue.getJob(id))?.state ?? "pending";
      return accepted({ id, state, status_url: location }, { location });
    },
  );
  const getJobStatus = route.get(
    "/api/v1/jobs/{id}",
    { tag: "jobs", summary: "State of a background job: state, attempts, last error", responses: { 200: JobStatus, 404: "No job has this id" } },
    [path("id")],
    async (id) => {
      const job = await queue.getJob(id);
      if (job === undefined) throw ApiError.notFound(`job ${id} not found`);
      return {
        id: job.id,
        type: job.type,
        state: job.state,
        attempts: job.attempts,
        max_attempts: job.maxAttempts,
        last_error: job.lastError,
        created_at: job.createdAt,
        updated_at: job.updatedAt,
      };
    },
  );
  return [createReport, getJobStatus] as const;
}
