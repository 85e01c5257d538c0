// The docs UI page: its strict CSP matches the inline script and style exactly, and a real headless
// Chromium (no npm dependency; skipped visibly where it is not installed) renders the operations of
// the sample service from openapi.json under that CSP.
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { dumpDom, findChromium } from "../support/chromium.js";
import { withBrowser, type CdpPage } from "../support/cdp.js";
import { Script } from "node:vm";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Reply, context, cookie, header, html, query, route, silentLogger, t } from "../../lib/index.js";
import { multipart } from "../../lib/web/index.js";
import { sse } from "../../lib/sse/index.js";
import { DOCS_PAGE_HEADERS, docsRoutes, renderDocsPage } from "../../lib/openapi/index.js";
import { DEV_JWT_SECRET, createSampleApp } from "../../lib/sample/index.js";

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


// ---- Driving the page over the Chrome DevTools Protocol: Authorize, header/cookie/enum inputs, curl.

/** An HS256 token the sample's development secret verifies (the sample has no login route). */
function sampleJwt(claims: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const input = `${part({ alg: "HS256", typ: "JWT" })}.${part({ exp: Math.floor(Date.now() / 1000) + 600, ...claims })}`;
  return `${input}.${createHmac("sha256", DEV_JWT_SECRET).update(input).digest("base64url")}`;
}

/** The sample with docs, plus routes declaring a header, a boolean and an enum query parameter, and a cookie. */
function sampleWithTryItRoutes() {
  return sampleWithDocs().routes(
    route.get(
      "/try/trace",
      { tag: "zz-try", summary: "Echo a trace header" },
      [header("x-trace"), query(t.object({ verbose: t.optional(t.boolean()), level: t.enum(["low", "high"]) }))],
      (trace, q) => `${trace}|${String(q.verbose)}|${q.level}`,
    ),
    route.get("/try/cookie", { tag: "zz-try", summary: "Needs a cookie" }, [cookie("sid")], (sid) => sid),
  );
}

async function operationIdOf(app: ReturnType<typeof sampleWithDocs>, path: string, method: string): Promise<string> {
  const r = await app.inject({ url: "/docs/openapi.json" });
  assert.equal(r.status, 200, `the sample's OpenAPI document builds: ${r.body.slice(0, 300)}`);
  const doc = JSON.parse(r.body) as { paths: Record<string, Record<string, { operationId: string }>> };
  const id = doc.paths[path]?.[method]?.operationId;
  assert.ok(id, `the document has ${method} ${path}`);
  return id;
}

async function openDocs(page: CdpPage, url: string, path = "/docs"): Promise<void> {
  await page.navigate(url + path);
  const ready = await page.waitFor<string>(`document.body && document.body.getAttribute("data-ready")`, 15_000, "the docs page to render");
  assert.equal(ready, "true", `the page rendered (logs: ${page.logText()})`);
}

/** Opens an operation, submits its try-it form, and returns the displayed response status. */
async function sendTryIt(page: CdpPage, form: string): Promise<string> {
  await page.evaluate(`document.querySelector(${JSON.stringify(form)}).closest("details").open = true`);
  await page.click(`${form} button.send`);
  const status = await page.waitFor<string>(
    `(() => { const s = document.querySelector(${JSON.stringify(form + " .result")}).getAttribute("data-status"); return s !== "pending" && s; })()`,
    15_000,
    `the response of ${form}`,
  );
  const shown = await page.evaluate<string>(`(document.querySelector(${JSON.stringify(form + " .result .status")}) || {}).textContent || ""`);
  assert.equal(shown, status, "the status shown is the one received");
  return status;
}

const text = (page: CdpPage, selector: string) => page.evaluate<string | null>(`(() => { const e = document.querySelector(${JSON.stringify(selector)}); return e ? e.textContent : null; })()`);

function assertNoCspViolation(page: CdpPage): void {
  assert.ok(!/Content Security Policy|Refused to/i.test(page.logText()), `no CSP violation:\n${page.logText()}`);
}

/**
 * The docs page over a hand-written document: every kind of scheme the panel fills in, a top-level
 * requirement, alternatives, and `security: []`. Each operation echoes what credentials arrived.
 */
