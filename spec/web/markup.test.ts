// keel/web's markup``: it builds SafeHtml escaped by context (the details are in
// spec/internals/markup.test.ts), a handler may return it, and the kernel's html() reply sends it
// as is, recognised by the brand it carries (keel/plugin's HTML_BRAND), never by its looks.
import assert from "node:assert/strict";
import { it } from "node:test";
import { App, html, reply, route, silentLogger } from "../../lib/index.js";
import { HTML_BRAND } from "../../lib/plugin.js";
import { markup, raw, SafeHtml } from "../../lib/web/index.js";

const page = (title: string, body: SafeHtml) => markup`<!doctype html><title>${title}</title><main>${body}</main>`;

it("a handler returning markup`` answers 200 text/html with every value escaped", async () => {
  const app = new App({ logger: silentLogger }).routes(
    route.get("/", [], () => page("<Users>", markup`<ul>${["a&b", "<i>"].map((n) => markup`<li title=${n}>${n}</li>`)}</ul>`)),
  );
  const r = await app.inject({ method: "GET", url: "/" });
  assert.equal(r.status, 200);
  assert.equal(r.headers["content-type"], "text/html; charset=utf-8");
  assert.equal(
    r.body,
    '<!doctype html><title>&lt;Users&gt;</title><main><ul><li title="a&amp;b">a&amp;b</li><li title="&lt;i&gt;">&lt;i&gt;</li></ul></main>',
  );
});

it("raw() opts out of escaping; a javascript: URL is neutralised", () => {
  assert.equal(markup`<p>${raw("<b>x</b>")}</p>`.toString(), "<p><b>x</b></p>");
  assert.equal(markup`<a href="${"javascript:alert(1)"}">x</a>`.toString(), '<a href="about:invalid#unsafe">x</a>');
});

it("the kernel's html() sends a string as written and SafeHtml as is, with its status", async () => {
  const app = new App({ logger: silentLogger }).routes(
    route.get("/a", [], () => html("<p>a</p>", 201)),
    route.get("/b", [], () => reply.html(markup`<p>${"<b>"}</p>`, 200)),
    route.get("/c", [], () => html(raw("<b>&amp;</b>"), 202, { "x-page": "c" })),
  );
  const a = await app.inject({ method: "GET", url: "/a" });
  assert.equal(a.status, 201);
  assert.equal(a.headers["content-type"], "text/html; charset=utf-8");
  assert.equal(a.body, "<p>a</p>");
  const b = await app.inject({ method: "GET", url: "/b" });
  assert.equal(b.headers["content-type"], "text/html; charset=utf-8");
  assert.equal(b.body, "<p>&lt;b&gt;</p>");
  const c = await app.inject({ method: "GET", url: "/c" });
  assert.deepEqual([c.status, c.headers["content-type"], c.headers["x-page"], c.body], [202, "text/html; charset=utf-8", "c", "<b>&amp;</b>"]);
});

it("SafeHtml carries its markup under the kernel's brand", () => {
  const safe = markup`<i>${"&"}</i>`;
  assert.equal(safe[HTML_BRAND], "<i>&amp;</i>");
  assert.equal(raw("<br>")[HTML_BRAND], "<br>");
  assert.equal(SafeHtml.is({ [HTML_BRAND]: "<b>" }), true, "branded HTML made elsewhere composes too");
  assert.equal(markup`<p>${{ [HTML_BRAND]: "<b>" }}</p>`.toString(), "<p><b></p>");
});

it("a look-alike without the brand is never sent as HTML", async () => {
  const fakes: unknown[] = [
    { toString: () => "<script>alert(1)</script>" },
    { html: "<script>alert(1)</script>" },
    Object.create(SafeHtml.prototype),
    { [Symbol("keel.html")]: "<script>alert(1)</script>" },
    { [HTML_BRAND]: 1 },
  ];
  for (const fake of fakes) {
    assert.throws(() => html(fake as string), TypeError);
    assert.throws(() => reply.html(fake as string), TypeError);
    assert.equal(SafeHtml.is(fake), false);
  }
  const app = new App({ logger: silentLogger }).routes(
    route.get("/returned", [], () => ({ toString: () => "<script>alert(1)</script>", html: "<script>alert(1)</script>" })),
    route.get("/replied", [], () => html({ toString: () => "<script>alert(1)</script>" } as unknown as string)),
  );
  const returned = await app.inject({ method: "GET", url: "/returned" });
  assert.equal(returned.headers["content-type"], "application/json");
  assert.deepEqual(returned.json(), { html: "<script>alert(1)</script>" });
  const replied = await app.inject({ method: "GET", url: "/replied" });
  assert.equal(replied.status, 500);
  assert.doesNotMatch(replied.body, /<script>/);
});

it("a value in an event handler attribute is refused, not escaped", () => {
  assert.throws(() => markup`<button onclick="${"alert(1)"}">x</button>`, TypeError);
});
