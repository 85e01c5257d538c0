// The check registry: concurrency, timeouts, caching, shared runs, statuses.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HealthChecks } from "../../lib/service/index.js";
import { captureLogger } from "../support/capture-logger.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe("HealthChecks", () => {
  it("runs checks concurrently", async () => {
    const checks = new HealthChecks({ cacheMs: 0 })
      .add("a", () => sleep(150))
      .add("b", () => sleep(150))
      .add("c", () => sleep(150));
    const start = performance.now();
    const report = await checks.run();
    const elapsed = performance.now() - start;
    assert.equal(report.status, "ok");
    assert.ok(elapsed < 400, `three 150 ms checks took ${elapsed.toFixed(0)} ms`);
    assert.deepEqual(Object.keys(report.checks).sort(), ["a", "b", "c"]);
  });

  it("times a hanging check out, aborts its signal, and fails it", async () => {
    let aborted = false;
    const checks = new HealthChecks({ cacheMs: 0, timeoutMs: 80 }).add("hang", (signal) => {
      signal.addEventListener("abort", () => (aborted = true));
      return new Promise(() => {});
    });
    const start = performance.now();
    const report = await checks.run();
    assert.ok(performance.now() - start < 1000);
    assert.equal(report.status, "fail");
    assert.equal(report.ready, false);
    assert.deepEqual({ ...report.checks["hang"], duration_ms: 0 }, { status: "fail", error: "timed out after 80 ms", duration_ms: 0 });
    assert.equal(aborted, true);
  });

  it("turns throws, rejections and explicit results into statuses", async () => {
    const checks = new HealthChecks({ cacheMs: 0 })
      .add("throws", () => {
        throw new Error("db down");
      })
      .add("rejects", () => Promise.reject(new Error("timeout talking to cache")))
      .add("false", () => false)
      .add("degraded", () => "degraded", { critical: true })
      .add("explicit", () => ({ status: "degraded", error: "replica lag 12s" }))
      .add("ok", async () => ({ rows: 1 }));
    const report = await checks.run();
    const statuses = Object.fromEntries(Object.entries(report.checks).map(([k, v]) => [k, [v.status, v.error]]));
    assert.deepEqual(statuses, {
      throws: ["fail", "db down"],
      rejects: ["fail", "timeout talking to cache"],
      false: ["fail", "check returned false"],
      degraded: ["degraded", undefined],
      explicit: ["degraded", "replica lag 12s"],
      ok: ["ok", undefined],
    });
    assert.equal(report.status, "fail");
  });

  it("a failing non-critical check degrades without making the service unready", async () => {
    const report = await new HealthChecks()
      .add("search", () => Promise.reject(new Error("search offline")), { critical: false })
      .add("db", () => true)
      .run();
    assert.equal(report.status, "degraded");
    assert.equal(report.ready, true);
  });

  it("caches results and shares a run in flight, so a probe storm makes one call", async () => {
    let calls = 0;
    const checks = new HealthChecks({ cacheMs: 200 }).add("db", async () => {
      calls++;
      await sleep(30);
    });
    const reports = await Promise.all(Array.from({ length: 50 }, () => checks.run()));
    assert.equal(calls, 1, "50 concurrent probes, one check call");
    assert.ok(reports.every((r) => r === reports[0]));
    await checks.run();
    assert.equal(calls, 1, "served from the cache");
    await sleep(250);
    await checks.run();
    assert.equal(calls, 2, "re-run once the cache expired");
  });

  it("logs a check's transitions (failing, recovered) once each", async () => {
    const logger = captureLogger(0);
    let healthy = false;
    const checks = new HealthChecks({ cacheMs: 0, logger }).add("db", () => {
      if (!healthy) throw new Error("connection refused");
    });
    await checks.run();
    await checks.run();
    healthy = true;
    await checks.run();
    assert.deepEqual(
      logger.records.map((r) => [r.msg, r.fields["check"], r.fields["error"]]),
      [
        ["health check failing", "db", "connection refused"],
        ["health check recovered", "db", undefined],
      ],
    );
  });

  it("truncates long error messages", async () => {
    const report = await new HealthChecks()
      .add("long", () => {
        throw new Error("x".repeat(5000));
      })
      .run();
    assert.equal(report.checks["long"]!.error!.length, 200);
  });

  it("validates names and options at registration", () => {
    const checks = new HealthChecks().add("db", () => true);
    assert.throws(() => checks.add("db", () => true), /already registered/);
    for (const bad of ["", "__proto__", "has space", "a".repeat(65), "-x"]) {
      assert.throws(() => checks.add(bad, () => true), TypeError, bad);
    }
    assert.throws(() => checks.add("t", () => true, { timeoutMs: 0 }), RangeError);
    assert.throws(() => new HealthChecks({ cacheMs: -1 }), RangeError);
    assert.deepEqual(checks.names, ["db"]);
  });
});
