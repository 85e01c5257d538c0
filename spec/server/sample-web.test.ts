// The sample's web routes over a real socket: GET / (the users as an HTML page that links
// /static/keel.css), /static/* (the shipped folder, validators, no way out of it) and
// POST /api/v1/uploads with curl -F (a title and one file of at most 5 MiB; 201 with name, size,
// content type and SHA-256; each limit at its boundary; the temp files gone afterwards).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import type { ListeningServer } from "../../lib/index.js";
import { createSampleApp, MAX_UPLOAD_BYTES, PUBLIC_DIR, UserStore } from "../../lib/sample/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { ERROR_ID, send } from "../support/http.js";

const exec = promisify(execFile);

interface Curl {
  status: number;
  body: string;
}

/** curl -F: `fields` as `name=value` text fields, `files` as `name=@path;type=...`. */
async function curlForm(url: string, form: string[]): Promise<Curl> {
  const args = ["-s", "-S", "-o", "-", "-w", "\n%{http_code}", ...form.flatMap((f) => ["-F", f]), url];
  const { stdout } = await exec("curl", args, { maxBuffer: 1 << 20 });
  const nl = stdout.lastIndexOf("\n");
  return { status: Number(stdout.slice(nl + 1)), body: stdout.slice(0, nl) };
}

function uploadDirs(): string[] {
  return readdirSync(tmpdir()).filter((n) => n.startsWith("keel-upload-"));
}

async function noUploadDirsLeft(before: readonly string[]): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (uploadDirs().every((d) => before.includes(d))) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(uploadDirs().filter((d) => !before.includes(d)), [], "temp upload directories left behind");
}

