// The sample in Redis mode: Redis is a critical dependency (issue 32's decision), so /ready is
// 503 while Redis fails and 200 again once it is back; /live stays 200 throughout. Why the check
// fails ("Redis at 127.0.0.1:<port> ... ECONNREFUSED") is shown only to the bearer of the admin
// token (KEEL_ADMIN_TOKEN); anyone else sees the check's name, status and a generic reason.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { App, InjectResponse } from "../../lib/index.js";
import { redisClient, type RedisClient } from "../../lib/redis/index.js";
import { production } from "../../lib/service/index.js";
import { createSampleApp } from "../../lib/sample/index.js";
import { startRedis, type RedisServerHandle } from "../support/redis-server.js";

const ADMIN_TOKEN = "sample-admin-token-0123456789";
const AS_ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface Checks {
  status: string;
  checks: Record<string, { status: string; error?: string }>;
}

const body = (r: InjectResponse): Checks => r.json<Checks>();

/** Injects `url` until `accept` holds (bounded): the client notices a dead or revived server a moment later. */
async function until(app: App, url: string, accept: (r: InjectResponse) => boolean): Promise<InjectResponse> {
  let r = await app.inject({ url });
  for (let i = 0; i < 500 && !accept(r); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    r = await app.inject({ url });
  }
  return r;
}

describe("the sample's readiness in Redis mode", () => {
  let server: RedisServerHandle | null = null;
  let client: RedisClient | null = null;
  after(async () => {
    await client?.close();
    await server?.stop();
  });

  it("/ready is 503 while Redis fails and 200 once it is back; the address only with the admin token", async (t) => {
    server = await startRedis({ appendonly: false });
    if (server === null) return t.skip("redis-server not installed");
    client = redisClient({ url: server.url, connectTimeoutMs: 300, commandTimeoutMs: 500, reconnect: { baseMs: 20, maxMs: 100 } });
    await client.connect();
    const prod = production({ service: "keel-sample", level: "silent", checkCacheMs: 0 });
    const app = createSampleApp({ env: "development", redis: client, production: prod, adminToken: ADMIN_TOKEN });

    const up = await app.inject({ url: "/ready" });
    assert.equal(up.status, 200, up.body);
    assert.equal(body(up).checks["redis"]?.status, "ok");

    server.kill();
    const down = await until(app, "/ready", (r) => r.status === 503);
    assert.equal(down.status, 503, down.body);
    assert.equal(body(down).status, "unready");
    assert.deepEqual(body(down).checks["redis"], { ...body(down).checks["redis"], status: "fail", error: "check failed" });
    const port = String(server.port);
    const health = await app.inject({ url: "/health" });
    assert.equal(health.status, 503);
    for (const r of [down, health]) {
      assert.ok(!r.body.includes(port) && !r.body.includes("127.0.0.1") && !r.body.includes("ECONNREFUSED"), `no internal address without the token: ${r.body}`);
    }
    const admin = await app.inject({ url: "/ready", headers: AS_ADMIN });
    assert.equal(admin.status, 503);
    assert.match(body(admin).checks["redis"]?.error ?? "", new RegExp(`127\\.0\\.0\\.1:${port}`), admin.body);
    const adminHealth = await app.inject({ url: "/health", headers: AS_ADMIN });
    assert.match(adminHealth.body, new RegExp(`127\\.0\\.0\\.1:${port}`));
    assert.equal((await app.inject({ url: "/live" })).status, 200, "liveness is not readiness");

    await server.restart();
    const back = await until(app, "/ready", (r) => r.status === 200);
    assert.equal(back.status, 200, back.body);
    assert.equal(body(back).checks["redis"]?.status, "ok");
  });
});
