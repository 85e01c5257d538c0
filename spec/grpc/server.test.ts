// keel's gRPC server against the real @grpc/grpc-js client (installed on demand into
// .tmp/test-peers; without npm or a network these tests are skipped, visibly): the four call
// shapes, metadata both ways, the error mapping, deadlines, cancellation, limits, gzip, graceful
// close. Then hand-built frames over a raw node:http2 client for what grpc-js never sends.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ApiError, silentLogger } from "../../lib/index.js";
import { mapDatabaseError } from "../../lib/db-errors/index.js";
import {
  GrpcError, GrpcStatus, grpcServer, loadProtoFile, parseGrpcTimeout, loadProtoSource, type DecodedMessage, type GrpcCall, type GrpcListeningServer,
  type GrpcServer, type GrpcServerOptions, type ProtoRoot,
} from "../../lib/grpc/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { grpc, grpcPeersSkip, protoLoader } from "../support/grpc-peers.js";
import { selfSignedCertificate } from "../support/test-certificate.js";

const USERS_PROTO = fileURLToPath(new URL("./fixtures/users.proto", import.meta.url));
// Client streaming, bidi, a call that waits for its signal, and bytes for the size limits.
const STREAMS_SOURCE = `
syntax = "proto3";
package test.v1;
message Num { int32 value = 1; }
message Total { int32 sum = 1; int32 count = 2; }
message Blob { bytes data = 1; }
service Streams {
  rpc Sum(stream Num) returns (Total);
  rpc Chat(stream Num) returns (stream Num);
  rpc Wait(Num) returns (Num);
  rpc Echo(Blob) returns (Blob);
  rpc Missing(Num) returns (Num);
}
`;
const streamsProtoPath = join(mkdtempSync(join(tmpdir(), "keel-grpc-")), "streams.proto");
writeFileSync(streamsProtoPath, STREAMS_SOURCE);

const users: ProtoRoot = loadProtoFile(USERS_PROTO);
const streams: ProtoRoot = loadProtoSource(STREAMS_SOURCE, "streams.proto");
const UsersService = users.services.get("users.v1.Users")!;
const StreamsService = streams.services.get("test.v1.Streams")!;

// ---- grpc-js, loaded from the test-peer directory -------------------------------------------
type Any = any;
const skip = grpcPeersSkip;

function clientClasses(): { Users: Any; Streams: Any; Health: Any } {
  const opts = { longs: String, enums: String, defaults: true, oneofs: true };
  const u = grpc.loadPackageDefinition(protoLoader.loadSync(USERS_PROTO, opts));
  const s = grpc.loadPackageDefinition(protoLoader.loadSync(streamsProtoPath, opts));
  return { Users: u.users.v1.Users, Streams: s.test.v1.Streams, Health: undefined };
}

interface UnaryResult {
  value?: Any;
  error?: Any;
  headers?: Any;
  trailers?: Any;
}

/** A unary call as one promise: the value or the error, and both metadata sets. */
function unary(client: Any, method: string, request: unknown, metadata?: Any, options: Record<string, unknown> = {}): Promise<UnaryResult> {
  return new Promise((resolve) => {
    const out: UnaryResult = {};
    let pending = 2;
    const settle = (): void => {
      if (--pending === 0) resolve(out);
    };
    const call = client[method](request, metadata ?? new grpc.Metadata(), options, (error: Any, value: Any) => {
      if (error) out.error = error;
      else out.value = value;
      settle();
    });
    call.on("metadata", (m: Any) => (out.headers = m));
    call.on("status", (s: Any) => {
      out.trailers = s.metadata;
      settle();
    });
  });
}

/** Every message of a server stream, then its status. */
function collectStream(call: Any): Promise<{ messages: Any[]; status: Any; error?: Any }> {
  return new Promise((resolve) => {
    const messages: Any[] = [];
    let error: Any;
    call.on("data", (m: Any) => messages.push(m));
    call.on("error", (e: Any) => (error = e));
    call.on("status", (status: Any) => setImmediate(() => resolve({ messages, status, error })));
  });
}

