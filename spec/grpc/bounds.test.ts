// What one call or one connection may make the server hold, over a raw node:http2 client:
// a unary or server-streaming call refuses its second request message as soon as that message's
// prefix arrives (before END_STREAM; UNIMPLEMENTED with grpc-js's wording) and closes the stream;
// a streaming call whose handler does not read stops reading the HTTP/2 stream after a small
// queue, so flow control holds the client back; a connection may open 100 calls at once (the
// SETTINGS value keel's HTTP/2 listener advertises), configurable, and a stream past it is refused.
import assert from "node:assert/strict";
import { connect as netConnect } from "node:net";
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from "node:http2";
import { after, before, describe, it } from "node:test";
import { silentLogger } from "../../lib/index.js";
import { selfSignedCertificate } from "../support/test-certificate.js";
import { encode, grpcServer, loadProtoSource, type DecodedMessage, type GrpcCall, type GrpcListeningServer } from "../../lib/grpc/index.js";

const SOURCE = `
syntax = "proto3";
package bounds.v1;
message Num { int32 value = 1; }
message Blob { bytes data = 1; }
service Bounds {
  rpc Get(Num) returns (Num);
  rpc List(Num) returns (stream Num);
  rpc Hold(stream Blob) returns (Num);
  rpc Count(stream Num) returns (Num);
}
`;
const root = loadProtoSource(SOURCE, "bounds.proto");
const service = root.services.get("bounds.v1.Bounds")!;
const Num = root.messages.get("bounds.v1.Num")!;
const Blob = root.messages.get("bounds.v1.Blob")!;
const MiB = 1024 * 1024;
/** The byte bound of a call's inbound queue (INBOUND_MAX_BYTES, docs/features/grpc.md). */
const INBOUND_MAX_BYTES = 256 * 1024;

function frame(bytes: Uint8Array): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([prefix, bytes]);
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
}

interface Ended {
  status: IncomingHttpHeaders;
  rstCode: number | undefined;
}

/** Resolves when the stream closes, with grpc-status/grpc-message (trailers or trailers-only headers). */
function ended(req: ClientHttp2Stream): Promise<Ended> {
  return new Promise((resolve) => {
    let status: IncomingHttpHeaders = {};
    req.on("response", (h) => (status = h));
    req.on("trailers", (t) => (status = t));
    req.on("error", () => {});
    req.resume();
    req.on("close", () => resolve({ status, rstCode: req.rstCode }));
  });
}

function open(session: ClientHttp2Session, path: string): ClientHttp2Stream {
  return session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers" });
}

