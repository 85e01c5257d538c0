// Admin endpoints and the audit log (issue 32 items 7 and 8): successful /admin/insight and
// /admin/replays calls are audited as admin.request; refusals from one client beyond a rate get
// the uniform 429 with Retry-After, are not each audited, and one summary record per client
// counts them; a valid token still passes while its address is limited.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, route, silentLogger } from "../../lib/index.js";
import { audit, auditLog, memoryAuditSink } from "../../lib/audit/index.js";
import { insight } from "../../lib/insight/index.js";
import { MemoryReplayStore, replay } from "../../lib/replay/index.js";

const TOKEN = "admin-token-0123456789abcdef";
const AUTH = { authorization: `Bearer ${TOKEN}` };

function build(refusalLimit?: { burst?: number; perMinute?: number } | false) {
  const sink = memoryAuditSink();
  const log = auditLog({ sink });
  const limit = refusalLimit === undefined ? {} : { refusalLimit };
  const app = new App({ logger: silentLogger })
    .register(audit({ log }))
    .register(insight({ adminToken: TOKEN, ...limit }))
    .register(replay({ adminToken: TOKEN, store: new MemoryReplayStore(), ...limit }))
    .routes(route.get("/hello", [], () => "hi"));
  const records = async (): Promise<Array<Record<string, any>>> => {
    await log.flush();
    return sink.lines().map((l) => JSON.parse(l));
  };
  return { app, log, records };
}

describe("admin endpoints are audited", () => {
  it("records successful /admin/insight and /admin/replays calls as admin.request", async () => {
    const { app, records } = build();
    await app.inject({ url: "/hello" });
    assert.equal((await app.inject({ url: "/admin/insight", headers: AUTH })).status, 200);
    assert.equal((await app.inject({ url: "/admin/insight/GET/hello", headers: AUTH })).status, 200);
    assert.equal((await app.inject({ url: "/admin/replays", headers: AUTH })).status, 200);
    assert.equal((await app.inject({ url: "/admin/replays/nope", headers: AUTH })).status, 404);
    const got = (await records()).map((r) => `${r.action} ${r.outcome} ${r.route} ${r.metadata?.status}`);
    assert.deepEqual(got, [
      "admin.request success /admin/insight 200",
      "admin.request success /admin/insight/{method}/{*route} 200",
      "admin.request success /admin/replays 200",
      "admin.request failure /admin/replays/{id} 404",
    ]);
  });
});

describe("refused admin requests are rate-limited per client", () => {
  it("answers 429 with Retry-After past the burst, audits only the first refusals, and a summary counts the rest", async () => {
    const { app, records } = build({ burst: 5, perMinute: 1 });
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<App["inject"]>> | null = null;
    for (let i = 0; i < 40; i++) {
      const r = await app.inject({ url: "/admin/insight", headers: { authorization: "Bearer wrong" }, remoteAddress: "198.51.100.7" });
      statuses.push(r.status);
      if (r.status === 429) limited = r;
    }
    assert.deepEqual(statuses, [...Array(5).fill(401), ...Array(35).fill(429)]);
    assert.ok(limited !== null);
    assert.equal(limited.json<{ error: { type: string } }>().error.type, "rate_limit_exceeded");
    assert.match(String(limited.headers["retry-after"]), /^[1-9]\d*$/);
    // The operator is not locked out by whoever shares the address, and other clients are not limited.
    assert.equal((await app.inject({ url: "/admin/insight", headers: AUTH, remoteAddress: "198.51.100.7" })).status, 200);
    assert.equal((await app.inject({ url: "/admin/insight", headers: { authorization: "Bearer wrong" }, remoteAddress: "198.51.100.8" })).status, 401);
    // Each feature's admin routes have their own limit (bounded all the same: a burst per feature).
    assert.equal((await app.inject({ url: "/admin/replays", headers: { authorization: "Bearer wrong" }, remoteAddress: "198.51.100.9" })).status, 401);
    const before = await records();
    assert.equal(before.filter((r) => r.action === "auth.failed").length, 7, "5 from the first client, 1 each from the others");
    assert.equal(before.length, 8, "plus the admin's own request; no record per 429");
    await app.runShutdownHooks();
    const summary = (await records()).filter((r) => r.action === "admin.refusals_suppressed");
    assert.equal(summary.length, 1);
    assert.equal(summary[0]!.client_address, "198.51.100.7");
    assert.equal(summary[0]!.outcome, "denied");
    assert.equal(summary[0]!.metadata.count, 35);
  });

  it("refusalLimit: false keeps answering 401 and auditing each", async () => {
    const { app, records } = build(false);
    for (let i = 0; i < 30; i++) assert.equal((await app.inject({ url: "/admin/insight", headers: { authorization: "Bearer wrong" } })).status, 401);
    assert.equal((await records()).length, 30);
  });
});
