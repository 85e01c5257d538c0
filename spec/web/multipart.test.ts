// multipart(): streaming multipart/form-data uploads. Over real sockets (curl -F, raw bodies in
// 1-byte chunks, aborted uploads) and app.inject for the limits, each at its boundary (the limit
// passes, one byte more is a 413 naming it); 415 for other media types and refused file types,
// 400 for malformed or truncated bodies, 422 for fields the schema refuses; temp files removed
// after the response, after a handler error, after a failed upload and after a client abort.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { App, ApiError, route, silentLogger, t, type InjectResponse, type ListeningServer } from "../../lib/index.js";
import { openApiDocument } from "../../lib/openapi/index.js";
import { multipart, type FileSink, type UploadedFile } from "../../lib/web/index.js";
import { ERROR_ID, rawExchange, send } from "../support/http.js";

const run = promisify(execFile);
const B = "----keelBoundary7MA4YWxk";
const CT = `multipart/form-data; boundary=${B}`;

interface Part {
  name: string;
  value: string | Buffer;
  filename?: string;
  type?: string;
  /** Replaces the generated header lines (each must end with CRLF). */
  rawHeaders?: string;
}

function partBytes(p: Part, boundary = B): Buffer {
  let head = p.rawHeaders;
  if (head === undefined) {
    head = `Content-Disposition: form-data; name="${p.name}"${p.filename === undefined ? "" : `; filename="${p.filename}"`}\r\n`;
    if (p.type !== undefined) head += `Content-Type: ${p.type}\r\n`;
  }
  return Buffer.concat([Buffer.from(`--${boundary}\r\n${head}\r\n`, "latin1"), Buffer.from(p.value), Buffer.from("\r\n")]);
}

/** A body as a browser would send it; `close: false` leaves out the closing delimiter. */
function body(parts: Part[], options: { boundary?: string; preamble?: string; epilogue?: string; close?: boolean } = {}): Buffer {
  const boundary = options.boundary ?? B;
  const chunks: Buffer[] = [Buffer.from(options.preamble ?? "")];
  for (const p of parts) chunks.push(partBytes(p, boundary));
  if (options.close !== false) chunks.push(Buffer.from(`--${boundary}--\r\n${options.epilogue ?? ""}`));
  return Buffer.concat(chunks);
}

function post(app: App, url: string, payload: Buffer | string, contentType = CT): Promise<InjectResponse> {
  return app.inject({ method: "POST", url, headers: { "content-type": contentType }, body: payload });
}

interface ErrorBody {
  error: { type: string; message: string; fields?: { field: string; code: string }[] };
  error_id: string;
}

function assertError(r: { status: number; body: string }, status: number, type: string, message?: RegExp): ErrorBody {
  assert.equal(r.status, status, r.body);
  const e = JSON.parse(r.body) as ErrorBody;
  assert.equal(e.error.type, type);
  assert.match(e.error_id, ERROR_ID);
  if (message !== undefined) assert.match(e.error.message, message);
  return e;
}

/** A user sink keeping every file in memory, with the size of each write it received. */
function memorySink(): { sink: FileSink; files: Map<string, Buffer>; writes: number[] } {
  const files = new Map<string, Buffer>();
  const writes: number[] = [];
  const sink: FileSink = (part) => {
    const chunks: Buffer[] = [];
    return new Writable({
      write(chunk: Buffer, _enc, cb) {
        writes.push(chunk.length);
        chunks.push(Buffer.from(chunk));
        cb();
      },
      final(cb) {
        files.set(part.filename, Buffer.concat(chunks));
        cb();
      },
    });
  };
  return { sink, files, writes };
}

/** `keel-upload-*` directories in the temp dir now. */
function uploadDirs(): Set<string> {
  return new Set(readdirSync(tmpdir()).filter((n) => n.startsWith("keel-upload-")).map((n) => join(tmpdir(), n)));
}