describe("grpc server bounds", { timeout: 60_000 }, () => {
  let listening: GrpcListeningServer;
  let session: ClientHttp2Session;
  let getCalls = 0;
  const held: Array<Promise<void>> = [];

  before(async () => {
    listening = await grpcServer({ logger: silentLogger })
      .addService(service, {
        Get(request: DecodedMessage) {
          getCalls++;
          return { value: Number(request["value"]) };
        },
        *List(request: DecodedMessage) {
          yield { value: Number(request["value"]) };
        },
        async Hold(_requests: AsyncIterable<DecodedMessage>, call: GrpcCall) {
          // Never reads its requests: only the client's cancel ends it.
          const done = waitForAbort(call.signal);
          held.push(done);
          await done;
          return { value: 0 };
        },
        async Count(requests: AsyncIterable<DecodedMessage>) {
          let n = 0;
          for await (const _ of requests) n++;
          return { value: n };
        },
      })
      .listen({ port: 0 });
    session = connect(listening.url);
  });
  after(async () => {
    session?.close();
    await listening?.close();
  });

  for (const method of ["Get", "List"]) {
    it(`${method}: a second request message ends the call at once, before END_STREAM, and closes the stream`, { timeout: 10_000 }, async () => {
      const before = getCalls;
      const req = open(session, `/bounds.v1.Bounds/${method}`);
      const result = ended(req);
      // Two messages, and the client never half-closes: only the server can end this call.
      req.write(Buffer.concat([frame(encode(Num, { value: 1 })), frame(encode(Num, { value: 2 }))]));
      const { status, rstCode } = await result;
      assert.equal(status["grpc-status"], "12");
      assert.equal(status["grpc-message"], `Received a second request message for method /bounds.v1.Bounds/${method}`);
      assert.equal(rstCode, constants.NGHTTP2_NO_ERROR, "the server asked the client to stop sending");
      assert.equal(getCalls, before, "the handler never ran");
    });
  }

  it("a second message is refused as soon as its 5-byte prefix is complete (its body never comes)", { timeout: 10_000 }, async () => {
    const req = open(session, "/bounds.v1.Bounds/Get");
    const result = ended(req);
    req.write(Buffer.concat([frame(encode(Num, { value: 1 })), Buffer.from([0, 0, 0x10, 0, 0])]));
    const { status } = await result;
    assert.equal(status["grpc-status"], "12");
  });

  it("one message and END_STREAM still works, and so does a client stream of many small messages", async () => {
    const one = open(session, "/bounds.v1.Bounds/Get");
    const r1 = ended(one);
    one.end(frame(encode(Num, { value: 7 })));
    assert.equal((await r1).status["grpc-status"], "0");
    // More messages than the queue holds, in one write: they flow as the handler reads.
    const many = open(session, "/bounds.v1.Bounds/Count");
    const data: Buffer[] = [];
    many.on("data", (d: Buffer) => data.push(d));
    const r2 = ended(many);
    many.end(Buffer.concat(Array.from({ length: 5000 }, (_, i) => frame(encode(Num, { value: i })))));
    assert.equal((await r2).status["grpc-status"], "0");
    const body = Buffer.concat(data);
    assert.deepEqual(body.subarray(5), Buffer.from(encode(Num, { value: 5000 })));
  });

  it("a handler that never reads: the server stops taking the stream in after a bounded queue (flow control holds the client)", async () => {
    const message = frame(encode(Blob, { data: Buffer.alloc(4 * MiB - 16, 7) }));
    const offered = 24;
    const req = open(session, "/bounds.v1.Bounds/Hold");
    const result = ended(req);
    // Bytes the client's HTTP/2 stream has handed on (write callbacks): what the server let in.
    let taken = 0;
    const memoryBefore = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < offered; i++) {
      const progressed = await new Promise<boolean>((resolve) => {
        const stall = setTimeout(() => resolve(false), 1500);
        req.write(message, () => {
          clearTimeout(stall);
          resolve(true);
        });
      });
      if (!progressed) break;
      taken += message.length;
    }
    const grown = (process.memoryUsage().arrayBuffers - memoryBefore) / MiB;
    req.close(constants.NGHTTP2_CANCEL);
    await result;
    await held.at(-1);
    // One 4 MiB message in the queue (over the byte bound, so reading stops), the rest of the
    // last DATA chunk, the stream's buffers and windows; without the bound it was 16 messages.
    const bound = 2 * 4 * MiB + INBOUND_MAX_BYTES;
    console.log(`never-reading handler: the server took ${(taken / MiB).toFixed(1)} of ${offered * 4} MiB offered; arrayBuffers +${grown.toFixed(0)} MiB`);
    assert.ok(taken <= bound, `the server took ${(taken / MiB).toFixed(1)} MiB (bound ${(bound / MiB).toFixed(1)} MiB)`);
    assert.ok(grown < 48, `arrayBuffers grew ${grown.toFixed(0)} MiB`);
  });
});

// ---- concurrent streams ------------------------------------------------------------------------
// A client of our own over a plain socket, so nothing on the client side holds streams back: the
// preface, an empty SETTINGS (never acknowledging the server's), then HEADERS frames.

