// grpc.health.v1.Health served by keel, checked with grpc-js (installed on demand into
// .tmp/test-peers; skipped visibly without it): Check, Watch with live updates, unknown
// services, and the flip to NOT_SERVING when close() begins.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { silentLogger } from "../../lib/index.js";
import {
  GrpcStatus, grpcServer, HEALTH_PROTO_SOURCE, healthService, healthServiceDescriptor, type GrpcListeningServer, type HealthService,
} from "../../lib/grpc/index.js";
import { grpc, grpcPeersSkip, protoLoader } from "../support/grpc-peers.js";

type Any = any;
const skip = grpcPeersSkip;

function healthClientClass(): Any {
  const path = join(mkdtempSync(join(tmpdir(), "keel-health-")), "health.proto");
  writeFileSync(path, HEALTH_PROTO_SOURCE);
  const def = protoLoader.loadSync(path, { longs: String, enums: String, defaults: true, oneofs: true });
  return grpc.loadPackageDefinition(def).grpc.health.v1.Health;
}

function check(client: Any, service: string): Promise<{ status?: string; code: number }> {
  return new Promise((resolve) => {
    client.Check({ service }, (err: Any, res: Any) => resolve(err ? { code: err.code } : { code: 0, status: res.status }));
  });
}

/** A Watch stream whose updates can be awaited one at a time. */
function watch(client: Any, service: string): { next(): Promise<string>; status: Promise<Any>; cancel(): void } {
  const call = client.Watch({ service });
  const queue: string[] = [];
  const waiters: Array<(s: string) => void> = [];
  call.on("data", (m: Any) => {
    const w = waiters.shift();
    if (w) w(m.status);
    else queue.push(m.status);
  });
  call.on("error", () => {});
  const status = new Promise<Any>((resolve) => call.on("status", resolve));
  return {
    next: () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((resolve) => waiters.push(resolve))),
    status,
    cancel: () => call.cancel(),
  };
}

describe("healthService() without a server", () => {
  it("is the grpc.health.v1.Health service, parsed from the embedded .proto", () => {
    const service = healthServiceDescriptor();
    assert.equal(service.fullName, "grpc.health.v1.Health");
    assert.deepEqual(service.methods.map((m) => [m.path, m.responseStream]), [
      ["/grpc.health.v1.Health/Check", false],
      ["/grpc.health.v1.Health/Watch", true],
    ]);
  });

  it("the overall entry defaults to SERVING; statuses are checked", () => {
    const health = healthService({ "a.v1.A": "NOT_SERVING" });
    assert.equal(health.getStatus(""), "SERVING");
    assert.equal(health.getStatus("a.v1.A"), "NOT_SERVING");
    assert.equal(healthService({ "": "NOT_SERVING" }).getStatus(""), "NOT_SERVING");
    assert.throws(() => health.setStatus("a.v1.A", "UNKNOWN" as never), TypeError);
  });
});

describe("health service with grpc-js", { skip, timeout: 30_000 }, () => {
  let health: HealthService;
  let listening: GrpcListeningServer;
  let client: Any;

  before(async () => {
    health = healthService({ "users.v1.Users": "SERVING" });
    listening = await grpcServer({ logger: silentLogger }).addService(health).listen({ port: 0 });
    client = new (healthClientClass())(`127.0.0.1:${listening.port}`, grpc.credentials.createInsecure());
  });
  after(async () => {
    client?.close();
    await listening?.close();
  });

  it("Check: the overall status, a named service, an unknown one (NOT_FOUND)", async () => {
    assert.deepEqual(await check(client, ""), { code: 0, status: "SERVING" });
    assert.deepEqual(await check(client, "users.v1.Users"), { code: 0, status: "SERVING" });
    assert.equal((await check(client, "nope.v1.Nope")).code, GrpcStatus.NOT_FOUND);
  });

  it("Check follows setStatus", async () => {
    health.setStatus("users.v1.Users", "NOT_SERVING");
    assert.deepEqual(await check(client, "users.v1.Users"), { code: 0, status: "NOT_SERVING" });
    health.setStatus("users.v1.Users", "SERVING");
    assert.deepEqual(await check(client, "users.v1.Users"), { code: 0, status: "SERVING" });
  });

  it("Watch: the current status, then each change (not repeats)", async () => {
    const w = watch(client, "users.v1.Users");
    assert.equal(await w.next(), "SERVING");
    health.setStatus("users.v1.Users", "SERVING"); // no change: nothing sent
    health.setStatus("users.v1.Users", "NOT_SERVING");
    assert.equal(await w.next(), "NOT_SERVING");
    health.setStatus("users.v1.Users", "SERVING");
    assert.equal(await w.next(), "SERVING");
    w.cancel();
    assert.equal((await w.status).code, GrpcStatus.CANCELLED);
  });

  it("Watch on an unknown service: SERVICE_UNKNOWN, then its status once set", async () => {
    const w = watch(client, "later.v1.Later");
    assert.equal(await w.next(), "SERVICE_UNKNOWN");
    health.setStatus("later.v1.Later", "SERVING");
    assert.equal(await w.next(), "SERVING");
    w.cancel();
  });
});

describe("health service on close()", { skip, timeout: 30_000 }, () => {
  it("everything turns NOT_SERVING first; watchers get it and their streams end", async () => {
    const health = healthService({ "users.v1.Users": "SERVING" });
    const listening = await grpcServer({ logger: silentLogger }).addService(health).listen({ port: 0 });
    const client = new (healthClientClass())(`127.0.0.1:${listening.port}`, grpc.credentials.createInsecure());
    try {
      const overall = watch(client, "");
      const users = watch(client, "users.v1.Users");
      assert.equal(await overall.next(), "SERVING");
      assert.equal(await users.next(), "SERVING");
      const closed = listening.close();
      assert.equal(health.getStatus(""), "NOT_SERVING");
      assert.equal(health.getStatus("users.v1.Users"), "NOT_SERVING");
      assert.equal(await overall.next(), "NOT_SERVING");
      assert.equal(await users.next(), "NOT_SERVING");
      assert.equal((await overall.status).code, GrpcStatus.OK);
      assert.equal((await users.status).code, GrpcStatus.OK);
      health.setStatus("", "SERVING"); // ignored after shutdown began
      assert.equal(health.getStatus(""), "NOT_SERVING");
      await closed;
    } finally {
      client.close();
    }
  });
});