function handWrittenDocsApp() {
  const ok = { "200": { description: "What arrived" } };
  const doc = {
    openapi: "3.1.0",
    info: { title: "Hand-written", version: "1" },
    security: [{ keyHeader: [] }],
    paths: {
      "/echo/default": { get: { operationId: "echoDefault", responses: ok } },
      "/echo/either": { get: { operationId: "echoEither", security: [{ basicAuth: [] }, { keyQuery: [], keyCookie: [] }], responses: ok } },
      "/echo/open": { get: { operationId: "echoOpen", security: [], responses: ok } },
    },
    components: {
      schemas: {},
      securitySchemes: {
        basicAuth: { type: "http", scheme: "basic" },
        keyHeader: { type: "apiKey", in: "header", name: "x-api-key" },
        keyQuery: { type: "apiKey", in: "query", name: "api_key" },
        keyCookie: { type: "apiKey", in: "cookie", name: "k" },
      },
    },
  };
  const echo = (path: string) =>
    route.get(path, { hidden: true }, [context()], (ctx) => ({
      authorization: ctx.header("authorization") ?? null,
      key: ctx.header("x-api-key") ?? null,
      query: ctx.query["api_key"] ?? null,
    }));
  return new App({ logger: silentLogger }).routes(
    route.get("/hand", { hidden: true }, [], () => html(renderDocsPage("Hand-written"), 200, DOCS_PAGE_HEADERS)),
    route.get("/hand/openapi.json", { hidden: true }, [], () => new Reply(200, JSON.stringify(doc), { "content-type": "application/json" })),
    echo("/echo/default"),
    echo("/echo/either"),
    echo("/echo/open"),
  );
}

