// An oversized upload must be able to read its 413: the server answers early, then keeps reading
// and discarding (lingering close) instead of resetting the connection under the client's feet.
// Each client sends the whole body the way real clients do (Node's http client, curl).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { request } from "node:http";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { silentLogger, type ListeningServer } from "../../lib/index.js";
import { createSampleApp } from "../../lib/sample/index.js";
import { rawExchange } from "../support/http.js";

const UPLOADS = 50;
const BODY = Buffer.alloc(20 * 1024 * 1024, 0x20); // 20 MiB of JSON whitespace: over the 1 MiB limit

interface Outcome {
  status: number;
  body: string;
  error?: string;
}

/** POST a 20 MiB body with Node's client; `chunked` drops Content-Length. */
function nodeUpload(port: number, chunked: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    // Settles when the request is closed, so an EPIPE/ECONNRESET after the answer counts too:
    // a client that awaits its upload sees that error, not the 413.
    let status = 0;
    let body = "";
    let error: string | undefined;
    const headers: Record<string, string | number> = { "content-type": "application/json" };
    if (!chunked) headers["content-length"] = BODY.length;
    const req = request({ host: "127.0.0.1", port, method: "POST", path: "/users", headers, agent: false }, (res) => {
      status = res.statusCode ?? 0;
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("error", (e) => (error ??= e.message));
    });
    req.on("error", (e) => (error ??= e.message));
    req.on("close", () => setImmediate(() => resolve({ status, body, ...(error === undefined ? {} : { error }) })));
    if (chunked) {
      // Several writes so the body really goes out as chunks.
      for (let off = 0; off < BODY.length; off += 1024 * 1024) req.write(BODY.subarray(off, off + 1024 * 1024));
      req.end();
    } else req.end(BODY);
  });
}

/** POST the same body with curl (reads the body from stdin). */
function curlUpload(port: number, chunked: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const args = ["-sS", "-o", "-", "-w", "\n%{http_code}", "-X", "POST", "-H", "content-type: application/json"];
    if (chunked) args.push("-H", "transfer-encoding: chunked");
    args.push("--data-binary", "@-", `http://127.0.0.1:${port}/users`);
    const child = spawn("curl", args, { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.stdin.on("error", () => {}); // curl may stop reading stdin once it has the answer
    child.stdin.end(BODY);
    child.on("close", () => {
      const cut = out.lastIndexOf("\n");
      resolve({ status: Number(out.slice(cut + 1)), body: out.slice(0, cut), ...(err === "" ? {} : { error: err.trim() }) });
    });
  });
}

function assertUniform413(o: Outcome, label: string): void {
  assert.equal(o.error, undefined, `${label}: the client saw ${o.error} (status ${o.status})`);
  assert.equal(o.status, 413, `${label}: ${o.error ?? ""} ${o.body.slice(0, 120)}`);
  const body = JSON.parse(o.body) as { error: { type: string }; error_id: string };
  assert.equal(body.error.type, "payload_too_large", label);
  assert.match(body.error_id, /^err_[0-9a-f]{32}$/, label);
}

/**
 * The sample limits writes per client (20 at once), so each batch of uploads gets a fresh
 * instance: what is under test is the 413, not the rate limit.
 */
async function inBatches(total: number, upload: (port: number, i: number) => Promise<void>): Promise<void> {
  for (let start = 0; start < total; start += 10) {
    const server = await createSampleApp({ logger: silentLogger }).listen({ port: 0 });
    try {
      for (let i = start; i < Math.min(total, start + 10); i++) await upload(server.port, i);
    } finally {
      await server.close();
    }
  }
}

