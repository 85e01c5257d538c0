// compression(): gzip, deflate and br negotiated with q-values, threshold, skipped types, SSE
// and no-transform, Vary, ETag weakening, streamed bodies flushed chunk by chunk (never
// buffered whole), decoded both by node:zlib and by curl --compressed.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import * as zlib from "node:zlib";
import { App, reply, route, silentLogger, stream, type ListeningServer } from "../../lib/index.js";
import { compression, negotiateEncoding } from "../../lib/middleware/index.js";
import { send } from "../support/http.js";

const run = promisify(execFile);
const BIG = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item number ${i}`, tags: ["a", "b", "c"] })) });
const HUGE = "keel ".repeat(40_000); // 200 KB: compressed off the event loop

function decode(encoding: string | undefined, raw: Buffer): string {
  if (encoding === "gzip") return zlib.gunzipSync(raw).toString();
  if (encoding === "deflate") return zlib.inflateSync(raw).toString();
  if (encoding === "br") return zlib.brotliDecompressSync(raw).toString();
  return raw.toString();
}

describe("compression over a real socket", () => {
  let server: ListeningServer;
  let releaseSecond: () => void = () => {};
  before(async () => {
    const app = new App({ logger: silentLogger })
      .layer(compression())
      .routes(
        route.get("/big", [], () => reply(200, BIG, { "content-type": "application/json", etag: '"abc"' })),
        route.get("/huge", [], () => reply(200, HUGE, { "content-type": "text/plain" })),
        route.get("/small", [], () => ({ tiny: true })),
        route.get("/png", [], () => reply(200, Buffer.alloc(4096, 1), { "content-type": "image/png" })),
        route.get("/sse", [], () => stream(Readable.from(["data: " + "x".repeat(2000) + "\n\n"]), "text/event-stream")),
        route.get("/encoded", [], () => reply(200, BIG, { "content-type": "application/json", "content-encoding": "identity-ish" })),
        route.get("/no-transform", [], () => reply(200, BIG, { "content-type": "application/json", "cache-control": "no-transform" })),
        route.get("/stream-free", [], () => stream(Readable.from(["first:" + "a".repeat(100) + "\n", "second:" + "b".repeat(100) + "\n"]), "application/x-ndjson")),
        route.get("/stream", [], () => {
          const gate = new Promise<void>((r) => (releaseSecond = r));
          async function* chunks() {
            yield "first:" + "a".repeat(100) + "\n";
            await gate; // only continues once the client has decoded the first chunk
            yield "second:" + "b".repeat(100) + "\n";
          }
          return stream(Readable.from(chunks()), "application/x-ndjson");
        }),
      );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  const get = (path: string, ae?: string, method = "GET") => send(server.url + path, { method, headers: ae === undefined ? {} : { "accept-encoding": ae } });

  for (const enc of ["gzip", "deflate", "br"]) {
    it(`compresses with ${enc}, decodable by node:zlib, with a correct Content-Length`, async () => {
      const r = await get("/big", enc);
      assert.equal(r.headers["content-encoding"], enc);
      assert.equal(r.headers["vary"], "Accept-Encoding");
      assert.equal(Number(r.headers["content-length"]), r.raw.length);
      assert.ok(r.raw.length < BIG.length / 3);
      assert.equal(decode(enc, r.raw), BIG);
      assert.equal(r.headers["etag"], 'W/"abc"', "strong ETag weakened on a compressed answer");
    });
  }

  it("compresses large bodies off the event loop too", async () => {
    const r = await get("/huge", "gzip");
    assert.equal(r.headers["content-encoding"], "gzip");
    assert.equal(decode("gzip", r.raw), HUGE);
  });

  it("negotiates by q-value, refuses q=0, and breaks ties by server preference", async () => {
    const cases: Array<[string | undefined, string | undefined]> = [
      ["gzip;q=0.5, br;q=0.8", "br"],
      ["br;q=0, gzip", "gzip"],
      ["gzip, deflate", "gzip"],
      ["deflate;q=1, gzip;q=1", "gzip"],
      ["*", "br"],
      ["*;q=0", undefined],
      ["br;q=0, gzip;q=0, *;q=0.1", "deflate"],
      ["identity", undefined],
      ["GZIP;Q=0.9", "gzip"],
      ["", undefined],
      [undefined, undefined],
    ];
    for (const [ae, expected] of cases) {
      const r = await get("/big", ae);
      assert.equal(r.headers["content-encoding"], expected, String(ae));
      assert.equal(decode(expected, r.raw), BIG, String(ae));
      assert.equal(r.headers["vary"], "Accept-Encoding", String(ae));
    }
  });

  it("leaves small bodies, compressed types, SSE, encoded and no-transform answers alone", async () => {
    const small = await get("/small", "gzip");
    assert.equal(small.headers["content-encoding"], undefined);
    assert.equal(small.headers["vary"], undefined);
    for (const path of ["/png", "/sse", "/no-transform"]) {
      const r = await get(path, "gzip, br");
      assert.equal(r.headers["content-encoding"], undefined, path);
    }
    assert.equal((await get("/encoded", "gzip")).headers["content-encoding"], "identity-ish");
  });

  it("sends the compressed headers for HEAD without a body", async () => {
    const r = await get("/big", "gzip", "HEAD");
    assert.equal(r.headers["content-encoding"], "gzip");
    assert.equal(r.body, "");
  });

  it("streams: chunked, each chunk flushed through gzip before the next exists", { timeout: 5000 }, async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const req = request(server.url + "/stream", { headers: { "accept-encoding": "gzip" }, agent: false }, (res) => {
        assert.equal(res.headers["content-encoding"], "gzip");
        assert.equal(res.headers["content-length"], undefined);
        assert.equal(res.headers["transfer-encoding"], "chunked");
        const gunzip = zlib.createGunzip();
        let out = "";
        gunzip.on("data", (c: Buffer) => {
          out += c.toString();
          if (out.includes("first:")) releaseSecond();
        });
        gunzip.on("end", () => resolve(out));
        gunzip.on("error", reject);
        res.pipe(gunzip);
      });
      req.on("error", reject);
      req.end();
    });
    assert.equal(text, "first:" + "a".repeat(100) + "\nsecond:" + "b".repeat(100) + "\n");
  });

  it("is decoded by curl --compressed (gzip, deflate, br, and a stream)", async () => {
    for (const enc of ["gzip", "deflate", "br"]) {
      const { stdout } = await run("curl", ["-s", "--compressed", "-H", `Accept-Encoding: ${enc}`, "-D", "-", server.url + "/big"]);
      const split = stdout.indexOf("\r\n\r\n");
      assert.match(stdout.slice(0, split).toLowerCase(), new RegExp(`content-encoding: ${enc}`));
      assert.equal(stdout.slice(split + 4), BIG, enc);
    }
    const { stdout: defaults } = await run("curl", ["-s", "--compressed", "-o", "/dev/null", "-w", "%{size_download}", server.url + "/big"]);
    assert.ok(Number(defaults) < BIG.length / 3, "curl's own Accept-Encoding got a compressed answer");
    const { stdout: streamed } = await run("curl", ["-s", "--compressed", "-H", "Accept-Encoding: gzip", server.url + "/stream-free"]);
    assert.equal(streamed, "first:" + "a".repeat(100) + "\nsecond:" + "b".repeat(100) + "\n");
  });
});

describe("negotiateEncoding", () => {
  it("ignores malformed q-values and caps the work on long headers", () => {
    assert.equal(negotiateEncoding("gzip;q=2, br;q=abc"), null);
    assert.equal(negotiateEncoding("gzip;q=0.001"), "gzip");
    assert.equal(negotiateEncoding("x-gzip"), "gzip");
    const many = Array.from({ length: 100 }, (_, i) => "x" + i).join(", ");
    assert.equal(negotiateEncoding(many + ", gzip"), null, "items past the cap are not read");
    assert.equal(negotiateEncoding("br, gzip", ["gzip", "br"]), "gzip");
  });
});