/** A promise and its resolve function. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function waitForAbort(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener("abort", () => resolve(signal.reason), { once: true });
  });
}

// ---- the services under test -----------------------------------------------------------------
interface Observed {
  metadata?: GrpcCall["metadata"];
  waitStarted: ReturnType<typeof deferred<GrpcCall>>;
  waitAborted: ReturnType<typeof deferred<unknown>>;
}

function newObserved(): Observed {
  return { waitStarted: deferred<GrpcCall>(), waitAborted: deferred<unknown>() };
}

// id → what GetUser throws, for the error mapping.
const API_ERRORS: Array<[number, number]> = [
  [400, GrpcStatus.INVALID_ARGUMENT], [422, GrpcStatus.INVALID_ARGUMENT], [401, GrpcStatus.UNAUTHENTICATED],
  [403, GrpcStatus.PERMISSION_DENIED], [404, GrpcStatus.NOT_FOUND], [409, GrpcStatus.ALREADY_EXISTS],
  [412, GrpcStatus.FAILED_PRECONDITION], [429, GrpcStatus.RESOURCE_EXHAUSTED], [499, GrpcStatus.CANCELLED],
  [501, GrpcStatus.UNIMPLEMENTED], [503, GrpcStatus.UNAVAILABLE], [504, GrpcStatus.DEADLINE_EXCEEDED],
  [408, GrpcStatus.DEADLINE_EXCEEDED], [413, GrpcStatus.RESOURCE_EXHAUSTED], [418, GrpcStatus.UNKNOWN],
  [500, GrpcStatus.INTERNAL], [502, GrpcStatus.INTERNAL],
];

function buildServer(observed: Observed, options: GrpcServerOptions = {}): GrpcServer {
  return grpcServer({ logger: silentLogger, ...options })
    .addService(UsersService, {
      GetUser(request: DecodedMessage, call: GrpcCall) {
        const id = String(request["id"]);
        observed.metadata = call.metadata;
        if (id.startsWith("status-")) {
          const status = Number(id.slice(7));
          throw new ApiError(status, "some_type", `failure ${status} for ü 100%`);
        }
        if (id === "boom") throw new Error("secret database detail");
        if (id === "duplicate") throw Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505", severity: "ERROR" });
        if (id === "grpc") throw new GrpcError(GrpcStatus.ABORTED, "try again", { "x-reason": "conflict", "x-blob-bin": Buffer.from([9, 8, 7]) });
        if (id === "echo-metadata") {
          call.sendMetadata({ "x-seen": String(call.metadata["x-token"]), "x-echo-bin": call.metadata["x-trace-bin"] as Buffer });
          call.setTrailer("x-trailer", "done");
          call.setTrailer("x-trailer-bin", Buffer.from([0, 255]));
        }
        if (id === "bad-response") return { id: 42 };
        return { id, name: `user ${id}`, email: `${id}@example.com`, createdAt: "1700000000000" };
      },
      async *ListUsers(request: DecodedMessage) {
        const n = Number(request["pageSize"]);
        for (let i = 1; i <= n; i++) yield { id: String(i), name: `user ${i}` };
        if (request["pageToken"] === "fail-after") throw ApiError.notFound("no more pages");
      },
    })
    .addService(StreamsService, {
      async Sum(requests: AsyncIterable<DecodedMessage>) {
        let sum = 0;
        let count = 0;
        for await (const r of requests) {
          if (Number(r["value"]) < 0) throw ApiError.badRequest("negative value");
          sum += Number(r["value"]);
          count++;
        }
        return { sum, count };
      },
      async *Chat(requests: AsyncIterable<DecodedMessage>) {
        for await (const r of requests) {
          if (Number(r["value"]) < 0) throw ApiError.badRequest("negative value");
          yield { value: Number(r["value"]) * 2 };
        }
      },
      async Wait(request: DecodedMessage, call: GrpcCall) {
        observed.waitStarted.resolve(call);
        if (request["value"] === 1) {
          // Finishes on its own (graceful close lets it).
          await new Promise((r) => setTimeout(r, 50));
          return { value: 1 };
        }
        const reason = await waitForAbort(call.signal);
        observed.waitAborted.resolve(reason);
        return { value: -1 };
      },
      Echo(request: DecodedMessage) {
        return { data: request["data"] };
      },
    });
}

// ---- tests with grpc-js ----------------------------------------------------------------------
describe("grpc server with the grpc-js client", { skip, timeout: 30_000 }, () => {
  let observed: Observed;
  let listening: GrpcListeningServer;
  let Users: Any;
  let Streams: Any;
  let usersClient: Any;
  let streamsClient: Any;

  before(async () => {
    ({ Users, Streams } = clientClasses());
    observed = newObserved();
    listening = await buildServer(observed).listen({ port: 0 });
    const target = `127.0.0.1:${listening.port}`;
    usersClient = new Users(target, grpc.credentials.createInsecure());
    streamsClient = new Streams(target, grpc.credentials.createInsecure());
  });
  after(async () => {
    usersClient?.close();
    streamsClient?.close();
    await listening?.close();
  });

  it("listen() gives the port and an http:// url", () => {
    assert.ok(listening.port > 0);
    assert.equal(listening.url, `http://127.0.0.1:${listening.port}`);
  });

  it("unary: request decoded, response encoded (int64 as a string)", async () => {
    const r = await unary(usersClient, "GetUser", { id: "7" });
    assert.equal(r.error, undefined);
    assert.deepEqual(r.value, { id: "7", name: "user 7", email: "7@example.com", createdAt: "1700000000000" });
  });

  it("metadata both ways: text and -bin in, initial metadata and trailers out", async () => {
    const md = new grpc.Metadata();
    md.set("x-token", "abc123");
    md.set("x-trace-bin", Buffer.from([0, 1, 2, 255]));
    const r = await unary(usersClient, "GetUser", { id: "echo-metadata" }, md);
    assert.equal(r.error, undefined);
    const seen = observed.metadata!;
    assert.equal(Object.getPrototypeOf(seen), null);
    assert.equal(seen["x-token"], "abc123");
    assert.deepEqual(seen["x-trace-bin"], Buffer.from([0, 1, 2, 255]));
    assert.equal(seen["grpc-timeout"], undefined);
    assert.equal(seen["content-type"], undefined);
    assert.deepEqual(r.headers.get("x-seen"), ["abc123"]);
    assert.deepEqual(r.headers.get("x-echo-bin"), [Buffer.from([0, 1, 2, 255])]);
    assert.deepEqual(r.trailers.get("x-trailer"), ["done"]);
    assert.deepEqual(r.trailers.get("x-trailer-bin"), [Buffer.from([0, 255])]);
  });

  it("server streaming: every yielded message in order, then OK", async () => {
    const result = await collectStream(usersClient.ListUsers({ pageSize: 3 }));
    assert.equal(result.status.code, GrpcStatus.OK);
    assert.deepEqual(result.messages.map((m: Any) => m.id), ["1", "2", "3"]);
  });

  it("server streaming: an error after messages arrives as the status after them", async () => {
    const result = await collectStream(usersClient.ListUsers({ pageSize: 2, pageToken: "fail-after" }));
    assert.deepEqual(result.messages.map((m: Any) => m.id), ["1", "2"]);
    assert.equal(result.status.code, GrpcStatus.NOT_FOUND);
    assert.equal(result.status.details, "no more pages");
  });

  it("client streaming: the handler iterates every request message", async () => {
    const value = await new Promise<Any>((resolve, reject) => {
      const call = streamsClient.Sum((err: Any, v: Any) => (err ? reject(err) : resolve(v)));
      for (const n of [1, 2, 3, 4, 5]) call.write({ value: n });
      call.end();
    });
    assert.deepEqual(value, { sum: 15, count: 5 });
  });

  it("client streaming with no messages: the iterable is just empty", async () => {
    const value = await new Promise<Any>((resolve, reject) => {
      const call = streamsClient.Sum((err: Any, v: Any) => (err ? reject(err) : resolve(v)));
      call.end();
    });
    assert.deepEqual(value, { sum: 0, count: 0 });
  });

  it("bidi: each response goes out before the next request is sent", async () => {
    const call = streamsClient.Chat();
    const replies: number[] = [];
    const next = (): Promise<number> => new Promise((resolve) => call.once("data", (m: Any) => resolve(m.value)));
    for (const n of [1, 2, 3]) {
      const reply = next();
      call.write({ value: n });
      replies.push(await reply);
    }
    const status = new Promise<Any>((resolve) => call.on("status", resolve));
    call.end();
    assert.deepEqual(replies, [2, 4, 6]);
    assert.equal((await status).code, GrpcStatus.OK);
  });

  for (const [httpStatus, code] of API_ERRORS) {
    it(`ApiError ${httpStatus} → ${code}`, async () => {
      const r = await unary(usersClient, "GetUser", { id: `status-${httpStatus}` });
      assert.equal(r.error?.code, code);
      // Not production: the message goes through, percent-encoded on the wire and decoded by grpc-js.
      assert.equal(r.error.details, `failure ${httpStatus} for ü 100%`);
      const errorId = r.trailers.get("error-id");
      if (httpStatus >= 500) assert.match(String(errorId[0]), /^err_[0-9a-f]{32}$/);
      else assert.deepEqual(errorId, []);
    });
  }

  it("a thrown non-ApiError is INTERNAL with a generic message, never its own", async () => {
    const r = await unary(usersClient, "GetUser", { id: "boom" });
    assert.equal(r.error?.code, GrpcStatus.INTERNAL);
    assert.equal(r.error.details, "Internal server error");
  });

  it("GrpcError keeps its code, message and trailing metadata", async () => {
    const r = await unary(usersClient, "GetUser", { id: "grpc" });
    assert.equal(r.error?.code, GrpcStatus.ABORTED);
    assert.equal(r.error.details, "try again");
    assert.deepEqual(r.trailers.get("x-reason"), ["conflict"]);
    assert.deepEqual(r.trailers.get("x-blob-bin"), [Buffer.from([9, 8, 7])]);
  });

  it("a response that does not fit its type is INTERNAL", async () => {
    const r = await unary(usersClient, "GetUser", { id: "bad-response" });
    assert.equal(r.error?.code, GrpcStatus.INTERNAL);
  });

  it("a method the server does not know → UNIMPLEMENTED", async () => {
    const Unknown = grpc.makeGenericClientConstructor({
      Nope: { path: "/users.v1.Users/Nope", requestStream: false, responseStream: false, requestSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b },
    });
    const client = new Unknown(`127.0.0.1:${listening.port}`, grpc.credentials.createInsecure());
    try {
      const r = await unary(client, "Nope", Buffer.alloc(0));
      assert.equal(r.error?.code, GrpcStatus.UNIMPLEMENTED);
      assert.match(r.error.details, /\/users\.v1\.Users\/Nope/);
    } finally {
      client.close();
    }
  });

  it("a method of the service with no handler → UNIMPLEMENTED", async () => {
    const r = await unary(streamsClient, "Missing", { value: 1 });
    assert.equal(r.error?.code, GrpcStatus.UNIMPLEMENTED);
  });

  it("client deadline of 100 ms: DEADLINE_EXCEEDED, and the handler's signal aborts", async () => {
    observed.waitStarted = deferred<GrpcCall>();
    observed.waitAborted = deferred<unknown>();
    const r = await unary(streamsClient, "Wait", { value: 0 }, undefined, { deadline: new Date(Date.now() + 100) });
    assert.equal(r.error?.code, GrpcStatus.DEADLINE_EXCEEDED);
    const call = await observed.waitStarted.promise;
    assert.ok(call.deadline instanceof Date);
    const reason = await observed.waitAborted.promise;
    assert.ok(reason instanceof GrpcError);
    // The client and the server both time the deadline; whichever fires first ends the call.
    assert.ok(reason.code === GrpcStatus.DEADLINE_EXCEEDED || reason.code === GrpcStatus.CANCELLED, String(reason.code));
    assert.ok(call.signal.aborted);
  });

  it("a client cancel aborts the handler's signal with CANCELLED", async () => {
    observed.waitStarted = deferred<GrpcCall>();
    observed.waitAborted = deferred<unknown>();
    const pending = new Promise<Any>((resolve) => {
      const c = streamsClient.Wait({ value: 0 }, (err: Any) => resolve(err));
      void observed.waitStarted.promise.then((serverCall) => {
        assert.equal(serverCall.deadline, null);
        assert.match(serverCall.peer, /^127\.0\.0\.1:\d+$/);
        c.cancel();
      });
    });
    assert.equal((await pending)?.code, GrpcStatus.CANCELLED);
    const reason = await observed.waitAborted.promise;
    assert.ok(reason instanceof GrpcError);
    assert.equal(reason.code, GrpcStatus.CANCELLED);
  });

  it("default receive limit: 4 MiB passes, 4 MiB + 1 is RESOURCE_EXHAUSTED", async () => {
    // Blob framing: 1 tag byte + 4 varint length bytes + the data.
    const atLimit = await unary(streamsClient, "Echo", { data: Buffer.alloc(4 * 1024 * 1024 - 5, 1) });
    assert.equal(atLimit.error, undefined);
    assert.equal(atLimit.value.data.length, 4 * 1024 * 1024 - 5);
    const over = await unary(streamsClient, "Echo", { data: Buffer.alloc(4 * 1024 * 1024 - 4, 1) });
    assert.equal(over.error?.code, GrpcStatus.RESOURCE_EXHAUSTED);
  });
});

describe("grpc server limits and compression with grpc-js", { skip, timeout: 30_000 }, () => {
  let listening: GrpcListeningServer;
  let Streams: Any;
  before(async () => {
    ({ Streams } = clientClasses());
    listening = await buildServer(newObserved(), { maxReceiveMessageLength: 1024 }).listen({ port: 0 });
  });
  after(() => listening?.close());

  const echo = async (size: number, options: Record<string, unknown> = {}): Promise<UnaryResult> => {
    const client = new Streams(`127.0.0.1:${listening.port}`, grpc.credentials.createInsecure(), options);
    try {
      return await unary(client, "Echo", { data: Buffer.alloc(size, 97) });
    } finally {
      client.close();
    }
  };

  it("maxReceiveMessageLength: a message of exactly the limit passes, one byte more fails", async () => {
    // 1 tag byte + 2 varint length bytes + data: 1021 bytes of data is 1024 on the wire.
    assert.equal((await echo(1021)).error, undefined);
    const over = await echo(1022);
    assert.equal(over.error?.code, GrpcStatus.RESOURCE_EXHAUSTED);
    assert.match(over.error.details, /1025 vs\. 1024/);
  });

  it("gzip requests (grpc.default_compression_algorithm: 2) are inflated, bounded by the limit", async () => {
    const gzip = { "grpc.default_compression_algorithm": 2 };
    const ok = await echo(1021, gzip);
    assert.equal(ok.error, undefined);
    assert.equal(ok.value.data.toString(), "a".repeat(1021));
    // Compressed it is tiny; only the inflated size can exceed the limit.
    const over = await echo(1022, gzip);
    assert.equal(over.error?.code, GrpcStatus.RESOURCE_EXHAUSTED);
    assert.match(over.error.details, /decompresses to a size larger than 1024/);
  });
});

describe("grpc server in production", { skip, timeout: 30_000 }, () => {
  const logger = captureLogger();
  let listening: GrpcListeningServer;
  let client: Any;
  before(async () => {
    const { Users } = clientClasses();
    listening = await buildServer(newObserved(), { env: "production", logger }).listen({ port: 0 });
    client = new Users(`127.0.0.1:${listening.port}`, grpc.credentials.createInsecure());
  });
  after(async () => {
    client?.close();
    await listening?.close();
  });

  it("masks an unhandled error as INTERNAL; the detail is logged with the error_id sent in trailers", async () => {
    const r = await unary(client, "GetUser", { id: "boom" });
    assert.equal(r.error?.code, GrpcStatus.INTERNAL);
    assert.equal(r.error.details, "An internal error occurred");
    const errorId = String(r.trailers.get("error-id")[0]);
    const record = logger.records.find((l) => l.fields["error_id"] === errorId);
    assert.ok(record, "logged with the same error_id");
    assert.equal(record.level, 50);
    assert.equal(record.fields["method"], "/users.v1.Users/GetUser");
    assert.equal(record.fields["detail"], "secret database detail");
  });

  it("library errors map only through the server's errorMappers: a unique violation is ALREADY_EXISTS with them, INTERNAL without", async () => {
    const { Users } = clientClasses();
    const mapping = await buildServer(newObserved(), { errorMappers: [mapDatabaseError] }).listen({ port: 0 });
    const mappingClient = new Users(`127.0.0.1:${mapping.port}`, grpc.credentials.createInsecure());
    try {
      const mapped = await unary(mappingClient, "GetUser", { id: "duplicate" });
      assert.equal(mapped.error?.code, GrpcStatus.ALREADY_EXISTS);
      const unmapped = await unary(client, "GetUser", { id: "duplicate" });
      assert.equal(unmapped.error?.code, GrpcStatus.INTERNAL);
    } finally {
      mappingClient.close();
      await mapping.close();
    }
  });

  it("masks ApiError 5xx messages; 4xx messages stay", async () => {
    const unavailable = await unary(client, "GetUser", { id: "status-503" });
    assert.equal(unavailable.error?.code, GrpcStatus.UNAVAILABLE);
    assert.equal(unavailable.error.details, "An internal error occurred");
    const notFound = await unary(client, "GetUser", { id: "status-404" });
    assert.equal(notFound.error?.code, GrpcStatus.NOT_FOUND);
    assert.equal(notFound.error.details, "failure 404 for ü 100%");
  });
});

describe("grpc server graceful close with grpc-js", { skip, timeout: 30_000 }, () => {
  it("an in-flight call finishes OK; calls after close() are UNAVAILABLE", async () => {
    const { Streams } = clientClasses();
    const observed = newObserved();
    const listening = await buildServer(observed).listen({ port: 0 });
    const target = `127.0.0.1:${listening.port}`;
    const client = new Streams(target, grpc.credentials.createInsecure());
    try {
      const inFlight = unary(client, "Wait", { value: 1 });
      await observed.waitStarted.promise;
      const closed = listening.close();
      const late = new Streams(target, grpc.credentials.createInsecure());
      const refused = await unary(late, "Wait", { value: 1 });
      late.close();
      assert.equal(refused.error?.code, GrpcStatus.UNAVAILABLE);
      const done = await inFlight;
      assert.equal(done.error, undefined);
      assert.deepEqual(done.value, { value: 1 });
      await closed;
    } finally {
      client.close();
    }
  });

  it("past shutdownTimeout the remaining calls are cancelled: signal aborted, client sees CANCELLED", async () => {
    const { Streams } = clientClasses();
    const observed = newObserved();
    const listening = await buildServer(observed, { shutdownTimeout: 50 }).listen({ port: 0 });
    const client = new Streams(`127.0.0.1:${listening.port}`, grpc.credentials.createInsecure());
    try {
      const stuck = unary(client, "Wait", { value: 0 });
      await observed.waitStarted.promise;
      await listening.close();
      const reason = await observed.waitAborted.promise;
      assert.ok(reason instanceof GrpcError);
      assert.equal(reason.code, GrpcStatus.UNAVAILABLE);
      assert.equal((await stuck).error?.code, GrpcStatus.CANCELLED);
    } finally {
      client.close();
    }
  });
});

describe("grpc server over TLS with grpc-js", { skip, timeout: 30_000 }, () => {
  it("serves calls with listen({ tls }) and an https:// url", async (t) => {
    let key: Buffer;
    let cert: Buffer;
    try {
      const pem = selfSignedCertificate();
      key = Buffer.from(pem.key);
      cert = Buffer.from(pem.cert);
    } catch {
      t.skip("openssl is not available to make a test certificate");
      return;
    }
    const { Users } = clientClasses();
    await assert.rejects(buildServer(newObserved()).listen({ port: 0, tls: { cert } }), TypeError);
    const listening = await buildServer(newObserved()).listen({ port: 0, tls: { key, cert } });
    const client = new Users(`localhost:${listening.port}`, grpc.credentials.createSsl(cert));
    try {
      assert.equal(listening.url, `https://127.0.0.1:${listening.port}`);
      const r = await unary(client, "GetUser", { id: "tls" });
      assert.equal(r.error, undefined);
      assert.equal(r.value.name, "user tls");
    } finally {
      client.close();
      await listening.close();
    }
  });
});

describe("parseGrpcTimeout()", () => {
  it("reads every unit, up to 8 digits", () => {
    assert.equal(parseGrpcTimeout("1H"), 3_600_000);
    assert.equal(parseGrpcTimeout("2M"), 120_000);
    assert.equal(parseGrpcTimeout("5S"), 5000);
    assert.equal(parseGrpcTimeout("100m"), 100);
    assert.equal(parseGrpcTimeout("1500u"), 1.5);
    assert.equal(parseGrpcTimeout("2000000n"), 2);
    assert.equal(parseGrpcTimeout("0m"), 0);
    assert.equal(parseGrpcTimeout("99999999m"), 99_999_999);
    for (const bad of ["123456789m", "", "m", "1", "1h", "1 S", " 1S", "1S ", "+1S", "0x1S"]) assert.equal(parseGrpcTimeout(bad), undefined, bad);
  });
});

describe("grpcServer() registration", () => {
  it("refuses a handler that names no method, a non-function, and a service served twice", () => {
    assert.throws(() => grpcServer({ logger: silentLogger }).addService(UsersService, { GetUsr: () => ({}) }), /has no method "GetUsr"/);
    assert.throws(() => grpcServer({ logger: silentLogger }).addService(UsersService, { GetUser: 1 as never }), TypeError);
    const server = grpcServer({ logger: silentLogger }).addService(UsersService, {});
    assert.throws(() => server.addService(UsersService, {}), /already served/);
  });

  it("refuses bad limits", () => {
    assert.throws(() => grpcServer({ maxReceiveMessageLength: -1 }), RangeError);
    assert.throws(() => grpcServer({ shutdownTimeout: Number.NaN }), RangeError);
  });

  it("takes lower camel case handler names; metadata keys are checked when set", async () => {
    const server = grpcServer({ logger: silentLogger }).addService(UsersService, {
      getUser(_request: DecodedMessage, call: GrpcCall) {
        assert.throws(() => call.setTrailer("Upper", "x"), /lowercase/);
        assert.throws(() => call.setTrailer("grpc-status", "0"), /reserved/);
        assert.throws(() => call.setTrailer("x-buffer", Buffer.from("x")), /-bin/);
        assert.throws(() => call.setTrailer("x-text", "line\nbreak"), /printable/);
        call.sendMetadata({});
        assert.equal(call.metadataSent, true);
        assert.throws(() => call.sendMetadata({}), /already sent/);
        return { id: "camel" };
      },
    });
    const listening = await server.listen({ port: 0 });
    const session = connect(listening.url);
    try {
      const { encode } = await import("../../lib/grpc/index.js");
      const body = frame(encode(users.messages.get("users.v1.GetUserRequest")!, { id: "x" }));
      const r = await rawCall(session, "/users.v1.Users/GetUser", [body]);
      assert.equal(statusOf(r).code, GrpcStatus.OK);
      const streamed = await rawCall(session, "/users.v1.Users/ListUsers", [body]);
      assert.equal(statusOf(streamed).code, GrpcStatus.UNIMPLEMENTED);
    } finally {
      session.close();
      await listening.close();
    }
  });
});

// ---- hand-built frames over node:http2 --------------------------------------------------------
interface RawResponse {
  headers: IncomingHttpHeaders;
  trailers: IncomingHttpHeaders | undefined;
  data: Buffer;
}

function frame(bytes: Uint8Array, compressed = false): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = compressed ? 1 : 0;
  prefix.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([prefix, bytes]);
}

function rawCall(session: ClientHttp2Session, path: string, chunks: Buffer[], headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers", ...headers });
    let responseHeaders: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders | undefined;
    const data: Buffer[] = [];
    req.on("response", (h) => (responseHeaders = h));
    req.on("trailers", (t) => (trailers = t));
    req.on("data", (d: Buffer) => data.push(d));
    req.on("error", reject);
    req.on("close", () => resolve({ headers: responseHeaders, trailers, data: Buffer.concat(data) }));
    // One DATA frame per chunk, each sent on its own tick.
    void (async () => {
      for (const c of chunks) {
        req.write(c);
        await new Promise((r) => setImmediate(r));
      }
      req.end();
    })();
  });
}

/** grpc-status from a trailers-only answer or from the trailers. */
function statusOf(r: RawResponse): { code: number; message: string | undefined } {
  const h = r.trailers ?? r.headers;
  return { code: Number(h["grpc-status"]), message: h["grpc-message"] as string | undefined };
}