/** HPACK: a literal header field without indexing, new name (RFC 7541 §6.2.2); short strings only. */
function literal(name: string, value: string): Buffer {
  return Buffer.concat([Buffer.from([0x00, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value)]);
}

function http2Frame(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(streamId, 5);
  return Buffer.concat([header, payload]);
}

/** HEADERS (END_HEADERS, no END_STREAM) for a POST to `path`. */
function requestHeaders(streamId: number, path: string): Buffer {
  const block = Buffer.concat([
    Buffer.from([0x83, 0x86]), // :method POST, :scheme http (static table)
    literal(":path", path),
    literal(":authority", "localhost"),
    literal("content-type", "application/grpc"),
    literal("te", "trailers"),
  ]);
  return http2Frame(0x1, 0x4, streamId, block);
}

interface RawFrame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

/** Open `held` calls that stay open, then one more; resolves with the first frame the server sends on that last stream. */
function overTheLimit(port: number, held: number, holdPath: string, lastPath: string): Promise<{ last: RawFrame; settings: Map<number, number> }> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(port, "127.0.0.1");
    const settings = new Map<number, number>();
    const lastId = 2 * held + 1;
    let buffered = Buffer.alloc(0);
    socket.on("error", reject);
    socket.on("close", () => reject(new Error("the server closed the connection")));
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 9) {
        const length = buffered.readUIntBE(0, 3);
        if (buffered.length < 9 + length) break;
        const f: RawFrame = { type: buffered[3]!, flags: buffered[4]!, streamId: buffered.readUInt32BE(5) & 0x7fffffff, payload: buffered.subarray(9, 9 + length) };
        buffered = buffered.subarray(9 + length);
        if (f.type === 0x4 && (f.flags & 0x1) === 0) {
          for (let at = 0; at + 6 <= f.payload.length; at += 6) settings.set(f.payload.readUInt16BE(at), f.payload.readUInt32BE(at + 2));
        }
        if (f.streamId === lastId && (f.type === 0x1 || f.type === 0x3)) {
          socket.removeAllListeners("close");
          socket.destroy();
          resolve({ last: f, settings });
        }
      }
    });
    const out: Buffer[] = [Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), http2Frame(0x4, 0, 0, Buffer.alloc(0))];
    for (let i = 0; i < held; i++) out.push(requestHeaders(2 * i + 1, holdPath));
    out.push(requestHeaders(lastId, lastPath));
    socket.write(Buffer.concat(out));
  });
}

const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
const RST_STREAM = 0x3;

describe("grpc server concurrent streams per connection", { timeout: 30_000 }, () => {
  async function advertised(options: { maxConcurrentStreams?: number }): Promise<number | undefined> {
    const listening = await grpcServer({ logger: silentLogger, ...options }).addService(service, {}).listen({ port: 0 });
    const session = connect(listening.url);
    try {
      await new Promise<void>((resolve, reject) => {
        session.once("remoteSettings", () => resolve());
        session.once("error", reject);
      });
      return session.remoteSettings.maxConcurrentStreams;
    } finally {
      session.close();
      await listening.close();
    }
  }

  it("advertises 100 (keel's HTTP/2 listener's figure) by default, and maxConcurrentStreams when given", async () => {
    assert.equal(await advertised({}), 100);
    assert.equal(await advertised({ maxConcurrentStreams: 7 }), 7);
  });

  it("refuses maxConcurrentStreams outside 1..2^32-1", () => {
    for (const bad of [0, -1, 1.5, 2 ** 32, Number.NaN]) assert.throws(() => grpcServer({ maxConcurrentStreams: bad }), RangeError, String(bad));
  });

  for (const limit of [undefined, 5]) {
    it(`with ${limit ?? "the default of 100"} calls open on a connection, the next stream is refused (RST_STREAM REFUSED_STREAM)`, { timeout: 10_000 }, async () => {
      const listening = await grpcServer({ logger: silentLogger, ...(limit === undefined ? {} : { maxConcurrentStreams: limit }) })
        .addService(service, {
          async Hold(_requests: AsyncIterable<DecodedMessage>, call: GrpcCall) {
            await waitForAbort(call.signal);
            return { value: 0 };
          },
        })
        .listen({ port: 0 });
      try {
        const held = limit ?? 100;
        // The last call names no method: accepted, it would get UNIMPLEMENTED at once (HEADERS).
        const { last, settings } = await overTheLimit(listening.port, held, "/bounds.v1.Bounds/Hold", "/bounds.v1.Bounds/Nope");
        assert.equal(settings.get(SETTINGS_MAX_CONCURRENT_STREAMS), held);
        assert.equal(last.type, RST_STREAM, `stream ${2 * held + 1} got frame type ${last.type} instead of RST_STREAM`);
        assert.equal(last.payload.readUInt32BE(0), constants.NGHTTP2_REFUSED_STREAM);
      } finally {
        await listening.close();
      }
    });
  }
});

