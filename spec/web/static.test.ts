// serveStatic() over real sockets: no request reaches a file outside the root (dot segments raw
// and encoded, encoded slashes, backslashes, NUL, links out of the root, dotfiles), content types
// and lengths, validators and 304s (If-None-Match before If-Modified-Since), single ranges (206,
// 416, If-Range), precompressed siblings chosen by Accept-Encoding, HEAD, directories and index
// files, a large file streamed intact, and the descriptor closed when the client goes away.
// The files are generated into a temporary directory: `<tmp>/package.json` and `<tmp>/secret.txt`
// sit beside the served `<tmp>/public`, as targets for escapes.
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { request, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { after, before, describe, it } from "node:test";
import { App, silentLogger, type ListeningServer } from "../../lib/index.js";
import { openApiDocument } from "../../lib/openapi/index.js";
import { serveStatic } from "../../lib/web/index.js";
import { ERROR_ID } from "../support/http.js";

const MTIME = new Date("2024-01-02T03:04:05.000Z");
const LAST_MODIFIED = "Tue, 02 Jan 2024 03:04:05 GMT";
const JS = "export const answer = 42;\n".repeat(40);
const BIG_SIZE = 3 * 1024 * 1024 + 17;
/** Larger than any socket buffer pair, so a paused client holds the stream open. */
const HUGE_SIZE = 24 * 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), "keel-static-"));
const root = join(dir, "public");
const outside = join(dir, "outside");
let big: Buffer;
const noCurl = spawnSync("curl", ["--version"]).status === 0 ? false : "curl is not installed";

function file(path: string, content: string | Buffer): void {
  writeFileSync(join(root, path), content);
  utimesSync(join(root, path), MTIME, MTIME);
}