describe("sample web routes", () => {
  let server: ListeningServer;
  let scratch: string;
  const users = new UserStore(["alice@example.com", "bob@example.com"]);
  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), "keel-sample-web-"));
    server = await createSampleApp({ logger: captureLogger(100), env: "development", users }).listen({ port: 0 });
  });
  after(async () => {
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("GET / is an HTML page listing the users, styled by /static/keel.css", async () => {
    const r = await send(server.url + "/");
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "text/html; charset=utf-8");
    assert.match(r.body, /^<!doctype html>/);
    assert.match(r.body, /<link rel="stylesheet" href="\/static\/keel.css">/);
    assert.match(r.body, /<td>1<\/td><td><a href="\/users\/1">alice@example.com<\/a><\/td>/);
    assert.match(r.body, /<td>2<\/td><td><a href="\/users\/2">bob@example.com<\/a><\/td>/);
    assert.match(r.body, /2 users in the sample's table\./);
    // The security headers apply to the page: its stylesheet is same-origin, so the CSP allows it.
    assert.match(String(r.headers["content-security-policy"]), /default-src 'self'/);
  });

  it("GET /static/keel.css serves the shipped file with validators; a repeat with its ETag is 304", async () => {
    const r = await send(server.url + "/static/keel.css");
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "text/css; charset=utf-8");
    assert.equal(r.headers["cache-control"], "public, max-age=3600");
    assert.equal(r.body, readFileSync(join(PUBLIC_DIR, "keel.css"), "utf8"));
    const etag = String(r.headers["etag"]);
    assert.ok(etag.length > 2);
    const again = await send(server.url + "/static/keel.css", { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304);
    assert.equal(again.body, "");
  });

  for (const path of ["/static/../package.json", "/static/%2e%2e/package.json", "/static/..%2fpackage.json", "/static/..%5cpackage.json", "/static/.gitignore", "/static/missing.css"]) {
    it(`GET ${path}: the uniform 404`, async () => {
      const r = await send(server.url + path);
      assert.equal(r.status, 404, r.body);
      const body = JSON.parse(r.body) as { error: { type: string }; error_id: string };
      assert.equal(body.error.type, "not_found");
      assert.match(body.error_id, ERROR_ID);
    });
  }

  it("POST /api/v1/uploads (curl -F): 201 with the title, name, size, type and SHA-256 of the file", async () => {
    const file = join(scratch, "report.pdf");
    const bytes = randomBytes(300_000);
    writeFileSync(file, bytes);
    const before = uploadDirs();
    const r = await curlForm(server.url + "/api/v1/uploads", ["title=Quarterly report", `file=@${file};type=application/pdf`]);
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(JSON.parse(r.body), {
      title: "Quarterly report",
      name: "report.pdf",
      size: 300_000,
      content_type: "application/pdf",
      sha256: createHash("sha256").update(bytes).digest("hex"),
    });
    await noUploadDirsLeft(before);
  });

  it("a file of exactly 5 MiB is accepted; one byte more is the uniform 413 naming the limit", async () => {
    const exact = join(scratch, "exact.bin");
    const over = join(scratch, "over.bin");
    writeFileSync(exact, Buffer.alloc(MAX_UPLOAD_BYTES, 7));
    writeFileSync(over, Buffer.alloc(MAX_UPLOAD_BYTES + 1, 7));
    const before = uploadDirs();
    const ok = await curlForm(server.url + "/api/v1/uploads", ["title=exact", `file=@${exact}`]);
    assert.equal(ok.status, 201, ok.body);
    assert.equal((JSON.parse(ok.body) as { size: number }).size, MAX_UPLOAD_BYTES);
    const tooBig = await curlForm(server.url + "/api/v1/uploads", ["title=over", `file=@${over}`]);
    assert.equal(tooBig.status, 413, tooBig.body);
    const body = JSON.parse(tooBig.body) as { error: { type: string; message: string }; error_id: string };
    assert.equal(body.error.type, "payload_too_large");
    assert.match(body.error.message, /maxFileSize/);
    await noUploadDirsLeft(before);
  });

  it("a missing title or file is a 422 naming the field; a second file is a 413", async () => {
    const file = join(scratch, "a.txt");
    writeFileSync(file, "hello");
    const noTitle = await curlForm(server.url + "/api/v1/uploads", [`file=@${file}`]);
    assert.equal(noTitle.status, 422, noTitle.body);
    assert.deepEqual((JSON.parse(noTitle.body) as { error: { fields: { field: string }[] } }).error.fields.map((f) => f.field), ["title"]);
    const noFile = await curlForm(server.url + "/api/v1/uploads", ["title=x"]);
    assert.equal(noFile.status, 422, noFile.body);
    assert.deepEqual((JSON.parse(noFile.body) as { error: { fields: { field: string }[] } }).error.fields.map((f) => f.field), ["file"]);
    const two = await curlForm(server.url + "/api/v1/uploads", ["title=x", `file=@${file}`, `file=@${file}`]);
    assert.equal(two.status, 413, two.body);
  });

  it("a JSON body is a 415", async () => {
    const r = await send(server.url + "/api/v1/uploads", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    assert.equal(r.status, 415);
  });

  it("the OpenAPI document describes the upload as multipart/form-data and the home page as HTML", async () => {
    const doc = JSON.parse((await send(server.url + "/docs/openapi.json")).body) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown>; required?: string[] } }> }; responses: Record<string, { content?: Record<string, unknown> }> }>>;
    };
    const upload = doc.paths["/api/v1/uploads"]?.["post"];
    const form = upload?.requestBody?.content["multipart/form-data"]?.schema;
    assert.ok(form !== undefined, "multipart/form-data request body");
    assert.deepEqual(form.properties["file"], { type: "string", format: "binary" });
    assert.ok("title" in form.properties);
    assert.ok(upload?.responses["413"] !== undefined && upload.responses["201"] !== undefined);
    assert.ok(doc.paths["/"]?.["get"]?.responses["200"]?.content?.["text/html"] !== undefined);
    assert.equal(Object.keys(doc.paths).some((p) => p.startsWith("/static")), false, "static files are not API operations");
  });
});