describe("docs UI driven over the DevTools protocol", () => {
  const chromium = findChromium();
  const skip = chromium === undefined ? "chromium not installed" : false;

  it("Authorize: GET /api/v1/me answers 401 without a token and 200 with the one entered; curl shows it", { skip, timeout: 90_000 }, async () => {
    const app = sampleWithDocs();
    const token = sampleJwt({ sub: "docs-ui-user", role: "tester" });
    // The token is valid for the sample (independently of the page).
    assert.equal((await app.inject({ url: "/api/v1/me", headers: { authorization: `Bearer ${token}` } })).status, 200);
    const form = `form.try[data-operation="${await operationIdOf(app, "/api/v1/me", "get")}"]`;
    const server = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      await withBrowser(chromium!, async (browser) => {
        const page = await browser.newPage();
        await openDocs(page, server.url);
        // The panel lists the document's scheme; nothing is set yet.
        assert.equal(await text(page, `details.authorize [data-scheme="bearerAuth"] .scheme-name`), "bearerAuth");
        assert.equal(await text(page, "details.authorize .auth-state"), "0 of 1 set");
        assert.match((await text(page, `${form} .try-auth`)) ?? "", /Not authorized: this operation needs bearerAuth/);
        assert.doesNotMatch((await text(page, `${form} pre.curl`)) ?? "", /authorization/i);

        assert.equal(await sendTryIt(page, form), "401", "anonymous request");

        await page.click("details.authorize > summary");
        await page.type(`input[name="auth:bearerAuth:token"]`, token);
        assert.equal(await text(page, "details.authorize .auth-state"), "1 of 1 set");
        assert.match((await text(page, `${form} .try-auth`)) ?? "", /Sends the credentials of bearerAuth/);
        const curl = (await text(page, `${form} pre.curl`)) ?? "";
        assert.ok(curl.startsWith("curl "), curl);
        assert.ok(curl.includes(`'${server.url}/api/v1/me'`), `curl has the full URL:\n${curl}`);
        assert.ok(curl.includes(`-H 'authorization: Bearer ${token}'`), `curl has the authorization header:\n${curl}`);

        assert.equal(await sendTryIt(page, form), "200", "authorized request");
        assert.match((await text(page, `${form} .result pre.resp-body`)) ?? "", /"sub": "docs-ui-user"/);

        // Nothing was persisted: a reload forgets the token.
        assert.equal(await page.evaluate("localStorage.length + sessionStorage.length"), 0);
        await openDocs(page, server.url);
        assert.equal(await text(page, "details.authorize .auth-state"), "0 of 1 set");
        assert.equal(await sendTryIt(page, form), "401", "after a reload the token is gone");
        assertNoCspViolation(page);
      }, { timeoutMs: 80_000 });
    } finally {
      await server.close();
    }
  });

  it("header, boolean and enum parameters get inputs and selects; the curl command quotes them for a shell", { skip, timeout: 90_000 }, async () => {
    const app = sampleWithTryItRoutes();
    const form = `form.try[data-operation="${await operationIdOf(app, "/try/trace", "get")}"]`;
    const cookieForm = `form.try[data-operation="${await operationIdOf(app, "/try/cookie", "get")}"]`;
    const server = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      await withBrowser(chromium!, async (browser) => {
        const page = await browser.newPage();
        await openDocs(page, server.url);
        const shape = await page.evaluate<Record<string, unknown>>(`(() => {
          const f = document.querySelector(${JSON.stringify(form)});
          const opts = (s) => s ? Array.from(s.options).map((o) => [o.value, o.textContent]) : null;
          const h = f.querySelector('[name="header:x-trace"]'), v = f.querySelector('[name="query:verbose"]'), l = f.querySelector('[name="query:level"]');
          return { header: h && h.tagName + ":" + h.type, verbose: v && v.tagName, verboseOptions: opts(v), level: l && l.tagName, levelOptions: opts(l), levelValue: l && l.value };
        })()`);
        assert.deepEqual(shape, {
          header: "INPUT:text",
          verbose: "SELECT",
          verboseOptions: [["", "\u2014"], ["true", "true"], ["false", "false"]],
          level: "SELECT",
          levelOptions: [["low", "low"], ["high", "high"]],
          levelValue: "low",
        });
        // The tenant header of the sample's /echo-text keeps its input too.
        assert.equal(await page.evaluate(`!!document.querySelector('input[name="header:x-tenant-id"]')`), true);

        await page.evaluate(`document.querySelector(${JSON.stringify(form)}).closest("details").open = true`);
        await page.type(`${form} [name="header:x-trace"]`, "it's a trace");
        await page.evaluate(`(() => {
          const set = (name, value) => { const s = document.querySelector(${JSON.stringify(form)} + ' [name="' + name + '"]'); s.value = value; s.dispatchEvent(new Event("change", { bubbles: true })); };
          set("query:verbose", "true");
          set("query:level", "high");
        })()`);
        const curl = (await text(page, `${form} pre.curl`)) ?? "";
        assert.ok(curl.includes(`'${server.url}/try/trace?verbose=true&level=high'`), `curl has the URL with the query:\n${curl}`);
        assert.ok(curl.includes(`-H 'x-trace: it'\\''s a trace'`), `curl quotes the header for a shell:\n${curl}`);
        assert.equal(await sendTryIt(page, form), "200");
        assert.equal(await text(page, `${form} .result pre.resp-body`), JSON.stringify("it's a trace|true|high"), "the header and the selects' values were sent");

        // A cookie parameter is shown, explained, and only used in the curl command.
        assert.match((await text(page, `${cookieForm} label.field`)) ?? "", /cannot send a cookie/);
        await page.evaluate(`document.querySelector(${JSON.stringify(cookieForm)}).closest("details").open = true`);
        await page.type(`${cookieForm} [name="cookie:sid"]`, "abc");
        assert.match((await text(page, `${cookieForm} pre.curl`)) ?? "", /-b 'sid=abc'/);
        // The hostile summary is still inert text.
        assert.equal(await page.evaluate("document.title.includes('pwned') || !!document.querySelector('img')"), false);
        assertNoCspViolation(page);
      }, { timeoutMs: 80_000 });
    } finally {
      await server.close();
    }
  });

  it("Authorize fills basic and API-key schemes; try-it picks the requirement that applies (top-level, alternatives, security: [])", { skip, timeout: 90_000 }, async () => {
    const server = await handWrittenDocsApp().listen({ port: 0, host: "127.0.0.1" });
    const form = (id: string) => `form.try[data-operation="${id}"]`;
    const body = async (page: CdpPage, id: string) => JSON.parse((await text(page, `${form(id)} .result pre.resp-body`)) ?? "null") as Record<string, unknown>;
    const setAuth = (page: CdpPage, name: string, value: string) =>
      page.evaluate(`(() => { const i = document.querySelector('input[name="${name}"]'); i.value = ${JSON.stringify(value)}; i.dispatchEvent(new Event("input")); })()`);
    try {
      await withBrowser(chromium!, async (browser) => {
        const page = await browser.newPage();
        await openDocs(page, server.url, "/hand");
        assert.deepEqual(
          await page.evaluate(`Array.from(document.querySelectorAll("details.authorize [data-scheme]"), (e) => e.getAttribute("data-scheme") + ":" + Array.from(e.querySelectorAll("input"), (i) => i.name.split(":")[2] + "/" + i.type).join(","))`),
          ["basicAuth:user/text,password/password", "keyHeader:key/text", "keyQuery:key/text", "keyCookie:key/text"],
        );
        assert.match((await text(page, `[data-scheme="keyCookie"]`)) ?? "", /cannot set a cookie/);
        assert.match((await text(page, `${form("echoDefault")} .try-auth`)) ?? "", /needs keyHeader\./, "the document's requirement applies");
        assert.match((await text(page, `${form("echoEither")} .try-auth`)) ?? "", /needs basicAuth or keyQuery \+ keyCookie/);
        assert.match((await text(page, `${form("echoOpen")} .try-auth`)) ?? "", /requires none/);

        await setAuth(page, "auth:keyHeader:key", "K1");
        await setAuth(page, "auth:basicAuth:user", "\u00e5lice");
        await setAuth(page, "auth:basicAuth:password", "p:w'd");
        await setAuth(page, "auth:keyQuery:key", "Q 1");
        await setAuth(page, "auth:keyCookie:key", "C1");
        assert.equal(await text(page, "details.authorize .auth-state"), "4 of 4 set");

        assert.equal(await sendTryIt(page, form("echoDefault")), "200");
        assert.deepEqual(await body(page, "echoDefault"), { authorization: null, key: "K1", query: null });
        assert.match((await text(page, `${form("echoDefault")} pre.curl`)) ?? "", /-H 'x-api-key: K1'/);

        const basic = `Basic ${Buffer.from("\u00e5lice:p:w'd", "utf8").toString("base64")}`;
        assert.equal(await sendTryIt(page, form("echoEither")), "200");
        assert.deepEqual(await body(page, "echoEither"), { authorization: basic, key: null, query: null }, "the first satisfied alternative (UTF-8 basic)");

        await setAuth(page, "auth:basicAuth:user", "");
        await setAuth(page, "auth:basicAuth:password", "");
        assert.equal(await sendTryIt(page, form("echoEither")), "200");
        assert.deepEqual(await body(page, "echoEither"), { authorization: null, key: null, query: "Q 1" }, "the next alternative: query key (the cookie cannot be set)");
        const curl = (await text(page, `${form("echoEither")} pre.curl`)) ?? "";
        assert.ok(curl.includes(`'${server.url}/echo/either?api_key=Q+1'`), curl);
        assert.ok(curl.includes(`-b 'k=C1'`), curl);
        assert.match((await text(page, `${form("echoEither")} .try-auth`)) ?? "", /only in the curl command/);

        assert.equal(await sendTryIt(page, form("echoOpen")), "200");
        assert.deepEqual(await body(page, "echoOpen"), { authorization: null, key: null, query: null }, "security: [] sends nothing");
        assert.doesNotMatch((await text(page, `${form("echoOpen")} pre.curl`)) ?? "", /x-api-key|authorization|-b /);
        assertNoCspViolation(page);
      }, { timeoutMs: 80_000 });
    } finally {
      await server.close();
    }
  });

  it("multipart/form-data: one input per field, file inputs for binary ones; sent as FormData to the sample's upload route; curl uses -F", { skip, timeout: 90_000 }, async () => {
    const app = sampleWithBodyRoutes().app;
    const form = `form.try[data-operation="${await operationIdOf(app, "/api/v1/uploads", "post")}"]`;
    const many = `form.try[data-operation="${await operationIdOf(app, "/try/many", "post")}"]`;
    const dir = mkdtempSync(join(tmpdir(), "keel-docs-ui-"));
    const fileText = "hello from the docs UI\n";
    writeFileSync(join(dir, "note;1.txt"), fileText);
    writeFileSync(join(dir, "a.txt"), "A");
    writeFileSync(join(dir, "b.txt"), "BB");
    const server = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      await withBrowser(chromium!, async (browser) => {
        const page = await browser.newPage();
        await openDocs(page, server.url, "/patched");
        const inputs = (f: string) => page.evaluate<string[]>(`Array.from(document.querySelectorAll(${JSON.stringify(f + " fieldset.parts [name]")}), (i) => i.name + "/" + i.tagName + ":" + i.type + (i.multiple ? ":multiple" : ""))`);
        assert.deepEqual(await inputs(form), ["part:title/INPUT:text", "part:file/INPUT:file"]);
        assert.equal(await page.evaluate(`!!document.querySelector(${JSON.stringify(form + " textarea")})`), false, "no bare textarea");
        assert.deepEqual(await inputs(many), ["part:tags/INPUT:text", "part:kind/SELECT:select-one", "part:files/INPUT:file:multiple"]);

        await page.evaluate(`document.querySelector(${JSON.stringify(form)}).closest("details").open = true`);
        await page.type(`${form} [name="part:title"]`, "it's a title");
        await setFiles(page, `${form} [name="part:file"]`, [join(dir, "note;1.txt")]);
        const curl = (await text(page, `${form} pre.curl`)) ?? "";
        assert.ok(curl.includes(`-F 'title=it'\\''s a title'`), `curl sends the field with -F:\n${curl}`);
        assert.ok(curl.includes(`-F 'file=@"note;1.txt"'`), `curl sends the file with -F name=@file:\n${curl}`);
        assert.doesNotMatch(curl, /content-type|--data/i, "curl -F writes the content-type with its boundary");
        assert.equal(await sendTryIt(page, form), "201");
        const receipt = JSON.parse((await text(page, `${form} .result pre.resp-body`)) ?? "null") as Record<string, unknown>;
        assert.deepEqual(receipt, {
          title: "it's a title",
          name: "note;1.txt",
          size: Buffer.byteLength(fileText),
          content_type: "text/plain",
          sha256: createHash("sha256").update(fileText).digest("hex"),
        });

        // An array of files is one multiple input; an array of strings is comma-separated parts; a value curl would read as a file is sent with --form-string.
        await page.evaluate(`document.querySelector(${JSON.stringify(many)}).closest("details").open = true`);
        await setFiles(page, `${many} [name="part:files"]`, [join(dir, "a.txt"), join(dir, "b.txt")]);
        await page.type(`${many} [name="part:tags"]`, "x, @y");
        const manyCurl = (await text(page, `${many} pre.curl`)) ?? "";
        assert.ok(manyCurl.includes(`-F 'files=@a.txt' \\\n  -F 'files=@b.txt'`), manyCurl);
        assert.ok(manyCurl.includes(`-F 'tags=x' \\\n  --form-string 'tags=@y'`), manyCurl);
        assert.equal(await sendTryIt(page, many), "200");
        assert.deepEqual(JSON.parse((await text(page, `${many} .result pre.resp-body`)) ?? "null"), { files: ["a.txt:1", "b.txt:2"], tags: ["x", "@y"] });
        assertNoCspViolation(page);
      }, { timeoutMs: 80_000 });
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("text/event-stream: try-it shows the sample's events as they arrive and Stop aborts the request", { skip, timeout: 90_000 }, async () => {
    const { app, streamClosed } = sampleWithBodyRoutes();
    const events = `form.try[data-operation="${await operationIdOf(app, "/api/v1/events", "get")}"]`;
    const stream = `form.try[data-operation="${await operationIdOf(app, "/try/stream", "get")}"]`;
    const server = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      await withBrowser(chromium!, async (browser) => {
        const page = await browser.newPage();
        await openDocs(page, server.url);
        const shown = (f: string) => page.evaluate<string[]>(`Array.from(document.querySelectorAll(${JSON.stringify(f + " .result li.sse-event")}), (e) => e.getAttribute("data-event") + "#" + e.getAttribute("data-id"))`);
        const stopVisible = (f: string) => page.evaluate<boolean>(`!document.querySelector(${JSON.stringify(f + " button.stop")}).hidden`);

        // The sample's endless stream (a tick a second): two ticks appear while it is still open.
        assert.equal(await stopVisible(events), false, "no Stop button before a request");
        assert.equal(await sendTryIt(page, events), "200", "the status shows as soon as the headers arrive");
        assert.equal(await page.evaluate(`document.querySelector(${JSON.stringify(events + " .result")}).getAttribute("data-stream")`), "open");
        await page.waitFor(`document.querySelectorAll(${JSON.stringify(events + " .result li.sse-event")}).length >= 2`, 15_000, "two events");
        assert.deepEqual((await shown(events)).slice(0, 2), ["tick#1", "tick#2"]);
        assert.match((await text(page, `${events} .result li.sse-event pre.sse-data`)) ?? "", /"n": 1/);
        assert.equal(await stopVisible(events), true);
        assert.equal(await page.evaluate(`document.querySelector(${JSON.stringify(events + " button.send")}).disabled`), true);
        await page.click(`${events} button.stop`);
        assert.equal(await page.waitFor<string>(`(() => { const s = document.querySelector(${JSON.stringify(events + " .result")}).getAttribute("data-stream"); return s !== "open" && s; })()`, 15_000, "the stream to stop"), "stopped");
        await page.waitFor(`!document.querySelector(${JSON.stringify(events + " button.send")}).disabled`, 15_000, "Send to be enabled again");
        assert.equal(await stopVisible(events), false);
        assert.ok((await shown(events)).length >= 2, "what arrived stays on screen");

        // Stop ends the request on the server too: the stream's source sees its signal abort.
        assert.equal(await sendTryIt(page, stream), "200");
        await page.waitFor(`document.querySelectorAll(${JSON.stringify(stream + " .result li.sse-event")}).length >= 2`, 15_000, "two events");
        assert.deepEqual(await shown(stream), ["message#1", "greeting#2"]);
        assert.equal(await text(page, `${stream} .result li.sse-event:nth-child(2) pre.sse-data`), "line one\nline two");
        await page.click(`${stream} button.stop`);
        assert.equal(await streamClosed, "aborted");
        assertNoCspViolation(page);
      }, { timeoutMs: 80_000 });
    } finally {
      await server.close();
    }
  });
});