/** Poll (bounded) until `check()` is true; fails with `what` otherwise. */
async function eventually(check: () => boolean, what: string, limitMs = 5000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function newDirsSince(before: Set<string>): string[] {
  return [...uploadDirs()].filter((d) => !before.has(d));
}

/** Send `payload` as a chunked body whose HTTP chunks are `size` bytes: the server reads it in pieces that small. */
async function sendChunked(port: number, path: string, payload: Buffer, size: number, contentType = CT): Promise<{ status: number; body: string }> {
  const pieces: Buffer[] = [
    Buffer.from(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${contentType}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`),
  ];
  for (let i = 0; i < payload.length; i += size) {
    const piece = payload.subarray(i, i + size);
    pieces.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"));
  }
  pieces.push(Buffer.from("0\r\n\r\n"));
  const raw = await rawExchange(port, Buffer.concat(pieces), 10000);
  const status = Number(raw.slice(9, 12));
  return { status, body: raw.slice(raw.indexOf("\r\n\r\n") + 4) };
}

const scratch = mkdtempSync(join(tmpdir(), "keel-multipart-spec-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function sha256(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}

describe("multipart() over a real socket", () => {
  let server: ListeningServer;
  const seen: UploadedFile[] = [];
  const mem = memorySink();
  before(async () => {
    const app = new App({ logger: silentLogger }).routes(
      route.post(
        "/upload",
        { bodyLimit: 8 * 1024 * 1024 },
        [multipart({ fields: t.object({ title: t.string(), tags: t.optional(t.array(t.string())) }), files: { names: ["file", "more"] }, hash: "sha256" })],
        (b) => {
          for (const f of [...b.files.file, ...b.files.more]) seen.push(f);
          return {
            title: b.fields.title,
            tags: b.fields.tags ?? [],
            files: [...b.files.file, ...b.files.more].map((f) => ({
              ...f,
              onDisk: f.path !== null && existsSync(f.path),
              content: f.path === null ? null : readFileSync(f.path).toString("base64"),
              mode: f.path === null ? 0 : statSync(f.path).mode & 0o777,
            })),
          };
        },
      ),
      route.post("/fail", [multipart({ files: {} })], (b) => {
        for (const list of Object.values(b.files)) seen.push(...list);
        throw ApiError.conflict("the handler refused it");
      }),
      route.post("/small", { bodyLimit: 64 * 1024 }, [multipart({ files: { maxFileSize: 1000 } })], () => "never"),
      route.post("/bytes", { bodyLimit: 100_000 }, [multipart({ files: {}, dest: mem.sink })], (b) => ({
        fields: b.fields,
        files: Object.values(b.files).flat(),
      })),
      route.post("/limit", { bodyLimit: 300 }, [multipart()], (b) => b.fields),
      route.post("/slow", { bodyLimit: 100_000 }, [multipart({ files: {} })], () => "never"),
    );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("takes curl -F fields and files: a temp file (0600) with the bytes sent, its sha256, removed after the response", async () => {
    const path = join(scratch, "report.txt");
    const content = Buffer.concat([Buffer.from("line one\r\n--not a boundary\r\n"), Buffer.alloc(200_000, 0xa5)]);
    writeFileSync(path, content);
    const png = join(scratch, "pixel.png");
    writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const { stdout } = await run("curl", [
      "-s", "-F", "title=hello", "-F", "tags=a", "-F", "tags=b", "-F", `file=@${path}`, "-F", `more=@${png};type=image/png`, server.url + "/upload",
    ]);
    const out = JSON.parse(stdout) as { title: string; tags: string[]; files: (UploadedFile & { onDisk: boolean; content: string; mode: number })[] };
    assert.equal(out.title, "hello");
    assert.deepEqual(out.tags, ["a", "b"]);
    const [text, image] = out.files;
    assert.ok(text && image);
    assert.deepEqual(
      { field: text.field, filename: text.filename, contentType: text.contentType, size: text.size, onDisk: text.onDisk, mode: text.mode },
      { field: "file", filename: "report.txt", contentType: "text/plain", size: content.length, onDisk: true, mode: 0o600 },
    );
    assert.ok(Buffer.from(text.content, "base64").equals(content));
    assert.equal(text.sha256, sha256(content));
    assert.equal(image.contentType, "image/png");
    assert.equal(image.sha256, sha256(Buffer.from([0x89, 0x50, 0x4e, 0x47])));
    assert.ok(!text.path!.includes("report"), "the client's file name is never part of the path");
    assert.match(dirname(text.path!), /keel-upload-/);
    await eventually(() => !existsSync(dirname(text.path!)), "the upload directory is removed after the response");
  });

  it("removes the temp files when the handler throws", async () => {
    seen.length = 0;
    const path = join(scratch, "doomed.bin");
    writeFileSync(path, Buffer.alloc(5000, 1));
    const { stdout } = await run("curl", ["-s", "-F", `doc=@${path}`, server.url + "/fail"]);
    assertError({ status: 409, body: stdout }, 409, "conflict");
    assert.equal(seen.length, 1);
    await eventually(() => !existsSync(seen[0]!.path!), "the file of a failed handler is removed");
    await eventually(() => !existsSync(dirname(seen[0]!.path!)), "its directory is removed");
  });

  it("removes a partly written file when a limit stops the upload (413, connection closed)", async () => {
    const before = uploadDirs();
    const r = await send(server.url + "/small", {
      method: "POST",
      headers: { "content-type": CT },
      body: body([{ name: "f", filename: "big.bin", value: Buffer.alloc(1001, 7) }]),
    });
    assertError(r, 413, "payload_too_large", /files\.maxFileSize of 1000/);
    assert.equal(r.headers["connection"], "close");
    await eventually(() => newDirsSince(before).length === 0, "no upload directory is left");
  });

  it("removes the temp files when the client goes away mid-upload", async () => {
    const before = uploadDirs();
    const head = partBytes({ name: "f", filename: "half.bin", value: Buffer.alloc(0) }).subarray(0, -2);
    const sock = connect(server.port, "127.0.0.1");
    sock.on("error", () => undefined);
    await new Promise<void>((r) => sock.once("connect", () => r()));
    sock.write(`POST /slow HTTP/1.1\r\nHost: x\r\nContent-Type: ${CT}\r\nContent-Length: 90000\r\n\r\n`);
    sock.write(head);
    sock.write(Buffer.alloc(20_000, 3));
    let dir = "";
    await eventually(() => {
      const fresh = newDirsSince(before);
      if (fresh.length !== 1) return false;
      dir = fresh[0]!;
      const files = readdirSync(dir);
      return files.length === 1 && statSync(join(dir, files[0]!)).size > 0;
    }, "the upload is being written to a temp file");
    sock.destroy();
    await eventually(() => !existsSync(dir), "the upload directory is removed after the abort");
  });

  it("parses a body read one byte at a time: boundary-like data, CRLF kept exactly, preamble and epilogue ignored", async () => {
    mem.files.clear();
    mem.writes.length = 0;
    const tricky = Buffer.concat([
      // Prefixes of the delimiter (CRLF "--" boundary) that stop short of it, one dash short included.
      Buffer.from(`\r\n--${B.slice(0, 10)}\r\r\n-${B}`),
      Buffer.from("\r\n\r\n-\r\n--"),
      Buffer.from([0, 255, 13, 10, 13]),
    ]);
    const payload = body(
      [
        { name: "note", value: "two\r\nlines\r\n" },
        { name: "blob", filename: "tricky.bin", type: "application/octet-stream", value: tricky },
        { name: "empty", value: "" },
      ],
      { preamble: "This is the preamble.\r\n", epilogue: "This is the epilogue.\r\n" },
    );
    const r = await sendChunked(server.port, "/bytes", payload, 1);
    assert.equal(r.status, 200, r.body);
    const out = JSON.parse(r.body) as { fields: Record<string, string>; files: UploadedFile[] };
    assert.deepEqual(out.fields, { note: "two\r\nlines\r\n", empty: "" });
    assert.equal(out.files.length, 1);
    assert.equal(out.files[0]!.size, tricky.length);
    assert.equal(out.files[0]!.path, null);
    assert.ok(mem.files.get("tricky.bin")!.equals(tricky));
    // The sink got the file in pieces no larger than a delimiter: the body really came in small reads.
    assert.ok(Math.max(...mem.writes) <= B.length + 4, `largest write ${Math.max(...mem.writes)}`);
  });

  it("counts the route's body limit on bytes read from a chunked body: the limit passes, one byte more is a 413", async () => {
    const base = body([{ name: "a", value: "" }]);
    const exact = body([{ name: "a", value: "x".repeat(300 - base.length) }]);
    assert.equal(exact.length, 300);
    const ok = await sendChunked(server.port, "/limit", exact, 64);
    assert.equal(ok.status, 200, ok.body);
    const over = await sendChunked(server.port, "/limit", body([{ name: "a", value: "x".repeat(301 - base.length) }]), 64);
    assertError(over, 413, "payload_too_large", /limit of 300 bytes/);
  });
});

describe("multipart() limits, each at its boundary", () => {
  const mem = memorySink();
  const app = new App({ logger: silentLogger }).routes(
    route.post("/file", [multipart({ files: { maxFileSize: 10 }, dest: mem.sink })], (b) => ({ n: Object.values(b.files).flat().length })),
    route.post("/files", [multipart({ files: { maxFiles: 2 }, dest: mem.sink })], (b) => ({ n: Object.values(b.files).flat().length })),
    route.post("/field", [multipart({ limits: { maxFieldSize: 5 } })], (b) => b.fields),
    route.post("/fields", [multipart({ limits: { maxFields: 2 } })], (b) => b.fields),
    route.post("/parts", [multipart({ limits: { maxParts: 3 }, files: {}, dest: mem.sink })], (b) => b.fields),
    route.post("/header", [multipart({ limits: { maxHeaderSize: 48 } })], (b) => b.fields),
    route.post("/body", { bodyLimit: 200 }, [multipart()], (b) => b.fields),
  );

  it("files.maxFileSize: 10 bytes pass, 11 are a 413 naming the limit", async () => {
    assert.equal((await post(app, "/file", body([{ name: "f", filename: "a", value: "x".repeat(10) }]))).status, 200);
    const r = await post(app, "/file", body([{ name: "f", filename: "a", value: "x".repeat(11) }]));
    assertError(r, 413, "payload_too_large", /files\.maxFileSize of 10/);
    assert.equal(r.headers["connection"], "close");
  });

  it("files.maxFiles: 2 files pass, 3 are a 413", async () => {
    const f = (n: string): Part => ({ name: "f", filename: n, value: "x" });
    assert.equal((await post(app, "/files", body([f("1"), f("2")]))).status, 200);
    assertError(await post(app, "/files", body([f("1"), f("2"), f("3")])), 413, "payload_too_large", /files\.maxFiles of 2/);
  });

  it("limits.maxFieldSize: 5 bytes pass, 6 are a 413", async () => {
    const ok = await post(app, "/field", body([{ name: "a", value: "héllo".slice(0, 4) }]));
    assert.equal(ok.status, 200); // "héll" is 5 bytes
    assert.deepEqual(ok.json(), { a: "héll" });
    assertError(await post(app, "/field", body([{ name: "a", value: "abcdef" }])), 413, "payload_too_large", /limits\.maxFieldSize of 5/);
  });

  it("limits.maxFields: 2 fields pass, 3 are a 413", async () => {
    assert.equal((await post(app, "/fields", body([{ name: "a", value: "1" }, { name: "b", value: "2" }]))).status, 200);
    const three = body([{ name: "a", value: "1" }, { name: "b", value: "2" }, { name: "c", value: "3" }]);
    assertError(await post(app, "/fields", three), 413, "payload_too_large", /limits\.maxFields of 2/);
  });

  it("limits.maxParts: 3 parts (fields and files) pass, 4 are a 413", async () => {
    const parts: Part[] = [{ name: "a", value: "1" }, { name: "f", filename: "x", value: "2" }, { name: "b", value: "3" }];
    assert.equal((await post(app, "/parts", body(parts))).status, 200);
    assertError(await post(app, "/parts", body([...parts, { name: "c", value: "4" }])), 413, "payload_too_large", /limits\.maxParts of 3/);
  });

  it("limits.maxHeaderSize: header lines of 48 bytes pass, 49 are a 413", async () => {
    const line = (name: string): string => `Content-Disposition: form-data; name="${name}"\r\n`;
    assert.equal(line("abcdefg").length, 48);
    const ok = await post(app, "/header", body([{ name: "", value: "v", rawHeaders: line("abcdefg") }]));
    assert.equal(ok.status, 200, ok.body);
    assert.deepEqual(ok.json(), { abcdefg: "v" });
    const over = await post(app, "/header", body([{ name: "", value: "v", rawHeaders: line("abcdefgh") }]));
    assertError(over, 413, "payload_too_large", /limits\.maxHeaderSize of 48/);
  });

  it("the route's bodyLimit bounds the whole body (declared length): the limit passes, one byte more is a 413", async () => {
    const base = body([{ name: "a", value: "" }]).length;
    assert.equal((await post(app, "/body", body([{ name: "a", value: "x".repeat(200 - base) }]))).status, 200);
    assertError(await post(app, "/body", body([{ name: "a", value: "x".repeat(201 - base) }])), 413, "payload_too_large");
  });
});

describe("multipart() media types, malformed bodies and validation", () => {
  const mem = memorySink();
  const Fields = t.object({ count: t.integer({ minimum: 1 }), tags: t.optional(t.array(t.string())), name: t.optional(t.string()) });
  const app = new App({ logger: silentLogger }).routes(
    route.post("/typed", [multipart({ fields: Fields })], (b) => b.fields),
    route.post("/any", [multipart()], (b) => b.fields),
    route.post("/images", [multipart({ files: { names: ["pic"], types: ["image/png", "text/*"] }, dest: mem.sink })], (b) =>
      b.files.pic.map((f) => ({ filename: f.filename, contentType: f.contentType, size: f.size })),
    ),
  );

  it("415 for a body that is not multipart/form-data (or has no content-type)", async () => {
    assertError(await post(app, "/any", "a=1", "application/x-www-form-urlencoded"), 415, "unsupported_media_type", /expected multipart\/form-data/);
    assertError(await post(app, "/any", "{}", "application/json"), 415, "unsupported_media_type");
    assertError(await app.inject({ method: "POST", url: "/any", body: Buffer.from("x") }), 415, "unsupported_media_type");
  });

  it("415 for a file whose type is not accepted; type/* ranges match; a missing type is application/octet-stream", async () => {
    const ok = await post(app, "/images", body([
      { name: "pic", filename: "a.png", type: "image/png", value: "p" },
      { name: "pic", filename: "b.md", type: "Text/Markdown; charset=utf-8", value: "m" },
    ]));
    assert.equal(ok.status, 200, ok.body);
    assert.deepEqual(ok.json(), [
      { filename: "a.png", contentType: "image/png", size: 1 },
      { filename: "b.md", contentType: "text/markdown", size: 1 },
    ]);
    assertError(await post(app, "/images", body([{ name: "pic", filename: "c.gif", type: "image/gif", value: "g" }])), 415, "unsupported_media_type", /image\/gif/);
    assertError(await post(app, "/images", body([{ name: "pic", filename: "d", value: "?" }])), 415, "unsupported_media_type", /application\/octet-stream/);
  });

  it("400 for a file under an undeclared name, or any file where none are accepted", async () => {
    assertError(await post(app, "/images", body([{ name: "other", filename: "a.png", type: "image/png", value: "p" }])), 400, "bad_request", /Unexpected file/);
    assertError(await post(app, "/any", body([{ name: "f", filename: "a.txt", value: "p" }])), 400, "bad_request", /Unexpected file/);
  });

  it("a file input left empty (filename=\"\") is no file", async () => {
    const r = await post(app, "/images", body([{ name: "pic", filename: "", type: "application/octet-stream", value: "" }]));
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json(), []);
  });

  it("boundary: quoted or not, up to 70 characters; missing, longer or invalid is a 400", async () => {
    const b70 = "b".repeat(70);
    const one = (boundary: string) => body([{ name: "k", value: "v" }], { boundary });
    assert.equal((await post(app, "/any", one(b70), `multipart/form-data; boundary=${b70}`)).status, 200);
    assert.equal((await post(app, "/any", one("a b:c"), `multipart/form-data; charset=utf-8; boundary="a b:c"`)).status, 200);
    const b71 = "b".repeat(71);
    assertError(await post(app, "/any", one(b71), `multipart/form-data; boundary=${b71}`), 400, "bad_request", /boundary/);
    assertError(await post(app, "/any", one("x"), "multipart/form-data"), 400, "bad_request", /boundary/);
    assertError(await post(app, "/any", one("a "), `multipart/form-data; boundary="a "`), 400, "bad_request", /boundary/);
    assertError(await post(app, "/any", one("a"), `multipart/form-data; boundary="a{"`), 400, "bad_request", /boundary/);
  });

  it("400 for truncated and malformed bodies", async () => {
    const cases: [string, Buffer | string][] = [
      ["no closing delimiter", body([{ name: "k", value: "v" }], { close: false })],
      ["cut inside a part", body([{ name: "k", value: "v" }]).subarray(0, 60)],
      ["no boundary at all", "just some text"],
      ["a boundary followed by junk", `--${B}junk\r\nContent-Disposition: form-data; name="k"\r\n\r\nv\r\n--${B}--`],
      ["no Content-Disposition", body([{ name: "", value: "v", rawHeaders: "Content-Type: text/plain\r\n" }])],
      ["not form-data", body([{ name: "", value: "v", rawHeaders: 'Content-Disposition: attachment; name="k"\r\n' }])],
      ["no name", body([{ name: "", value: "v", rawHeaders: "Content-Disposition: form-data\r\n" }])],
      ["a folded header", body([{ name: "", value: "v", rawHeaders: 'Content-Disposition: form-data;\r\n name="k"\r\n' }])],
      ["a header without a colon", body([{ name: "", value: "v", rawHeaders: 'Content-Disposition: form-data; name="k"\r\nnonsense\r\n' }])],
      ["an encoded part", body([{ name: "", value: "dg==", rawHeaders: 'Content-Disposition: form-data; name="k"\r\nContent-Transfer-Encoding: base64\r\n' }])],
      ["a field that is not UTF-8", body([{ name: "k", value: Buffer.from([0xc3, 0x28]) }])],
      ["a bad filename*", body([{ name: "", value: "v", rawHeaders: "Content-Disposition: form-data; name=\"k\"; filename*=UTF-8''%zz\r\n" }])],
    ];
    for (const [label, payload] of cases) {
      const r = await post(app, "/any", payload);
      assert.equal(r.status, 400, `${label}: ${r.body}`);
      assert.equal((JSON.parse(r.body) as ErrorBody).error.type, "bad_request", label);
    }
    assertError(await app.inject({ method: "POST", url: "/any", headers: { "content-type": CT } }), 400, "bad_request", /empty/);
  });

  it("transport padding after a boundary and a body with no parts are accepted", async () => {
    const padded = `--${B}  \t\r\nContent-Disposition: form-data; name="k"\r\n\r\nv\r\n--${B}--`;
    assert.deepEqual((await post(app, "/any", padded)).json(), { k: "v" });
    const r = await post(app, "/any", `--${B}--\r\n`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json(), {});
  });

  it("validates fields with the schema: coerced like form(), 422 like json()", async () => {
    const ok = await post(app, "/typed", body([{ name: "count", value: "3" }, { name: "tags", value: "x" }]));
    assert.equal(ok.status, 200, ok.body);
    assert.deepEqual(ok.json(), { count: 3, tags: ["x"] });
    const many = await post(app, "/typed", body([{ name: "count", value: "1" }, { name: "tags", value: "x" }, { name: "tags", value: "y" }]));
    assert.deepEqual(many.json(), { count: 1, tags: ["x", "y"] });
    const bad = assertError(await post(app, "/typed", body([{ name: "count", value: "zero" }])), 422, "validation_error");
    assert.equal(bad.error.fields?.[0]?.field, "count");
    const missing = assertError(await post(app, "/typed", body([{ name: "name", value: "n" }])), 422, "validation_error");
    assert.equal(missing.error.fields?.[0]?.field, "count");
  });

  it("repeated names: an array only where the schema says array; a repeated scalar is a 422; without a schema, an array", async () => {
    const twice = body([{ name: "count", value: "1" }, { name: "name", value: "a" }, { name: "name", value: "b" }]);
    const e = assertError(await post(app, "/typed", twice), 422, "validation_error");
    assert.equal(e.error.fields?.[0]?.field, "name");
    assert.deepEqual((await post(app, "/any", body([{ name: "k", value: "1" }, { name: "k", value: "2" }]))).json(), { k: ["1", "2"] });
  });

  it("reads filename* (RFC 8187) over filename, and keeps curl's and browsers' escaping as sent", async () => {
    const disposition = "Content-Disposition: form-data; name=\"pic\"; filename=\"fallback.png\"; filename*=UTF-8''na%C3%AFve%20%E2%82%AC.png\r\nContent-Type: image/png\r\n";
    const r = await post(app, "/images", body([
      { name: "", value: "p", rawHeaders: disposition },
      { name: "pic", filename: "C:\\dir\\a %22q%22.png", type: "image/png", value: "q" },
    ]));
    assert.equal(r.status, 200, r.body);
    assert.deepEqual((r.json() as { filename: string }[]).map((f) => f.filename), ["naïve €.png", "C:\\dir\\a %22q%22.png"]);
  });

  it("fields named like Object.prototype members are plain data", async () => {
    const r = await post(app, "/any", body([{ name: "__proto__", value: "x" }, { name: "constructor", value: "y" }]));
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { ["__proto__"]: "x", constructor: "y" });
  });
});

describe("multipart() with a user sink", () => {
  it("streams a large file into a slow sink with backpressure, byte for byte", async () => {
    const received: Buffer[] = [];
    let maxBuffered = 0;
    const slow: FileSink = () =>
      new Writable({
        highWaterMark: 1024,
        write(chunk: Buffer, _enc, cb) {
          received.push(Buffer.from(chunk));
          setImmediate(cb);
        },
      });
    const app = new App({ logger: silentLogger }).routes(
      route.post("/sink", { bodyLimit: 4 * 1024 * 1024 }, [multipart({ files: { maxFileSize: 3 * 1024 * 1024 }, dest: slow, hash: "sha256" })], (b) => {
        const f = Object.values(b.files).flat()[0]!;
        return { size: f.size, sha256: f.sha256, path: f.path };
      }),
    );
    const server = await app.listen({ port: 0 });
    try {
      const data = Buffer.alloc(2 * 1024 * 1024);
      for (let i = 0; i < data.length; i++) data[i] = (i * 31 + (i >> 9)) & 0xff;
      const r = await send(server.url + "/sink", { method: "POST", headers: { "content-type": CT }, body: body([{ name: "f", filename: "big", value: data }]) });
      assert.equal(r.status, 200, r.body);
      assert.deepEqual(JSON.parse(r.body), { size: data.length, sha256: sha256(data), path: null });
      assert.ok(Buffer.concat(received).equals(data));
      maxBuffered = received.length;
      assert.ok(maxBuffered > 1);
    } finally {
      await server.close();
    }
  });

  it("does not stall when the chunk that ends a file also leaves its sink full (no 'drain' after end)", { timeout: 20_000 }, async () => {
    // The first write opens the part; the second carries the rest of the file and the closing
    // boundary in one chunk, so the sink is over its high-water mark when the part ends.
    const received: Buffer[] = [];
    const slow: FileSink = () =>
      new Writable({
        highWaterMark: 16,
        write(chunk: Buffer, _enc, cb) {
          received.push(Buffer.from(chunk));
          setTimeout(cb, 5);
        },
      });
    const app = new App({ logger: silentLogger }).routes(
      route.post("/sink", [multipart({ files: { maxFileSize: 1 << 20 }, dest: slow })], (b) => ({ size: Object.values(b.files).flat()[0]!.size })),
    );
    const server = await app.listen({ port: 0 });
    try {
      const data = Buffer.alloc(8 * 1024, 9);
      const whole = body([{ name: "f", filename: "x", value: data }]);
      const head = whole.indexOf("\r\n\r\n") + 4 + 10;
      const answer = await new Promise<string>((resolve, reject) => {
        const sock = connect(server.port, "127.0.0.1");
        let text = "";
        sock.on("data", (d: Buffer) => (text += d.toString("latin1")));
        sock.on("end", () => resolve(text));
        sock.on("error", reject);
        sock.write(`POST /sink HTTP/1.1\r\nhost: x\r\ncontent-type: ${CT}\r\ncontent-length: ${whole.length}\r\nconnection: close\r\n\r\n`);
        sock.write(whole.subarray(0, head));
        setTimeout(() => sock.write(whole.subarray(head)), 100);
      });
      assert.match(answer, /^HTTP\/1\.1 200 /, answer.slice(0, 300));
      assert.match(answer, /\{"size":8192\}/);
      assert.equal(Buffer.concat(received).length, data.length);
    } finally {
      await server.close();
    }
  });

  it("a sink that fails is a 500, and the request does not hang", async () => {
    const broken: FileSink = () =>
      new Writable({
        write(_chunk, _enc, cb) {
          cb(new Error("disk full"));
        },
      });
    const app = new App({ logger: silentLogger }).routes(route.post("/broken", [multipart({ files: {}, dest: broken })], () => "never"));
    assertError(await post(app, "/broken", body([{ name: "f", filename: "x", value: "data" }])), 500, "internal_error");
  });
});

describe("multipart() in the OpenAPI document and in types", () => {
  it("declares multipart/form-data with the fields' properties and each file as a binary string", () => {
    const app = new App({ logger: silentLogger }).routes(
      route.post("/profile", [multipart({ fields: t.object({ title: t.string(), age: t.optional(t.integer()) }), files: { names: ["avatar"] } })], (b) => {
        const title: string = b.fields.title;
        const age: number | undefined = b.fields.age;
        const avatars: UploadedFile[] = b.files.avatar;
        // @ts-expect-error only declared file names are typed
        void b.files.other;
        // @ts-expect-error title is a string
        const wrong: number = b.fields.title;
        return { title, age, n: avatars.length, wrong };
      }),
      route.post("/loose", [multipart()], (b) => {
        const v: string | string[] | undefined = b.fields["x"];
        const files: UploadedFile[] | undefined = b.files["y"];
        return { v, n: files?.length ?? 0 };
      }),
    );
    const doc = openApiDocument(app) as unknown as {
      paths: Record<string, { post: { requestBody: { content: Record<string, { schema: Record<string, unknown> }> }; responses: Record<string, unknown> } }>;
    };
    const op = doc.paths["/profile"]!.post;
    const schema = op.requestBody.content["multipart/form-data"]!.schema as { type: string; properties: Record<string, Record<string, unknown>>; required: string[] };
    assert.equal(schema.type, "object");
    assert.deepEqual({ ...schema.properties["avatar"] }, { type: "string", format: "binary" });
    assert.equal(schema.properties["title"]!["type"], "string");
    assert.equal(schema.properties["age"]!["type"], "integer");
    assert.deepEqual(schema.required, ["title"]);
    for (const status of ["400", "413", "415", "422"]) assert.ok(op.responses[status], status);
  });

  it("refuses bad options when the route is declared", () => {
    assert.throws(() => multipart({ files: { maxFileSize: -1 } }), /maxFileSize/);
    assert.throws(() => multipart({ files: { types: ["png"] } }), /types/);
    assert.throws(() => multipart({ limits: { maxParts: 0 } }), /maxParts/);
  });
});

describe("multipart() through app.inject", () => {
  it("removes the temp files once the injected answer has been collected", async () => {
    let seen = "";
    const app = new App({ logger: silentLogger }).routes(
      route.post("/up", { bodyLimit: 1 << 20 }, [multipart({ files: { names: ["file"], maxFileSize: 1000, maxFiles: 1 } })], ({ files }) => {
        const file = files.file[0]!;
        seen = file.path ?? "";
        return { exists: existsSync(seen), text: readFileSync(seen, "utf8") };
      }),
    );
    const r = await post(app, "/up", body([{ name: "file", filename: "a.txt", type: "text/plain", value: "hello" }]));
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json(), { exists: true, text: "hello" });
    assert.notEqual(seen, "");
    assert.equal(existsSync(seen), false, "the file is gone after inject returned");
    assert.equal(existsSync(dirname(seen)), false, "and so is its directory");
  });
});
