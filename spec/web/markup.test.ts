// The kernel's html: as a tag it builds SafeHtml escaped by context (the details are in
// spec/internals/markup.test.ts); a handler may return it; called with a string it is a reply.
import assert from "node:assert/strict";
import { it } from "node:test";
import { App, html, raw, reply, route, SafeHtml, silentLogger } from "../../lib/index.js";

const page = (title: string, body: SafeHtml) => html`<!doctype html><title>${title}</title><main>${body}</main>`;

it("a handler returning html`` answers 200 text/html with every value escaped", async () => {
  const app = new App({ logger: silentLogger }).routes(
    route.get("/", [], () => page("<Users>", html`<ul>${["a&b", "<i>"].map((n) => html`<li title=${n}>${n}</li>`)}</ul>`)),
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
  assert.equal(html`<p>${raw("<b>x</b>")}</p>`.toString(), "<p><b>x</b></p>");
  assert.equal(html`<a href="${"javascript:alert(1)"}">x</a>`.toString(), '<a href="about:invalid#unsafe">x</a>');
});

it("called with a string or SafeHtml, html is an HTML reply with its status", async () => {
  const app = new App({ logger: silentLogger }).routes(
    route.get("/a", [], () => html("<p>a</p>", 201)),
    route.get("/b", [], () => reply.html(html`<p>${"<b>"}</p>`, 200)),
  );
  const a = await app.inject({ method: "GET", url: "/a" });
  assert.equal(a.status, 201);
  assert.equal(a.body, "<p>a</p>");
  const b = await app.inject({ method: "GET", url: "/b" });
  assert.equal(b.headers["content-type"], "text/html; charset=utf-8");
  assert.equal(b.body, "<p>&lt;b&gt;</p>");
});

it("a value in an event handler attribute is refused, not escaped", () => {
  assert.throws(() => html`<button onclick="${"alert(1)"}">x</button>`, TypeError);
});
