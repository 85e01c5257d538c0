// The docs UI page: its strict CSP matches the inline script and style exactly, and a real headless
// Chromium (no npm dependency; skipped visibly where it is not installed) renders the operations of
// the sample service from openapi.json under that CSP.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { dumpDom, findChromium } from "../support/chromium.js";
import { Script } from "node:vm";
import { route, silentLogger } from "../../lib/index.js";
import { docsRoutes } from "../../lib/openapi/index.js";
import { createSampleApp } from "../../lib/sample/index.js";

const HOSTILE = `<img src=x onerror="document.title='pwned'">`;

/** The sample service with docs at /docs (its own App.docs() when it has one) and a hostile summary. */
function sampleWithDocs() {
  const app = createSampleApp({ logger: silentLogger });
  if (!app.routeTable().some((r) => r.method === "GET" && r.path === "/docs")) app.routes(...docsRoutes(app));
  // Registered after the docs: it must still appear (the document follows the live route table).
  app.routes(route.get("/hostile", { tag: "zz-hostile", summary: HOSTILE }, [], () => "ok"));
  return app;
}

function inline(html: string, tag: "script" | "style"): string[] {
  return [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map((m) => m[1] ?? "");
}

function hashSource(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

describe("docs page", () => {
  it("is served with a strict CSP whose hashes match the inline script and style", async () => {
    const r = await sampleWithDocs().inject({ url: "/docs" });
    assert.equal(r.status, 200);
    assert.match(String(r.headers["content-type"]), /^text\/html; charset=utf-8/);
    const scripts = inline(r.body, "script");
    const styles = inline(r.body, "style");
    assert.equal(scripts.length, 1);
    assert.equal(styles.length, 1);
    const expected = [
      "default-src 'none'",
      `script-src ${hashSource(scripts[0]!)}`,
      `style-src ${hashSource(styles[0]!)}`,
      "connect-src 'self'",
      "img-src 'self' data:",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join("; ");
    assert.equal(r.headers["content-security-policy"], expected);
    assert.equal(r.headers["x-content-type-options"], "nosniff");
  });

  it("loads nothing from elsewhere, has no inline handlers, and its script parses", async () => {
    const r = await sampleWithDocs().inject({ url: "/docs" });
    assert.doesNotMatch(r.body, /\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i, "no external URLs");
    assert.doesNotMatch(r.body, /<script[^>]*\ssrc=/i);
    assert.doesNotMatch(r.body, /\son[a-z]+\s*=/i, "no inline event handlers (the CSP would block them)");
    assert.doesNotMatch(r.body, /\sstyle\s*=/i, "no style attributes (the CSP would block them)");
    const script = inline(r.body, "script")[0]!;
    assert.doesNotMatch(script, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, "DOM is built with textContent");
    assert.doesNotThrow(() => new Script(script, { filename: "docs-page.js" }));
  });

  it("escapes the configured title", async () => {
    const app = createSampleApp({ logger: silentLogger });
    app.routes(...docsRoutes(app, { path: "/titled-docs", title: HOSTILE }));
    const r = await app.inject({ url: "/titled-docs" });
    assert.equal(r.status, 200);
    assert.ok(!r.body.includes(HOSTILE));
    assert.ok(r.body.includes("&lt;img src=x onerror=&quot;document.title=&#39;pwned&#39;&quot;&gt;"));
  });
});

describe("docs UI in headless Chromium", () => {
  const chromium = findChromium();
  it("renders the sample service's operations from openapi.json under the CSP", { skip: chromium === undefined ? "chromium not installed" : false, timeout: 90_000 }, async () => {
    const server = await sampleWithDocs().listen({ port: 0, host: "127.0.0.1" });
    try {
      const dom = await dumpDom(chromium!, `${server.url}/docs`);
      // The script ran to the end (a CSP block would leave no attribute; a failed fetch sets "error").
      assert.match(dom, /<body[^>]*\sdata-ready="true"/, `script did not finish rendering:\n${dom.slice(0, 3000)}`);
      for (const text of [">/users/{id}<", ">/users<", ">/projects<", ">/api/v1/ping<", ">/echo-text<", ">POST<", ">GET<", ">Get a user<"]) {
        assert.ok(dom.includes(text), `the page shows ${text}`);
      }
      for (const tag of ["users", "projects", "system"]) assert.match(dom, new RegExp(`<h2>${tag}</h2>`), `tag section ${tag}`);
      assert.match(dom, /<form class="try" data-operation="getUsersById">/, "a try-it form per operation");
      assert.match(dom, /<input[^>]*name="path:id"/, "an input for the id path parameter");
      assert.match(dom, /<input[^>]*name="header:x-tenant-id"/, "an input for the tenant header");
      assert.match(dom, /<textarea[^>]*name="body"[^>]*>\{[\s\S]*"email": "user@example.com"/, "body prefilled from the schema");
      assert.ok(dom.includes("ValidationErrorBody"), "responses show the referenced error schema by name");
      assert.ok(dom.includes("min length 8"), "schema rules are rendered");
      assert.ok(!dom.includes("<img src=\"x\""), "data is rendered as text, never as markup");
      assert.ok(dom.includes("&lt;img src=x onerror="), "the hostile summary shows as text");
    } finally {
      await server.close();
    }
  });

  it("negative control: with a wrong script hash in the CSP the script is blocked", { skip: chromium === undefined ? "chromium not installed" : false, timeout: 90_000 }, async () => {
    const app = sampleWithDocs().layer(async (ctx, next) => {
      const reply = await next(ctx);
      const csp = reply.headers["content-security-policy"];
      if (typeof csp === "string") reply.headers["content-security-policy"] = csp.replace(/script-src '[^']+'/, `script-src 'sha256-${"A".repeat(43)}='`);
      return reply;
    });
    const server = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const dom = await dumpDom(chromium!, `${server.url}/docs`);
      assert.match(dom, /Loading the API description/, "the static page was loaded");
      assert.doesNotMatch(dom, /data-ready=/, "the blocked script rendered nothing");
    } finally {
      await server.close();
    }
  });
});