describe("oversized uploads read their 413 (lingering close)", () => {
  it(`Node's http client: ${UPLOADS}/${UPLOADS} uploads (Content-Length and chunked) read the uniform 413`, async () => {
    await inBatches(UPLOADS, async (port, i) => assertUniform413(await nodeUpload(port, i % 2 === 1), `node upload ${i}`));
  });

  it(`curl: ${UPLOADS}/${UPLOADS} uploads (Content-Length and chunked) read the uniform 413`, async () => {
    await inBatches(UPLOADS, async (port, i) => assertUniform413(await curlUpload(port, i % 2 === 1), `curl upload ${i}`));
  });

  it("the connection still closes: the answer says so and the socket ends after the body", async () => {
    await inBatches(1, async (port) => {
      const head = "POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n";
      const out = await rawExchange(port, Buffer.concat([Buffer.from(head), Buffer.alloc(2_000_000, 0x20)]), 5000);
      assert.match(out, /^HTTP\/1\.1 413 /);
      assert.match(out, /connection: close/i);
    });
  });

  it("an early answer other than 413 (the write limit's 429) on a closing connection is read too", async () => {
    const server = await createSampleApp({ logger: silentLogger }).listen({ port: 0 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const o = await nodeUpload(server.port, false);
        assert.equal(o.error, undefined, `upload ${i}: the client saw ${o.error} (status ${o.status})`);
        statuses.push(o.status);
      }
      assert.ok(statuses.includes(413) && statuses.includes(429), statuses.join(","));
    } finally {
      await server.close();
    }
  });
});

describe("lingering is bounded", () => {
  it("a client that keeps sending past lingerBytes is cut off", async () => {
    const app = createSampleApp({ logger: silentLogger });
    const server = await app.listen({ port: 0, lingerBytes: 256 * 1024, lingerTimeout: 10_000 });
    try {
      const outcome = await new Promise<{ status: number; closedAfterMs: number }>((resolve) => {
        const started = Date.now();
        let status = 0;
        const req = request({ host: "127.0.0.1", port: server.port, method: "POST", path: "/users", agent: false, headers: { "content-type": "application/json", "content-length": 500 * 1024 * 1024 } }, (res) => {
          status = res.statusCode ?? 0;
          res.resume();
        });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = (): void => {
          while (!req.destroyed && req.write(chunk));
          if (!req.destroyed) req.once("drain", pump);
        };
        req.on("error", () => resolve({ status, closedAfterMs: Date.now() - started }));
        req.on("close", () => resolve({ status, closedAfterMs: Date.now() - started }));
        pump();
      });
      assert.equal(outcome.status, 413);
      // Cut well before the 10 s linger timeout and long before 500 MiB went through.
      assert.ok(outcome.closedAfterMs < 9_000, `closed after ${outcome.closedAfterMs} ms`);
    } finally {
      await server.close();
    }
  });

  it("a client that stops sending is cut off after lingerTimeout", async () => {
    const server = await createSampleApp({ logger: silentLogger }).listen({ port: 0, lingerTimeout: 300 });
    try {
      const head = "POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9000000\r\n\r\n";
      // The rest of the body never comes: the server must not wait for it longer than it said.
      // allowHalfOpen: the client keeps its side open after the server's FIN, as a slow uploader
      // would; the server must close its socket after the linger timeout all the same.
      const serverSide = new Promise<number>((resolve) => {
        server.server.once("connection", (socket) => {
          const opened = Date.now();
          socket.once("close", () => resolve(Date.now() - opened));
        });
      });
      const sock = connect({ port: server.port, host: "127.0.0.1", allowHalfOpen: true });
      let text = "";
      sock.on("data", (d: Buffer) => (text += d.toString("latin1")));
      sock.on("error", () => {});
      sock.write(head);
      const closedAfter = await Promise.race([serverSide, new Promise<number>((r) => setTimeout(() => r(-1), 5_000))]);
      sock.destroy();
      assert.match(text, /^HTTP\/1\.1 413 /);
      assert.ok(closedAfter >= 250, `the server closed after ${closedAfter} ms (-1: not within 5 s)`);
      assert.ok(closedAfter < 3_000, `the server closed after ${closedAfter} ms`);
    } finally {
      await server.close();
    }
  });
});