describe("grpc server with hand-built HTTP/2 frames", { timeout: 30_000 }, () => {
  let observed: Observed;
  let listening: GrpcListeningServer;
  let session: ClientHttp2Session;
  const getUser = users.messages.get("users.v1.GetUserRequest")!;
  const encodeGetUser = async (id: string): Promise<Buffer> => {
    const { encode } = await import("../../lib/grpc/index.js");
    return encode(getUser, { id });
  };

  before(async () => {
    observed = newObserved();
    listening = await buildServer(observed).listen({ port: 0 });
    session = connect(listening.url);
  });
  after(async () => {
    session?.close();
    await listening?.close();
  });

  it("a message split across many DATA frames is reassembled", async () => {
    const whole = frame(await encodeGetUser("split"));
    const chunks = [...whole].map((b) => Buffer.from([b]));
    const r = await rawCall(session, "/users.v1.Users/GetUser", chunks);
    assert.equal(r.headers[":status"], 200);
    assert.equal(r.headers["content-type"], "application/grpc+proto");
    assert.equal(statusOf(r).code, GrpcStatus.OK);
    const { decode } = await import("../../lib/grpc/index.js");
    assert.equal(r.data.readUInt32BE(1), r.data.length - 5);
    assert.equal(decode(users.messages.get("users.v1.User")!, r.data.subarray(5))["name"], "user split");
  });

  it("a length prefix longer than the data, then END_STREAM → INTERNAL (trailers-only)", async () => {
    const body = await encodeGetUser("x");
    const truncated = Buffer.concat([frame(body).subarray(0, 5), body.subarray(0, body.length - 1)]);
    const r = await rawCall(session, "/users.v1.Users/GetUser", [truncated]);
    assert.equal(r.trailers, undefined, "trailers-only: grpc-status is in the HEADERS frame");
    assert.equal(statusOf(r).code, GrpcStatus.INTERNAL);
  });

  it("bytes that are not the request type → INTERNAL 'Error deserializing request'", async () => {
    const r = await rawCall(session, "/users.v1.Users/GetUser", [frame(Buffer.from([0x0a, 0x05, 0x41]))]);
    assert.deepEqual(statusOf(r), { code: GrpcStatus.INTERNAL, message: "Error deserializing request" });
  });

  it("no message for a unary method, or two → UNIMPLEMENTED", async () => {
    const none = await rawCall(session, "/users.v1.Users/GetUser", []);
    assert.equal(statusOf(none).code, GrpcStatus.UNIMPLEMENTED);
    const one = frame(await encodeGetUser("a"));
    const two = await rawCall(session, "/users.v1.Users/GetUser", [one, one]);
    assert.equal(statusOf(two).code, GrpcStatus.UNIMPLEMENTED);
  });

  it("a content type other than application/grpc → HTTP 415", async () => {
    const r = await rawCall(session, "/users.v1.Users/GetUser", [frame(await encodeGetUser("a"))], { "content-type": "application/json" });
    assert.equal(r.headers[":status"], 415);
    const proto = await rawCall(session, "/users.v1.Users/GetUser", [frame(await encodeGetUser("a"))], { "content-type": "application/grpc+proto" });
    assert.equal(statusOf(proto).code, GrpcStatus.OK);
  });

  it("a method other than POST → HTTP 405", async () => {
    const r = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
      const req = session.request({ ":method": "GET", ":path": "/users.v1.Users/GetUser", "content-type": "application/grpc" });
      req.on("response", resolve);
      req.on("error", reject);
      req.resume();
    });
    assert.equal(r[":status"], 405);
  });

  it("an unknown path → UNIMPLEMENTED as a trailers-only response", async () => {
    const r = await rawCall(session, "/nope.v1.Nope/Call", []);
    assert.equal(r.headers[":status"], 200);
    assert.equal(r.trailers, undefined);
    assert.equal(statusOf(r).code, GrpcStatus.UNIMPLEMENTED);
  });

  it("grpc-message is percent-encoded", async () => {
    const r = await rawCall(session, "/users.v1.Users/GetUser", [frame(await encodeGetUser("status-400"))]);
    assert.equal(statusOf(r).code, GrpcStatus.INVALID_ARGUMENT);
    assert.equal(statusOf(r).message, "failure 400 for %C3%BC 100%25");
  });

  it("grpc-timeout from the header: the server's own timer ends the call with DEADLINE_EXCEEDED", async () => {
    observed.waitStarted = deferred<GrpcCall>();
    observed.waitAborted = deferred<unknown>();
    const num = streams.messages.get("test.v1.Num")!;
    const { encode } = await import("../../lib/grpc/index.js");
    const r = await rawCall(session, "/test.v1.Streams/Wait", [frame(encode(num, { value: 0 }))], { "grpc-timeout": "50m" });
    assert.equal(statusOf(r).code, GrpcStatus.DEADLINE_EXCEEDED);
    const reason = await observed.waitAborted.promise;
    assert.ok(reason instanceof GrpcError);
    assert.equal(reason.code, GrpcStatus.DEADLINE_EXCEEDED);
  });

  it("a malformed grpc-timeout → INTERNAL; nine digits is malformed", async () => {
    for (const bad of ["100", "5s", "123456789m", "-1S", "1.5S"]) {
      const r = await rawCall(session, "/users.v1.Users/GetUser", [frame(await encodeGetUser("a"))], { "grpc-timeout": bad });
      assert.equal(statusOf(r).code, GrpcStatus.INTERNAL, bad);
    }
    const eight = await rawCall(session, "/users.v1.Users/GetUser", [frame(await encodeGetUser("a"))], { "grpc-timeout": "99999999S" });
    assert.equal(statusOf(eight).code, GrpcStatus.OK);
  });

  it("a compressed message under an unsupported grpc-encoding → UNIMPLEMENTED; flag set under identity → INTERNAL", async () => {
    const body = frame(await encodeGetUser("a"), true);
    const snappy = await rawCall(session, "/users.v1.Users/GetUser", [body], { "grpc-encoding": "snappy" });
    assert.equal(statusOf(snappy).code, GrpcStatus.UNIMPLEMENTED);
    assert.equal(snappy.headers["grpc-accept-encoding"], "identity,deflate,gzip");
    const identity = await rawCall(session, "/users.v1.Users/GetUser", [body]);
    assert.equal(statusOf(identity).code, GrpcStatus.INTERNAL);
  });

  it("a call that fails while the client is still sending: status, then the stream is closed", { timeout: 10_000 }, async () => {
    const num = streams.messages.get("test.v1.Num")!;
    const { encode } = await import("../../lib/grpc/index.js");
    const r = await new Promise<RawResponse>((resolve, reject) => {
      const req = session.request({ ":method": "POST", ":path": "/test.v1.Streams/Sum", "content-type": "application/grpc", te: "trailers" });
      let headers: IncomingHttpHeaders = {};
      let trailers: IncomingHttpHeaders | undefined;
      req.on("response", (h) => (headers = h));
      req.on("trailers", (t) => (trailers = t));
      req.on("error", reject);
      req.resume();
      // Never ended by the client: only the server's RST_STREAM(NO_ERROR) closes it.
      req.on("close", () => resolve({ headers, trailers, data: Buffer.alloc(0) }));
      req.write(frame(encode(num, { value: -1 })));
    });
    assert.deepEqual(statusOf(r), { code: GrpcStatus.INVALID_ARGUMENT, message: "negative value" });
  });

  it("a call that fails after its first response while the client is still sending: the status arrives in the trailers, then the stream is closed", { timeout: 10_000 }, async () => {
    const num = streams.messages.get("test.v1.Num")!;
    const { encode } = await import("../../lib/grpc/index.js");
    const r = await new Promise<RawResponse>((resolve, reject) => {
      const req = session.request({ ":method": "POST", ":path": "/test.v1.Streams/Chat", "content-type": "application/grpc", te: "trailers" });
      let headers: IncomingHttpHeaders = {};
      let trailers: IncomingHttpHeaders | undefined;
      const data: Buffer[] = [];
      req.on("response", (h) => (headers = h));
      req.on("trailers", (t) => (trailers = t));
      req.on("error", reject);
      // The first reply means the response headers are out; only then the failing message.
      req.once("data", () => req.write(frame(encode(num, { value: -1 }))));
      req.on("data", (d: Buffer) => data.push(d));
      // Never ended by the client: only the server's RST_STREAM(NO_ERROR) closes it.
      req.on("close", () => resolve({ headers, trailers, data: Buffer.concat(data) }));
      req.write(frame(encode(num, { value: 1 })));
    });
    assert.equal(r.headers[":status"], 200);
    assert.ok(r.trailers !== undefined, "the status comes in trailers, after the first reply");
    assert.deepEqual(statusOf(r), { code: GrpcStatus.INVALID_ARGUMENT, message: "negative value" });
  });

  it("deflate-compressed messages are read too", async () => {
    const { deflateSync } = await import("node:zlib");
    const body = frame(deflateSync(await encodeGetUser("deflated")), true);
    const r = await rawCall(session, "/users.v1.Users/GetUser", [body], { "grpc-encoding": "deflate" });
    assert.equal(statusOf(r).code, GrpcStatus.OK);
  });
});
