// compression() and serveStatic() read Accept-Encoding with the one parser (keel/plugin
// selectEncoding), so for the same header they choose the same coding. Before, `gzip;q=1e-1`
// got gzip from compression() (its own parser took Number("1e-1")) and identity from
// serveStatic() (which checked the qvalue grammar).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { App, reply, route, silentLogger } from "../../lib/index.js";
import { compression } from "../../lib/middleware/index.js";
import { serveStatic } from "../../lib/web/index.js";

const JS = "export const answer = 42;\n".repeat(200);
const dir = mkdtempSync(join(tmpdir(), "keel-agreement-"));
writeFileSync(join(dir, "app.js"), JS);
writeFileSync(join(dir, "app.js.br"), brotliCompressSync(JS));
writeFileSync(join(dir, "app.js.gz"), gzipSync(JS));

// The same two codings on both sides, in the same order (br first), so the choices are comparable.
const compressed = new App({ logger: silentLogger })
  .layer(compression({ encodings: ["br", "gzip"], threshold: 0 }))
  .route(route.get("/app.js", [], () => reply(200, JS, { "content-type": "text/javascript; charset=utf-8" })));
const files = new App({ logger: silentLogger }).register(serveStatic({ root: dir }));

const HEADERS: Array<[string | undefined, string | undefined]> = [
  ["gzip;q=1e-1", undefined],
  ["gzip;q=.5", undefined],
  ["gzip;q=2, br;q=0.0001", undefined],
  ["gzip;q=1e-1, br;q=0.1", "br"],
  ["br;q=0.5, gzip;q=0.8", "gzip"],
  ["GZIP;Q=0.3, BR;q=0.2", "gzip"],
  ["gzip, br", "br"],
  ["x-gzip", "gzip"],
  ["*", "br"],
  ["*;q=0", undefined],
  ["*;q=0.1, gzip;q=0.9", "gzip"],
  ["br;q=0, *", "gzip"],
  ["gzip;q=0.5, identity", undefined],
  ["identity;q=0.1, gzip;q=0.5", "gzip"],
  ["identity", undefined],
  ["deflate", undefined],
  ['br;x="a,b";q=0.2, gzip;q=0.1', "br"],
  ["", undefined],
  [undefined, undefined],
];

describe("compression() and serveStatic() choose the same coding", () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [header, want] of HEADERS) {
    it(`Accept-Encoding: ${JSON.stringify(header)} → ${want ?? "identity"}`, async () => {
      const headers = header === undefined ? {} : { "accept-encoding": header };
      const a = await compressed.inject({ url: "/app.js", headers });
      const b = await files.inject({ url: "/app.js", headers });
      assert.equal(a.status, 200);
      assert.equal(b.status, 200);
      assert.equal(a.headers["content-encoding"], want, "compression()");
      assert.equal(b.headers["content-encoding"], want, "serveStatic()");
    });
  }
});
