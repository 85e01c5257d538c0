// gRPC request framing, fuzzed through a server: arbitrary bytes (mostly plausible length
// prefixes, sometimes lying about their length or flag) cut into arbitrary DATA frames, sent to a
// unary and a client-streaming method under a small receive limit. Every call ends with a status
// the framing rules allow, nothing escapes as an exception, a single-request method's handler
// never sees more than one message, and the server keeps serving. (The reader's own buffering
// bound is fuzzed in spec/internals/grpc/framing-fuzz.test.ts.)
import assert from "node:assert/strict";
import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from "node:http2";
import { after, before, test } from "node:test";
import { silentLogger } from "../../lib/index.js";
import { encode, grpcServer, loadProtoSource, type DecodedMessage, type GrpcListeningServer } from "../../lib/grpc/index.js";
import { runProperty, type Rng } from "./property.js";

const root = loadProtoSource(`
syntax = "proto3";
package fuzz.v1;
message Num { int32 value = 1; }
service Framing {
  rpc Get(Num) returns (Num);
  rpc Count(stream Num) returns (Num);
}
`, "framing.proto");
const Num = root.messages.get("fuzz.v1.Num")!;
const LIMIT = 64;
// OK; INTERNAL (bad flag, cut-off or undecodable message, compressed under identity);
// RESOURCE_EXHAUSTED (over the limit); UNIMPLEMENTED (no message or a second one for Get).
const ALLOWED = new Set(["0", "8", "12", "13"]);

let listening: GrpcListeningServer;
let session: ClientHttp2Session;
let unaryInputs = 0;
let unaryCalls = 0;

before(async () => {
  listening = await grpcServer({ logger: silentLogger, maxReceiveMessageLength: LIMIT })
    .addService(root.services.get("fuzz.v1.Framing")!, {
      Get(request: DecodedMessage) {
        unaryCalls++;
        if (request === null || typeof request !== "object" || Symbol.asyncIterator in request) unaryInputs = Number.NaN;
        return { value: 1 };
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

interface Case {
  method: "Get" | "Count";
  chunks: number[][];
}

function generate(rng: Rng): Case {
  const bytes: number[] = [];
  for (let i = rng.range(0, 5); i > 0; i--) {
    if (rng.chance(0.75)) {
      const body = rng.chance(0.6) ? [...encode(Num, { value: rng.range(-5, 500) })] : Array.from({ length: rng.range(0, 12) }, () => rng.int(256));
      const length = rng.chance(0.8) ? body.length : rng.pick([0, body.length + 1, LIMIT, LIMIT + 1, 0xffffffff]);
      const flag = rng.chance(0.85) ? 0 : rng.pick([1, 2, 128]);
      bytes.push(flag, (length >>> 24) & 255, (length >>> 16) & 255, (length >>> 8) & 255, length & 255, ...body);
    } else for (let j = rng.range(1, 10); j > 0; j--) bytes.push(rng.int(256));
  }
  const chunks: number[][] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = rng.range(1, Math.max(1, Math.min(bytes.length - at, rng.chance(0.5) ? 3 : 40)));
    chunks.push(bytes.slice(at, at + size));
    at += size;
  }
  return { method: rng.chance(0.5) ? "Get" : "Count", chunks };
}

/** Send the chunks as separate DATA frames, then END_STREAM; the grpc-status the call ended with. */
function call(c: Case): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ":method": "POST", ":path": `/fuzz.v1.Framing/${c.method}`, "content-type": "application/grpc", te: "trailers" });
    let status: IncomingHttpHeaders = {};
    req.on("response", (h) => (status = h));
    req.on("trailers", (t) => (status = t));
    req.on("error", reject);
    req.resume();
    req.on("close", () => resolve(status["grpc-status"] as string | undefined));
    void (async () => {
      for (const chunk of c.chunks) {
        if (req.closed || req.destroyed) return;
        req.write(Buffer.from(chunk));
        await new Promise((r) => setImmediate(r));
      }
      if (!req.closed && !req.destroyed) req.end();
    })();
  });
}

test("fuzz: arbitrary request bytes in arbitrary DATA frames end every call with an allowed status", async () => {
  await runProperty({
    name: "grpc framing (through the server)",
    generate,
    shrink: (c) => [
      ...c.chunks.map((_, i) => ({ ...c, chunks: [...c.chunks.slice(0, i), ...c.chunks.slice(i + 1)] })),
      ...(c.chunks.length > 1 ? [{ ...c, chunks: [c.chunks.flat()] }] : []),
    ],
    check: async (c) => {
      const before = unaryCalls;
      const status = await call(c);
      assert.ok(status !== undefined && ALLOWED.has(status), `grpc-status ${String(status)}`);
      if (c.method === "Get") {
        // The handler ran at most once, with one message, and only for an OK call.
        assert.ok(unaryCalls - before <= 1 && unaryInputs === 0);
        if (unaryCalls > before) assert.equal(status, "0");
      }
    },
  });
  // Still serving.
  assert.equal(await call({ method: "Get", chunks: [[0, 0, 0, 0, 2, 0x08, 0x01]] }), "0");
});
