// The queue raises job errors, not HTTP ones; through an App they still answer as before: a bad
// payload is a 422 validation_error with the fields, a draining queue a 503 service_unavailable.
import { test } from "node:test";
import assert from "node:assert/strict";
import { accepted, ApiError, App, json, route, silentLogger, t } from "../../lib/index.js";
import { JobPayloadError, JobQueue, JobQueueClosedError, ManualJobClock, defineJob, jobErrorMapper } from "../../lib/jobs/index.js";

const mail = defineJob({ name: "mail", payload: t.object({ to: t.string({ email: true }), retries: t.u8() }), handler: () => undefined });

interface ErrorBody {
  error: { type: string; message: string; fields?: Array<{ field: string; code: string; message: string }> };
  error_id: string;
}

function appFor(queue: JobQueue): App {
  // json() without a schema: the queue is what checks the payload.
  const enqueue = route.post("/mail", [json()], async (body) => accepted({ id: await queue.enqueue(mail, body as never) }));
  return new App({ logger: silentLogger, env: "development" }).routes(enqueue);
}

/** An app whose handler throws a job error itself, with no queue involved. */
function throwingApp(): App {
  const raw = route.post("/raw", [], () => {
    throw new JobPayloadError("mail", [{ field: "to", code: "format", message: "must be an email" }]);
  });
  return new App({ logger: silentLogger, env: "development" }).routes(raw);
}

const post = (app: App, url: string, body: unknown) =>
  app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

// First in this file (each test file runs in its own process): no queue exists yet, and nothing
// was registered anywhere; the refusal carries its answer itself (keel/plugin's asApiError).
test("a job refusal answers 422 in any app, with no queue constructed and nothing registered", async () => {
  const res = await post(throwingApp(), "/raw", {});
  assert.equal(res.status, 422);
  assert.deepEqual(res.json<ErrorBody>().error.fields, [{ field: "to", code: "format", message: "must be an email" }]);
});

test("through an App route, a bad payload answers 422 validation_error with the queue's fields", async () => {
  const queue = new JobQueue({ clock: new ManualJobClock(), logger: silentLogger, jobs: [mail] });
  const bad = { to: "not-an-email", retries: 1000 };
  const refused = await queue.enqueue(mail, bad).then(
    () => assert.fail("enqueue should reject"),
    (err: unknown) => err,
  );
  assert.ok(refused instanceof JobPayloadError);

  const res = await post(appFor(queue), "/mail", bad);
  assert.equal(res.status, 422);
  const body = res.json<ErrorBody>();
  assert.equal(body.error.type, "validation_error");
  assert.equal(body.error.message, "Invalid payload for job mail");
  assert.deepEqual(body.error.fields, refused.fields, "the same fields the queue reported");
  assert.deepEqual(body.error.fields?.map((f) => f.field).sort(), ["retries", "to"]);
  assert.match(body.error_id, /^err_[0-9a-f]{32}$/);
  assert.equal((await queue.stats()).totals.enqueued, 0, "nothing was stored");

  const ok = await post(appFor(queue), "/mail", { to: "a@example.com", retries: 1 });
  assert.equal(ok.status, 202);
  await queue.drain(0);
});

test("through an App route, enqueueing on a draining queue answers 503 service_unavailable", async () => {
  const queue = new JobQueue({ clock: new ManualJobClock(), logger: silentLogger, jobs: [mail] });
  await queue.start();
  const app = appFor(queue);
  const draining = queue.drain(0);
  const during = await post(app, "/mail", { to: "a@example.com", retries: 1 });
  assert.equal(during.status, 503);
  assert.deepEqual(during.json<ErrorBody>().error, { type: "service_unavailable", message: "The job queue is shutting down" });
  await draining;
  const after = await post(app, "/mail", { to: "a@example.com", retries: 1 });
  assert.equal(after.status, 503);
  assert.equal(after.json<ErrorBody>().error.type, "service_unavailable");
});

test("jobErrorMapper maps only the queue's refusals", () => {
  const payload = jobErrorMapper(new JobPayloadError("x", [{ field: "a", code: "required", message: "is required" }]));
  assert.ok(payload instanceof ApiError);
  assert.equal(payload.status, 422);
  assert.equal(payload.type, "validation_error");
  assert.deepEqual(payload.fields, [{ field: "a", code: "required", message: "is required" }]);
  const closed = jobErrorMapper(new JobQueueClosedError());
  assert.equal(closed?.status, 503);
  assert.equal(closed?.type, "service_unavailable");
  assert.equal(jobErrorMapper(new Error("other")), undefined);
  assert.equal(jobErrorMapper("not an error"), undefined);
});
