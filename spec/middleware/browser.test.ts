// CORS and CSRF as a real browser sees them: headless Chromium loads a page from one keel app
// (http://127.0.0.1:A) whose script calls an API on another (http://127.0.0.1:B, a different
// origin, the same site) with credentials, and a third API (C) that does not allow origin A.
// The page writes what it observed into <pre id="result">, read back from --dump-dom.
// Skips visibly where Chromium is not installed (Debian: apt-get install chromium).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dumpDom, findChromium } from "../support/chromium.js";
import { App, html, json, reply, route, silentLogger, type Layer, type ListeningServer } from "../../lib/index.js";
import { cors } from "../../lib/middleware/index.js";
import { csrf, csrfToken } from "../../lib/middleware/index.js";
import { securityHeaders } from "../../lib/middleware/index.js";

function resultOf(dom: string): Record<string, unknown> {
  const m = /<pre id="result">([^<]*)<\/pre>/.exec(dom);
  assert.ok(m, `no result in the page:\n${dom.slice(0, 2000)}`);
  const text = m[1]!.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
  assert.notEqual(text, "pending", "the page script did not finish");
  return JSON.parse(text) as Record<string, unknown>;
}

function page(b: string, c: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>keel cors+csrf</title></head><body>
<pre id="result">pending</pre>
<script>
const B = ${JSON.stringify(b)}, C = ${JSON.stringify(c)};
const out = {};
async function run() {
  try {
    let r = await fetch(B + "/api/csrf", { credentials: "include" });
    const token = (await r.json()).token;
    out.tokenLength = token.length;
    r = await fetch(B + "/api/items", { method: "POST", credentials: "include",
      headers: { "content-type": "application/json", "x-csrf-token": token }, body: JSON.stringify({ name: "ada" }) });
    out.post = { status: r.status, body: await r.json(), visible: r.headers.get("x-visible"), hidden: r.headers.get("x-hidden") };
    r = await fetch(B + "/api/items", { method: "POST", credentials: "include",
      headers: { "content-type": "application/json" }, body: "{}" });
    out.noToken = { status: r.status, type: (await r.json()).error.type };
    r = await fetch(B + "/api/items", { method: "POST", credentials: "include",
      headers: { "content-type": "application/json", "x-csrf-token": "A".repeat(43) }, body: "{}" });
    out.wrongToken = r.status;
    r = await fetch(B + "/api/items", { method: "POST", credentials: "include", headers: { "content-type": "text/plain" }, body: "x" });
    out.simplePost = r.status;
    // Cookies ignore ports: this page (another port, the same host) can plant B's token cookie.
    // A token of the right shape with a made-up MAC in both the cookie and the header is what
    // plain double submit would accept; the signed token refuses it.
    const forged = "A".repeat(22) + "." + "B".repeat(43);
    document.cookie = "csrf_token=" + forged + "; path=/";
    r = await fetch(B + "/api/items", { method: "POST", credentials: "include",
      headers: { "content-type": "application/json", "x-csrf-token": forged }, body: "{}" });
    out.plantedCookie = r.status;
    try { await fetch(C + "/api/data"); out.otherApi = "readable"; } catch (e) { out.otherApi = "blocked"; }
    try { await fetch(C + "/api/data", { headers: { "x-custom": "1" } }); out.otherApiPreflighted = "readable"; } catch (e) { out.otherApiPreflighted = "blocked"; }
  } catch (e) {
    out.error = String(e);
  }
  document.getElementById("result").textContent = JSON.stringify(out);
}
run();
</script></body></html>`;
}

describe("CORS and CSRF from headless Chromium", () => {
  it("lets the allowed origin call the API with credentials and the CSRF token, and nobody else", async (t) => {
    const chromium = findChromium();
    if (chromium === undefined) {
      t.skip("chromium not installed");
      return;
    }
    const seenB: string[] = [];
    const seenC: string[] = [];
    const record = (list: string[]): Layer => (ctx, next) => {
      list.push(`${ctx.method} ${ctx.path}${ctx.req.headers["x-custom"] !== undefined ? " x-custom" : ""}`);
      return next(ctx);
    };
    const servers: ListeningServer[] = [];
    try {
      const pageApp = new App({ logger: silentLogger });
      const pageServer = await pageApp.listen({ port: 0 });
      servers.push(pageServer);
      const origin = pageServer.url; // http://127.0.0.1:A

      const api = await new App({ logger: silentLogger })
        .layer(record(seenB))
        .layer(cors({ origin: [origin], credentials: true, exposeHeaders: ["x-visible"] }))
        .layer(securityHeaders())
        .layer(csrf({ secret: "b".repeat(32) }))
        .routes(
          route.get("/api/csrf", [csrfToken()], (token) => ({ token })),
          route.post("/api/items", [json()], (body) => reply(201, { created: body }, { "x-visible": "yes", "x-hidden": "no" })),
        )
        .listen({ port: 0 });
      servers.push(api);
      const other = await new App({ logger: silentLogger })
        .layer(record(seenC))
        .layer(cors({ origin: ["http://127.0.0.1:1"] }))
        .routes(route.get("/api/data", [], () => ({ secret: 1 })))
        .listen({ port: 0 });
      servers.push(other);
      pageApp.routes(route.get("/", [], () => html(page(api.url, other.url))));
      pageApp.compile();

      const result = resultOf(await dumpDom(chromium, origin + "/"));
      assert.equal(result["error"], undefined, String(result["error"]));
      // A signed token: 22 characters of nonce, ".", 43 of HMAC-SHA256 (base64url).
      assert.equal(result["tokenLength"], 66);
      assert.deepEqual(result["post"], { status: 201, body: { created: { name: "ada" } }, visible: "yes", hidden: null });
      assert.deepEqual(result["noToken"], { status: 403, type: "forbidden" });
      assert.equal(result["wrongToken"], 403);
      assert.equal(result["simplePost"], 403);
      assert.equal(result["plantedCookie"], 403);
      assert.equal(result["otherApi"], "blocked");
      assert.equal(result["otherApiPreflighted"], "blocked");
      // The browser preflighted the JSON + custom-header POSTs, and never sent the request that
      // C's refused preflight was guarding.
      assert.ok(seenB.includes("OPTIONS /api/items"), seenB.join(", "));
      assert.ok(seenC.includes("OPTIONS /api/data"), seenC.join(", "));
      assert.ok(!seenC.includes("GET /api/data x-custom"), seenC.join(", "));
    } finally {
      for (const s of servers) await s.close();
    }
  });
});