describe("grpc server metadata size and TLS handshake", { timeout: 30_000 }, () => {
  it("advertises maxMetadataSize (16 KiB by default) and ends a call whose metadata is over it with RESOURCE_EXHAUSTED, on a fresh connection too", async () => {
    let calls = 0;
    const listening = await grpcServer({ logger: silentLogger })
      .addService(service, {
        Get(request: DecodedMessage) {
          calls++;
          return { value: Number(request["value"]) };
        },
      })
      .listen({ port: 0 });
    // node:http2 enforces the advertised size only after the client acknowledged it: the first
    // request of a fresh connection is the one Node would let through.
    const call = async (metadata: string): Promise<IncomingHttpHeaders> => {
      const session = connect(listening.url);
      try {
        const req = session.request({ ":method": "POST", ":path": "/bounds.v1.Bounds/Get", "content-type": "application/grpc", te: "trailers", "x-pad": metadata });
        const result = ended(req);
        req.end(frame(encode(Num, { value: 3 })));
        const settings = new Promise<number | undefined>((resolve) => session.once("remoteSettings", (s) => resolve(s.maxHeaderListSize)));
        const status = (await result).status;
        assert.equal(await settings, 16 * 1024);
        return status;
      } finally {
        session.close();
      }
    };
    try {
      // The header list: 5 request headers + x-pad, each name + value + 32.
      const fixed = [":method", "POST", ":path", "/bounds.v1.Bounds/Get", "content-type", "application/grpc", "te", "trailers", ":scheme", "http", ":authority", `127.0.0.1:${listening.port}`, "x-pad"].join("").length + 7 * 32;
      assert.equal((await call("a".repeat(16 * 1024 - fixed)))["grpc-status"], "0", "exactly at the limit");
      const over = await call("a".repeat(16 * 1024 - fixed + 1));
      assert.equal(over["grpc-status"], "8");
      assert.match(String(over["grpc-message"]), /metadata larger than the limit of 16384 bytes/);
      assert.equal((await call("a".repeat(20_000)))["grpc-status"], "8");
      assert.equal(calls, 1, "the handler ran only for the call within the limit");
    } finally {
      await listening.close();
    }
  });

  it("refuses maxMetadataSize under 1 KiB and a handshakeTimeout under 1 ms", () => {
    for (const bad of [0, 1023, 1.5, 2 ** 32]) assert.throws(() => grpcServer({ maxMetadataSize: bad }), RangeError, String(bad));
    for (const bad of [0, -1, Number.NaN]) assert.throws(() => grpcServer({ handshakeTimeout: bad }), RangeError, String(bad));
  });

  it("closes a TLS connection that never finishes its handshake after handshakeTimeout (Node's own default is 120 s)", async (t) => {
    let pem: { key: string; cert: string };
    try {
      pem = selfSignedCertificate();
    } catch {
      return t.skip("openssl is not installed");
    }
    const listening = await grpcServer({ logger: silentLogger, handshakeTimeout: 300 }).addService(service, {}).listen({ port: 0, tls: pem });
    try {
      // Silent sockets, and one that sends a few bytes of a ClientHello and stops.
      const closed = Array.from({ length: 5 }, (_, i) =>
        new Promise<void>((resolve) => {
          const socket = netConnect(listening.port, "127.0.0.1", () => {
            if (i === 0) socket.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]));
          });
          socket.on("error", () => {});
          socket.on("close", () => resolve());
          socket.resume();
        }),
      );
      await Promise.all(closed);
    } finally {
      await listening.close();
    }
  });
});