before(() => {
  mkdirSync(join(root, "sub"), { recursive: true });
  mkdirSync(join(root, "empty"));
  mkdirSync(join(root, ".hidden"));
  mkdirSync(outside);
  writeFileSync(join(dir, "package.json"), '{"name":"outside"}');
  writeFileSync(join(dir, "secret.txt"), "TOP SECRET");
  writeFileSync(join(outside, "secret.txt"), "TOP SECRET");
  writeFileSync(join(outside, "app.gz"), gzipSync("OUTSIDE"));
  file("index.html", "<h1>home</h1>");
  file("sub/index.html", "<h1>sub</h1>");
  file("style.css", "body { color: red }");
  file("style.css.gz", gzipSync("body { color: red }"));
  file("app.js", JS);
  file("app.js.br", brotliCompressSync(JS));
  file("app.js.gz", gzipSync(JS));
  file("data.json", '{"a":1}');
  file("logo.svg", "<svg/>");
  file("pixel.png", Buffer.from("89504e470d0a1a0a", "hex"));
  file("module.wasm", Buffer.from([0, 0x61, 0x73, 0x6d]));
  file("notes.xyz", "?");
  file("empty.txt", "");
  file("digits.txt", "0123456789abcdefghij"); // 20 bytes
  file(".env", "SECRET=1");
  file(".hidden/inside.txt", "hidden");
  file("a b.txt", "space");
  big = randomBytes(BIG_SIZE);
  file("big.bin", big);
  writeFileSync(join(root, "huge.bin"), Buffer.alloc(HUGE_SIZE, 0x61));
  symlinkSync(join(dir, "secret.txt"), join(root, "out-link.txt"));
  symlinkSync(outside, join(root, "out-dir"));
  symlinkSync(join(root, "style.css"), join(root, "in-link.css"));
  symlinkSync(join(root, ".env"), join(root, "env-link.txt"));
  file("plain.js", "plain");
  symlinkSync(join(outside, "app.gz"), join(root, "plain.js.gz"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** A request with the path sent exactly as written (a URL object would normalise `..` and `\`). */
function get(server: ListeningServer, path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Answer> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString("utf8") });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

function assertNotFound(r: Answer, what: string): void {
  assert.equal(r.status, 404, what);
  const body = JSON.parse(r.text) as { error: { type: string; message: string }; error_id: string };
  assert.equal(body.error.type, "not_found", what);
  assert.equal(body.error.message, "Not found", what);
  assert.match(body.error_id, ERROR_ID, what);
  assert.ok(!r.text.includes("SECRET") && !r.text.includes("outside"), what);
}

function listen(options: Partial<Parameters<typeof serveStatic>[0]> = {}): Promise<ListeningServer> {
  return new App({ logger: silentLogger }).register(serveStatic({ root, prefix: "/static", ...options })).listen({ port: 0 });
}

describe("serveStatic: no path leaves the root", () => {
  let server: ListeningServer;
  before(async () => (server = await listen()));
  after(() => server.close());

  const attempts = [
    "/static/../package.json",
    "/static/%2e%2e/package.json",
    "/static/%2E%2E/package.json",
    "/static/.%2e/package.json",
    "/static/..%2fpackage.json",
    "/static/..%2Fpackage.json",
    "/static/%2e%2e%2fpackage.json",
    "/static/..\\package.json",
    "/static/..%5cpackage.json",
    "/static/sub/../../package.json",
    "/static/sub/%2e%2e/%2e%2e/package.json",
    "/static/%00",
    "/static/index.html%00.txt",
    "/static//etc/passwd",
    "/static/%2fetc%2fpasswd",
    "/static/%2F..%2F..%2Fpackage.json",
    "/static/./index.html",
    "/static/out-link.txt",
    "/static/out-dir/secret.txt",
    "/static/.env",
    "/static/.hidden/inside.txt",
    "/static/%2eenv",
    "/static/env-link.txt",
  ];
  for (const path of attempts) {
    it(`refuses ${path} with the uniform 404`, async () => {
      assertNotFound(await get(server, path), path);
    });
  }

  it("answers over-long names and paths with the 404, never a 500", async () => {
    assertNotFound(await get(server, "/static/" + "a".repeat(300)), "long name");
    assertNotFound(await get(server, "/static/" + "a/".repeat(2500) + "x"), "long path");
  });

  it("answers malformed percent-encoding with a 400 bad_request", async () => {
    for (const path of ["/static/%zz", "/static/%", "/static/%e0%a4"]) {
      const r = await get(server, path);
      assert.equal(r.status, 400, path);
      assert.equal((JSON.parse(r.text) as { error: { type: string } }).error.type, "bad_request", path);
    }
  });

  it("serves a link that stays inside the root, and encoded names once decoded", async () => {
    const link = await get(server, "/static/in-link.css");
    assert.equal(link.status, 200);
    assert.equal(link.text, "body { color: red }");
    const spaced = await get(server, "/static/a%20b.txt");
    assert.equal(spaced.status, 200);
    assert.equal(spaced.text, "space");
    // Decoded once: "%2520" is the name "a%20b.txt", which does not exist.
    assertNotFound(await get(server, "/static/a%2520b.txt"), "double-encoded");
  });

  it("refuses the same escapes with curl --path-as-is", { skip: noCurl }, async () => {
    for (const path of ["/static/../package.json", "/static/..%2fpackage.json"]) {
      const out = await curl(["-s", "--path-as-is", "-o", "/dev/null", "-w", "%{http_code}", server.url + path]);
      assert.equal(out, "404", path);
    }
  });
});

describe("serveStatic: dotfiles allowed", () => {
  it("serves dotfiles with dotfiles: 'allow' but still refuses '..'", async () => {
    const app = new App({ logger: silentLogger }).register(serveStatic({ root, prefix: "/s", dotfiles: "allow" }));
    const env = await app.inject({ url: "/s/.env" });
    assert.equal(env.status, 200);
    assert.equal(env.body, "SECRET=1");
    assert.equal((await app.inject({ url: "/s/.hidden/inside.txt" })).body, "hidden");
    assert.equal((await app.inject({ url: "/s/../package.json" })).status, 404);
    assert.equal((await app.inject({ url: "/s/%2e%2e/package.json" })).status, 404);
    // The real-path check alone (the dotfile rule would also catch a relative path starting "..").
    assert.equal((await app.inject({ url: "/s/out-link.txt" })).status, 404);
    assert.equal((await app.inject({ url: "/s/out-dir/secret.txt" })).status, 404);
    assert.equal((await app.inject({ url: "/s/plain.js", headers: { "accept-encoding": "gzip" } })).body, "plain");
  });
});

describe("serveStatic: content types, lengths and caching headers", () => {
  let server: ListeningServer;
  before(async () => (server = await listen()));
  after(() => server.close());

  const types: Array<[string, string, number]> = [
    ["/static/index.html", "text/html; charset=utf-8", 13],
    ["/static/style.css", "text/css; charset=utf-8", 19],
    ["/static/app.js", "text/javascript; charset=utf-8", JS.length],
    ["/static/data.json", "application/json; charset=utf-8", 7],
    ["/static/logo.svg", "image/svg+xml; charset=utf-8", 6],
    ["/static/pixel.png", "image/png", 8],
    ["/static/module.wasm", "application/wasm", 4],
    ["/static/notes.xyz", "application/octet-stream", 1],
    ["/static/empty.txt", "text/plain; charset=utf-8", 0],
  ];
  for (const [path, type, length] of types) {
    it(`serves ${path} as ${type}, ${length} bytes`, async () => {
      const r = await get(server, path);
      assert.equal(r.status, 200);
      assert.equal(r.headers["content-type"], type);
      assert.equal(r.headers["content-length"], String(length));
      assert.equal(r.body.length, length);
      assert.equal(r.headers["x-content-type-options"], "nosniff");
      assert.equal(r.headers["accept-ranges"], "bytes");
      assert.equal(r.headers["last-modified"], LAST_MODIFIED);
      assert.equal(r.headers["cache-control"], "public, max-age=0");
      assert.match(String(r.headers["etag"]), /^"[0-9a-z]+-[0-9a-z]+"$/);
    });
  }

  it("gives different files of the same mtime different ETags, and the same file the same one", async () => {
    const a = await get(server, "/static/style.css");
    const b = await get(server, "/static/data.json");
    const again = await get(server, "/static/style.css");
    assert.notEqual(a.headers["etag"], b.headers["etag"]);
    assert.equal(a.headers["etag"], again.headers["etag"]);
  });

  it("sets Cache-Control from maxAge and immutable", async () => {
    const app = new App({ logger: silentLogger }).register(serveStatic({ root, maxAge: 31536000, immutable: true }));
    assert.equal((await app.inject({ url: "/style.css" })).headers["cache-control"], "public, max-age=31536000, immutable");
    const plain = new App({ logger: silentLogger }).register(serveStatic({ root, maxAge: 60 }));
    assert.equal((await plain.inject({ url: "/style.css" })).headers["cache-control"], "public, max-age=60");
  });

  it("answers HEAD with GET's headers and no body", async () => {
    const g = await get(server, "/static/big.bin");
    const h = await get(server, "/static/big.bin", {}, "HEAD");
    assert.equal(h.status, 200);
    assert.equal(h.body.length, 0);
    for (const name of ["content-type", "content-length", "etag", "last-modified", "cache-control", "accept-ranges", "vary", "x-content-type-options"]) {
      assert.equal(h.headers[name], g.headers[name], name);
    }
    assert.equal(h.headers["content-length"], String(BIG_SIZE));
  });

  it("ignores Range on HEAD (range handling is defined for GET only)", async () => {
    const h = await get(server, "/static/digits.txt", { range: "bytes=0-1" }, "HEAD");
    assert.equal(h.status, 200);
    assert.equal(h.headers["content-length"], "20");
    assert.equal(h.headers["content-range"], undefined);
  });

  it("streams a large file intact", async () => {
    const r = await get(server, "/static/big.bin");
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-length"], String(BIG_SIZE));
    assert.equal(r.headers["transfer-encoding"], undefined);
    assert.equal(createHash("sha256").update(r.body).digest("hex"), createHash("sha256").update(big).digest("hex"));
  });

  it("leaves POST to the kernel: 405 with Allow", async () => {
    const r = await get(server, "/static/style.css", {}, "POST");
    assert.equal(r.status, 405);
    assert.match(String(r.headers["allow"]), /GET, HEAD/);
  });
});

describe("serveStatic: conditional requests", () => {
  let server: ListeningServer;
  let etag: string;
  before(async () => {
    server = await listen();
    etag = String((await get(server, "/static/style.css")).headers["etag"]);
  });
  after(() => server.close());

  it("answers 304 to a matching If-None-Match (exact, weak, in a list, *), with validators and no body", async () => {
    for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, "*"]) {
      const r = await get(server, "/static/style.css", { "if-none-match": inm });
      assert.equal(r.status, 304, inm);
      assert.equal(r.body.length, 0);
      assert.equal(r.headers["etag"], etag);
      assert.equal(r.headers["last-modified"], LAST_MODIFIED);
      assert.equal(r.headers["cache-control"], "public, max-age=0");
      assert.equal(r.headers["vary"], "Accept-Encoding");
    }
    const head = await get(server, "/static/style.css", { "if-none-match": etag }, "HEAD");
    assert.equal(head.status, 304);
  });

  it("answers 200 to a non-matching If-None-Match even when If-Modified-Since alone would give 304", async () => {
    const r = await get(server, "/static/style.css", { "if-none-match": '"other"', "if-modified-since": "Wed, 01 Jan 2031 00:00:00 GMT" });
    assert.equal(r.status, 200);
    assert.equal(r.text, "body { color: red }");
  });

  it("answers If-Modified-Since at the boundary: the same second is 304, one second earlier is 200", async () => {
    assert.equal((await get(server, "/static/style.css", { "if-modified-since": LAST_MODIFIED })).status, 304);
    assert.equal((await get(server, "/static/style.css", { "if-modified-since": "Tue, 02 Jan 2024 03:04:04 GMT" })).status, 200);
    assert.equal((await get(server, "/static/style.css", { "if-modified-since": "not a date" })).status, 200);
  });
});

describe("serveStatic: byte ranges", () => {
  let server: ListeningServer;
  let etag: string;
  before(async () => {
    server = await listen();
    etag = String((await get(server, "/static/digits.txt")).headers["etag"]);
  });
  after(() => server.close());

  const ranges: Array<[string, number, number]> = [
    ["bytes=0-9", 0, 9],
    ["bytes=5-", 5, 19],
    ["bytes=-3", 17, 19],
    ["bytes=-20", 0, 19],
    ["bytes=-500", 0, 19],
    ["bytes=10-99", 10, 19],
    ["bytes=19-19", 19, 19],
    ["bytes=19-", 19, 19],
  ];
  for (const [range, start, end] of ranges) {
    it(`answers ${range} with 206 bytes ${start}-${end}/20`, async () => {
      const r = await get(server, "/static/digits.txt", { range });
      assert.equal(r.status, 206);
      assert.equal(r.headers["content-range"], `bytes ${start}-${end}/20`);
      assert.equal(r.headers["content-length"], String(end - start + 1));
      assert.equal(r.text, "0123456789abcdefghij".slice(start, end + 1));
    });
  }

  it("answers a range starting at the size (and a zero suffix) with 416 and Content-Range: bytes */size", async () => {
    for (const range of ["bytes=20-", "bytes=20-30", "bytes=-0"]) {
      const r = await get(server, "/static/digits.txt", { range });
      assert.equal(r.status, 416, range);
      assert.equal(r.headers["content-range"], "bytes */20");
      assert.equal((JSON.parse(r.text) as { error: { type: string } }).error.type, "range_not_satisfiable");
    }
    assert.equal((await get(server, "/static/empty.txt", { range: "bytes=0-" })).status, 416);
  });

  it("answers several ranges, and malformed or foreign ranges, with the whole file (200)", async () => {
    for (const range of ["bytes=0-1,5-6", "bytes=5-2", "items=0-1", "bytes=a-b", "bytes=0-1x", "bytes"]) {
      const r = await get(server, "/static/digits.txt", { range });
      assert.equal(r.status, 200, range);
      assert.equal(r.text, "0123456789abcdefghij", range);
      assert.equal(r.headers["content-range"], undefined, range);
    }
  });

  it("honours If-Range: a matching ETag or date keeps the range, a stale or weak one sends the whole file", async () => {
    const keep = await get(server, "/static/digits.txt", { range: "bytes=0-1", "if-range": etag });
    assert.equal(keep.status, 206);
    assert.equal(keep.text, "01");
    const byDate = await get(server, "/static/digits.txt", { range: "bytes=0-1", "if-range": LAST_MODIFIED });
    assert.equal(byDate.status, 206);
    for (const ifRange of ['"stale"', `W/${etag}`, "Tue, 02 Jan 2024 03:04:04 GMT", "garbage"]) {
      const r = await get(server, "/static/digits.txt", { range: "bytes=0-1", "if-range": ifRange });
      assert.equal(r.status, 200, ifRange);
      assert.equal(r.text, "0123456789abcdefghij", ifRange);
    }
  });

  it("serves a range of a large file exactly", async () => {
    const r = await get(server, "/static/big.bin", { range: `bytes=1000000-2000000` });
    assert.equal(r.status, 206);
    assert.equal(r.headers["content-range"], `bytes 1000000-2000000/${BIG_SIZE}`);
    assert.ok(r.body.equals(big.subarray(1000000, 2000001)));
  });

  it("answers curl -r 0-9 with the first ten bytes", { skip: noCurl }, async () => {
    const out = await curl(["-s", "-r", "0-9", server.url + "/static/digits.txt"]);
    assert.equal(out, "0123456789");
    const status = await curl(["-s", "-r", "0-9", "-o", "/dev/null", "-w", "%{http_code}", server.url + "/static/digits.txt"]);
    assert.equal(status, "206");
  });
});

describe("serveStatic: precompressed siblings", () => {
  let server: ListeningServer;
  before(async () => (server = await listen()));
  after(() => server.close());

  async function fetchJs(acceptEncoding?: string, extra: Record<string, string> = {}): Promise<Answer> {
    return get(server, "/static/app.js", acceptEncoding === undefined ? extra : { "accept-encoding": acceptEncoding, ...extra });
  }

  it("prefers br when accepted at the same weight, with Content-Encoding, the original type and Vary", async () => {
    for (const ae of ["gzip, br", "br, gzip", "br", "*", "gzip;q=1, br;q=1"]) {
      const r = await fetchJs(ae);
      assert.equal(r.headers["content-encoding"], "br", ae);
      assert.equal(r.headers["content-type"], "text/javascript; charset=utf-8");
      assert.equal(r.headers["vary"], "Accept-Encoding");
      assert.equal(brotliDecompressSync(r.body).toString(), JS);
    }
  });

  it("follows q-values: gzip when br is refused (q=0) or weighs less", async () => {
    for (const ae of ["gzip", "br;q=0, gzip", "br;q=0.5, gzip;q=0.8", "x-gzip", "*;q=0.1, gzip;q=0.9"]) {
      const r = await fetchJs(ae);
      assert.equal(r.headers["content-encoding"], "gzip", ae);
      assert.equal(gunzipSync(r.body).toString(), JS);
    }
  });

  it("sends the file as it is when nothing usable is accepted", async () => {
    for (const ae of [undefined, "identity", "br;q=0, gzip;q=0", "*;q=0", "deflate", "br;q=2"]) {
      const r = await fetchJs(ae);
      assert.equal(r.headers["content-encoding"], undefined, String(ae));
      assert.equal(r.text, JS);
      assert.equal(r.headers["vary"], "Accept-Encoding");
    }
  });

  it("falls back to the sibling that exists (style.css has only .gz)", async () => {
    const r = await get(server, "/static/style.css", { "accept-encoding": "br, gzip" });
    assert.equal(r.headers["content-encoding"], "gzip");
    assert.equal(gunzipSync(r.body).toString(), "body { color: red }");
  });

  it("gives each coding its own ETag, so a 304 never confirms the wrong bytes", async () => {
    const plain = await fetchJs();
    const br = await fetchJs("br");
    assert.notEqual(plain.headers["etag"], br.headers["etag"]);
    assert.equal((await fetchJs("br", { "if-none-match": String(br.headers["etag"]) })).status, 304);
    assert.equal((await fetchJs(undefined, { "if-none-match": String(br.headers["etag"]) })).status, 200);
  });

  it("applies a range to the encoded bytes", async () => {
    const whole = await fetchJs("gzip");
    const r = await fetchJs("gzip", { range: "bytes=0-3" });
    assert.equal(r.status, 206);
    assert.equal(r.headers["content-encoding"], "gzip");
    assert.equal(r.headers["content-range"], `bytes 0-3/${whole.body.length}`);
    assert.ok(r.body.equals(whole.body.subarray(0, 4)));
  });

  it("never uses a sibling that links out of the root", async () => {
    const r = await get(server, "/static/plain.js", { "accept-encoding": "gzip" });
    assert.equal(r.headers["content-encoding"], undefined);
    assert.equal(r.text, "plain");
  });

  it("is off with precompressed: false (no sibling, no Vary)", async () => {
    const app = new App({ logger: silentLogger }).register(serveStatic({ root, precompressed: false }));
    const r = await app.inject({ url: "/app.js", headers: { "accept-encoding": "br, gzip" } });
    assert.equal(r.headers["content-encoding"], undefined);
    assert.equal(r.headers["vary"], undefined);
    assert.equal(r.body, JS);
  });
});

describe("serveStatic: directories and index files", () => {
  let server: ListeningServer;
  before(async () => (server = await listen()));
  after(() => server.close());

  it("serves the index of the root and of a directory asked for with a slash", async () => {
    assert.equal((await get(server, "/static/")).text, "<h1>home</h1>");
    const sub = await get(server, "/static/sub/");
    assert.equal(sub.status, 200);
    assert.equal(sub.text, "<h1>sub</h1>");
    assert.equal(sub.headers["content-type"], "text/html; charset=utf-8");
  });

  it("redirects a directory without its slash (and the bare prefix) with 301, keeping the query", async () => {
    const sub = await get(server, "/static/sub?x=1");
    assert.equal(sub.status, 301);
    assert.equal(sub.headers["location"], "/static/sub/?x=1");
    const prefix = await get(server, "/static");
    assert.equal(prefix.status, 301);
    assert.equal(prefix.headers["location"], "/static/");
  });

  it("answers 404 for a directory without an index, with or without the slash, and for a file with a slash", async () => {
    assertNotFound(await get(server, "/static/empty/"), "empty/");
    assertNotFound(await get(server, "/static/empty"), "empty");
    assertNotFound(await get(server, "/static/style.css/"), "file with slash");
    assertNotFound(await get(server, "/static/missing.txt"), "missing");
  });

  it("answers 404 for every directory with index: false", async () => {
    const app = new App({ logger: silentLogger }).register(serveStatic({ root, prefix: "/static", index: false }));
    assert.equal((await app.inject({ url: "/static/" })).status, 404);
    assert.equal((await app.inject({ url: "/static/sub" })).status, 404);
    assert.equal((await app.inject({ url: "/static/sub/" })).status, 404);
    assert.equal((await app.inject({ url: "/static" })).status, 404);
  });

  it("mounts at / by default", async () => {
    const app = new App({ logger: silentLogger }).register(serveStatic({ root }));
    assert.equal((await app.inject({ url: "/" })).body, "<h1>home</h1>");
    assert.equal((await app.inject({ url: "/style.css" })).body, "body { color: red }");
    assert.equal((await app.inject({ url: "/../package.json" })).status, 404);
  });
});

describe("serveStatic: streaming and descriptors", () => {
  it("closes the file descriptor when the client goes away mid-stream", async (t) => {
    if (!existsSync("/proc/self/fd")) return t.skip("needs /proc/self/fd");
    const server = await listen();
    try {
      const target = join(root, "huge.bin");
      const openCount = (): number => {
        let n = 0;
        for (const fd of readdirSync("/proc/self/fd")) {
          try {
            if (readlinkSync(`/proc/self/fd/${fd}`) === target) n++;
          } catch {
            // the descriptor closed while listing
          }
        }
        return n;
      };
      const { port } = new URL(server.url);
      const req = request({ host: "127.0.0.1", port, path: "/static/huge.bin", agent: false });
      const firstChunk = new Promise<void>((resolve, reject) => {
        req.on("response", (res) => {
          res.once("data", () => {
            res.pause(); // stop reading: backpressure keeps the server's stream (and descriptor) open
            resolve();
          });
        });
        req.on("error", reject);
      });
      req.end();
      await firstChunk;
      assert.equal(openCount(), 1, "the descriptor is open while the body is being sent");
      req.on("error", () => {});
      req.destroy();
      for (let i = 0; i < 200 && openCount() > 0; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(openCount(), 0, "the descriptor is closed after the client went away");
    } finally {
      await server.close();
    }
  });
});

describe("serveStatic: registration", () => {
  it("hides its routes from the OpenAPI document", () => {
    const app = new App({ logger: silentLogger }).register(serveStatic({ root, prefix: "/static" }));
    assert.ok(app.routeTable().length >= 2);
    for (const r of app.routeTable()) assert.equal(r.meta.hidden, true);
    assert.deepEqual(Object.keys(openApiDocument(app).paths ?? {}), []);
  });

  it("refuses bad options at startup", () => {
    assert.throws(() => serveStatic({ root: join(dir, "nope") }), /does not exist/);
    assert.throws(() => serveStatic({ root: join(root, "style.css") }), /not a directory/);
    assert.throws(() => serveStatic({ root, maxAge: -1 }), /maxAge/);
    assert.throws(() => serveStatic({ root, maxAge: 1.5 }), /maxAge/);
    assert.throws(() => serveStatic({ root, prefix: "static" }), /prefix/);
    assert.throws(() => serveStatic({ root, prefix: "/files/{id}" }), /prefix/);
    assert.throws(() => serveStatic({ root, index: "../index.html" }), /index/);
    assert.throws(() => serveStatic({ root, dotfiles: "ignore" as "deny" }), /dotfiles/);
    assert.doesNotThrow(() => serveStatic({ root, maxAge: 0 }));
  });
});

function curl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("curl", args, { encoding: "utf8" }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}