/** Sets the files of a file input as a user's file chooser would (DOM.setFileInputFiles). */
async function setFiles(page: CdpPage, selector: string, files: string[]): Promise<void> {
  const found = await page.send("Runtime.evaluate", { expression: `document.querySelector(${JSON.stringify(selector)})` });
  const objectId = (found["result"] as { objectId?: string } | undefined)?.objectId;
  assert.ok(objectId, `no element at ${selector}`);
  await page.send("DOM.setFileInputFiles", { files, objectId });
  await page.evaluate(`document.querySelector(${JSON.stringify(selector)}).dispatchEvent(new Event("change", { bubbles: true }))`);
}

/**
 * The sample with docs plus a multipart route taking several files and a list, and an event stream
 * that sends two events (the second with two data lines) then waits for the client to go.
 */
function sampleWithBodyRoutes() {
  let closed!: (how: string) => void;
  const streamClosed = new Promise<string>((resolve) => (closed = resolve));
  const app = sampleWithDocs();
  // keel documents each file field as one binary string; this copy of the document declares
  // /try/many's files as an array of them, as OpenAPI allows (repeated parts).
  const patched = async () => {
    const doc = JSON.parse((await app.inject({ url: "/docs/openapi.json" })).body) as { paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } }>> };
    doc.paths["/try/many"]!["post"]!.requestBody.content["multipart/form-data"]!.schema.properties["files"] = { type: "array", items: { type: "string", format: "binary" } };
    return new Reply(200, JSON.stringify(doc), { "content-type": "application/json" });
  };
  app.routes(
    route.get("/patched", { hidden: true }, [], () => html(renderDocsPage("Patched"), 200, DOCS_PAGE_HEADERS)),
    route.get("/patched/openapi.json", { hidden: true }, [], patched),
    route.post(
      "/try/many",
      { tag: "zz-try", summary: "Several files and a list" },
      [multipart({ fields: t.object({ tags: t.optional(t.array(t.string())), kind: t.optional(t.enum(["a", "b"])) }), files: { names: ["files"], maxFiles: 4, maxFileSize: 1024 } })],
      ({ fields, files }) => ({ files: files.files.map((f) => `${f.filename}:${f.size}`), tags: fields.tags ?? [] }),
    ),
    route.get("/try/stream", { tag: "zz-try", summary: "Two events, then silence", responses: { 200: { description: "events", contentType: "text/event-stream", schema: t.string() } } }, [], () =>
      sse(async (send, info) => {
        await send({ id: "1", data: "first" });
        await send({ event: "greeting", id: "2", data: "line one\nline two" });
        if (!info.signal.aborted) await new Promise((resolve) => info.signal.addEventListener("abort", resolve, { once: true }));
        closed("aborted");
      }),
    ),
  );
  return { app, streamClosed };
}
