// The sample's gRPC service with the real @grpc/grpc-js client (installed on demand): GetUser over
// the same user table as GET /users/{id}, ListUsers streaming every user, errors as gRPC codes,
// grpc.health.v1 answering SERVING, and the server drained with the app.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { ListeningServer } from "../../lib/index.js";
import { HEALTH_PROTO_SOURCE } from "../../lib/grpc/index.js";
import { createSampleApp, USERS_PROTO, UserStore } from "../../lib/sample/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { send } from "../support/http.js";
import { grpc, grpcPeersSkip, protoLoader } from "../support/grpc-peers.js";

type Any = any;
const skip = grpcPeersSkip;

function unary(client: Any, method: string, request: object): Promise<{ value?: Any; error?: Any }> {
  return new Promise((resolve) => client[method](request, (error: Any, value: Any) => resolve(error ? { error } : { value })));
}

function stream(client: Any, method: string, request: object): Promise<Any[]> {
  return new Promise((resolve, reject) => {
    const out: Any[] = [];
    const call = client[method](request);
    call.on("data", (m: Any) => out.push(m));
    call.on("end", () => resolve(out));
    call.on("error", reject);
  });
}

describe("sample gRPC service users.v1.Users", { skip }, () => {
  let server: ListeningServer;
  let users: Any;
  let health: Any;
  let dir = "";
  const logger = captureLogger(30);
  const store = new UserStore(Array.from({ length: 45 }, (_, i) => `user${i + 1}@example.com`));
  before(async () => {
    server = await createSampleApp({ logger, env: "development", users: store, grpc: { port: 0, host: "127.0.0.1" } }).listen({ port: 0 });
    let url: string | undefined;
    for (let i = 0; i < 200 && url === undefined; i++) {
      url = logger.records.find((r) => r.msg === "grpc listening")?.fields["url"] as string | undefined;
      if (url === undefined) await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(url, "the gRPC server logged where it listens");
    dir = mkdtempSync(join(tmpdir(), "keel-sample-grpc-"));
    writeFileSync(join(dir, "users.proto"), USERS_PROTO);
    writeFileSync(join(dir, "health.proto"), HEALTH_PROTO_SOURCE);
    const opts = { longs: String, enums: String, defaults: true, oneofs: true };
    const target = url.replace(/^http:\/\//, "");
    users = new (grpc.loadPackageDefinition(protoLoader.loadSync(join(dir, "users.proto"), opts)).users.v1.Users)(target, grpc.credentials.createInsecure());
    health = new (grpc.loadPackageDefinition(protoLoader.loadSync(join(dir, "health.proto"), opts)).grpc.health.v1.Health)(target, grpc.credentials.createInsecure());
  });
  after(async () => {
    users?.close();
    health?.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("GetUser answers from the same table as GET /users/{id}", async () => {
    const r = await unary(users, "GetUser", { id: "7" });
    assert.deepEqual(r.value, { id: "7", email: "user7@example.com" });
    const http = JSON.parse((await send(server.url + "/users/7")).body) as { id: number; email: string };
    assert.deepEqual({ id: String(http.id), email: http.email }, r.value);
  });

  it("maps errors to gRPC codes: NOT_FOUND, INVALID_ARGUMENT", async () => {
    const missing = await unary(users, "GetUser", { id: "999" });
    assert.equal(missing.error?.code, grpc.status.NOT_FOUND);
    assert.match(String(missing.error?.details), /user 999 not found/);
    const zero = await unary(users, "GetUser", { id: "0" });
    assert.equal(zero.error?.code, grpc.status.INVALID_ARGUMENT);
  });

  it("ListUsers streams every user in id order, across pages", async () => {
    const all = await stream(users, "ListUsers", { pageSize: 10 });
    assert.equal(all.length, 45);
    assert.deepEqual(all.map((u: Any) => Number(u.id)), Array.from({ length: 45 }, (_, i) => i + 1));
    const tail = await stream(users, "ListUsers", { pageSize: 0, afterId: "40" });
    assert.deepEqual(tail.map((u: Any) => u.email), ["user41@example.com", "user42@example.com", "user43@example.com", "user44@example.com", "user45@example.com"]);
    await assert.rejects(stream(users, "ListUsers", { pageSize: 101 }), (err: Any) => err.code === grpc.status.INVALID_ARGUMENT);
  });

  it("grpc.health.v1 says SERVING for the service and overall", async () => {
    for (const service of ["", "users.v1.Users"]) {
      const r = await unary(health, "Check", { service });
      assert.equal(r.value?.status, "SERVING", service);
    }
  });
});
