// multipart() fuzzed: (1) any form, with any boundary, cut into HTTP chunks of any sizes on a real
// socket, comes out exactly as it went in (fields and file bytes); (2) any mangling of a valid
// body (cuts, flipped bytes, boundary fragments spliced in) is answered with the uniform error
// body and never a 5xx or a leak, in production mode.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Writable } from "node:stream";
import { App, route, silentLogger } from "../../lib/index.js";
import { multipart, type FileSink } from "../../lib/web/index.js";
import { rawExchange } from "../support/http.js";
import { runProperty, type Rng } from "./property.js";

const BOUNDARY_CHARS = [..."0123456789abcXYZ'()+_,-./:=?"];
const TRICKY = ["\r", "\n", "\r\n", "-", "--", "\r\n--", "\r\n\r\n", "a", "é", "\u0000", " "];

interface Form {
  boundary: string;
  fields: [string, string][];
  files: [string, number[]][];
  /** HTTP chunk sizes the body is cut into (cycled). */
  cuts: number[];
}

function genForm(rng: Rng): Form {
  let boundary = rng.pick(["", "----", "--x"]) + rng.string(BOUNDARY_CHARS, 30);
  if (boundary === "") boundary = "b";
  boundary = boundary.slice(0, 70);
  // Text that leans on the delimiter: its CRLF and dashes, and pieces of the boundary itself.
  const piece = (): string => (rng.chance(0.3) ? boundary.slice(0, rng.int(boundary.length + 1)) : rng.pick(TRICKY));
  const text = (): string => Array.from({ length: rng.int(12) }, piece).join("");
  const fields: [string, string][] = Array.from({ length: rng.int(4) }, (_, i) => [`f${i}`, text()]);
  const files: [string, number[]][] = Array.from({ length: rng.int(3) }, (_, i) => [
    `file${i}.bin`,
    [...Buffer.from(text() + rng.string(["\r", "\n", "-", "x"], 40))],
  ]);
  const cuts = Array.from({ length: 1 + rng.int(6) }, () => 1 + rng.int(rng.chance(0.5) ? 4 : 200));
  return { boundary, fields, files, cuts };
}

/** RFC 2046: a sender picks a boundary that no part contains as a delimiter (CRLF "--" boundary). */
function boundaryIsFree(form: Form): boolean {
  const delimiter = `\r\n--${form.boundary}`;
  const contents = [...form.fields.map(([, v]) => Buffer.from(v)), ...form.files.map(([, b]) => Buffer.from(b))];
  // Each content follows a CRLF (the end of its headers), which could begin a delimiter.
  return contents.every((c) => !Buffer.concat([Buffer.from("\r\n"), c]).includes(delimiter));
}

function encode(form: Form): Buffer {
  const out: Buffer[] = [];
  for (const [name, value] of form.fields) {
    out.push(Buffer.from(`--${form.boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const [filename, bytes] of form.files) {
    out.push(Buffer.from(`--${form.boundary}\r\nContent-Disposition: form-data; name="up"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    out.push(Buffer.from(bytes), Buffer.from("\r\n"));
  }
  out.push(Buffer.from(`--${form.boundary}--\r\n`));
  return Buffer.concat(out);
}

function chunked(payload: Buffer, cuts: number[], boundary: string): Buffer {
  const pieces: Buffer[] = [Buffer.from(`POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary="${boundary}"\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`)];
  for (let i = 0, k = 0; i < payload.length; k++) {
    const piece = payload.subarray(i, i + cuts[k % cuts.length]!);
    i += piece.length;
    pieces.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"));
  }
  pieces.push(Buffer.from("0\r\n\r\n"));
  return Buffer.concat(pieces);
}

test("multipart: any form, cut anywhere, arrives exactly as sent", async () => {
  const stored = new Map<string, Buffer>();
  const sink: FileSink = (part) => {
    const chunks: Buffer[] = [];
    return new Writable({
      write(c: Buffer, _e, cb) {
        chunks.push(Buffer.from(c));
        cb();
      },
      final(cb) {
        stored.set(part.filename, Buffer.concat(chunks));
        cb();
      },
    });
  };
  const app = new App({ logger: silentLogger }).routes(
    route.post("/form", [multipart({ files: { names: ["up"] }, dest: sink })], (b) => ({ fields: b.fields, sizes: b.files.up.map((f) => f.size) })),
  );
  const server = await app.listen({ port: 0 });
  try {
    await runProperty({
      name: "multipart round trip",
      generate: genForm,
      shrink: () => [],
      check: async (form) => {
        if (!boundaryIsFree(form)) return;
        stored.clear();
        const raw = await rawExchange(server.port, chunked(encode(form), form.cuts, form.boundary), 5000);
        const body = raw.slice(raw.indexOf("\r\n\r\n") + 4);
        assert.equal(raw.slice(9, 12), "200", raw);
        const out = JSON.parse(Buffer.from(body, "latin1").toString("utf8")) as { fields: Record<string, string>; sizes: number[] };
        assert.deepEqual(out.fields, Object.fromEntries(form.fields));
        assert.deepEqual(out.sizes, form.files.map(([, b]) => b.length));
        for (const [name, bytes] of form.files) assert.ok(stored.get(name)?.equals(Buffer.from(bytes)), name);
      },
    });
  } finally {
    await server.close();
  }
});

const STACK_OR_PATH = /\n\s+at |\/work\/|node_modules|\.ts:\d|\blib\/[a-z]/;

test("multipart: a mangled body is a uniform 4xx, never a 5xx", async () => {
  const discard: FileSink = () => new Writable({ write: (_c, _e, cb) => cb() });
  const app = new App({ logger: silentLogger, env: "production" }).routes(
    route.post("/form", [multipart({ files: { maxFileSize: 64 }, dest: discard, limits: { maxHeaderSize: 128, maxFieldSize: 64, maxParts: 6 } })], (b) => ({
      n: Object.keys(b.fields).length,
    })),
  );
  await runProperty({
    name: "multipart mangled",
    generate: (rng) => {
      const form = genForm(rng);
      const bytes = [...encode(form)];
      for (let n = rng.int(4); n > 0; n--) {
        const at = rng.int(bytes.length + 1);
        const op = rng.int(4);
        if (op === 0) bytes.length = at; // cut
        else if (op === 1 && at < bytes.length) bytes[at] = rng.int(256); // flip
        else if (op === 2) bytes.splice(at, 0, ...Buffer.from(rng.pick(["\r\n--" + form.boundary, "--", "\r\n\r\n", "--" + form.boundary + "--", ";", '"'])));
        else bytes.splice(at, rng.int(8)); // drop
      }
      return { boundary: form.boundary, bytes };
    },
    shrink: () => [],
    check: async ({ boundary, bytes }) => {
      const r = await app.inject({
        method: "POST",
        url: "/form",
        headers: { "content-type": `multipart/form-data; boundary="${boundary}"` },
        body: Buffer.from(bytes),
      });
      assert.ok(r.status < 500, `${r.status} ${r.body}`);
      assert.doesNotMatch(r.body, STACK_OR_PATH);
      if (r.status >= 400) {
        const e = r.json<{ error: { type: string; message: string }; error_id: string }>();
        assert.equal(typeof e.error.type, "string");
        assert.match(e.error_id, /^err_[0-9a-f]{32}$/);
      }
    },
  });
});
