// File templates (keel/web templates): escaping, loops, conditionals, partials, layouts, the
// compile cache, reload in dev mode and none in production, names that cannot leave the
// directory, syntax errors with file and line, and paths that cannot reach prototypes.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { App, route, silentLogger } from "../../lib/index.js";
import { checkTemplateName, templates, type TemplateEngine } from "../../lib/web/index.js";

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "fixtures-templates");
const fixtures = templates({ dir: FIXTURES, dev: false });
const render = (name: string, data: object = {}, engine: TemplateEngine = fixtures): string => engine.render(name, data).toString();

const scratch = mkdtempSync(join(tmpdir(), "keel-templates-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
/** A fresh template directory with these files (name -> source). */
function folder(files: Record<string, string>): string {
  const dir = join(scratch, `d${dirs++}`);
  for (const [name, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), source);
  }
  return dir;
}
function engineWith(files: Record<string, string>, dev = false): TemplateEngine {
  return templates({ dir: folder(files), dev });
}

describe("templates: escaping", () => {
  it("escapes every dangerous character in text and in quoted attributes", () => {
    const html = render("escape", { value: `<script>"'&`, trusted: "<b>ok</b>" });
    const e = "&lt;script&gt;&quot;&#39;&amp;";
    assert.equal(html, `<p title="${e}" data-x='${e}'>${e}</p>\n<div><b>ok</b></div>\n`);
  });

  it("writes SafeHtml as is in {{ }}, numbers and true printed, null/undefined/false empty", () => {
    const e = engineWith({ "v.html": "[{{ a }}|{{ b }}|{{ c }}|{{ d }}|{{ e }}|{{ f }}|{{ g }}]", "i.html": "<i>{{ x }}</i>" });
    // a rendered template is SafeHtml: it composes into another without being escaped again
    const italic = e.render("i", { x: "&" });
    assert.equal(render("v", { a: italic, b: 0, c: true, d: false, e: null, g: ["<", italic] }, e), "[<i>&amp;</i>|0|true||||&lt;<i>&amp;</i>]");
  });

  it("refuses to print an object, naming the file and line", () => {
    const e = engineWith({ "obj.html": "line 1\n\n{{ user }}" });
    assert.throws(() => e.render("obj", { user: { name: "x" } }), (err: Error) => err instanceof TypeError && /^templates: obj\.html:3: /.test(err.message));
  });

  it("renders {{{ }}} unescaped and understands comments and \\{{", () => {
    assert.equal(render("literal"), "{{ not a tag }} done");
  });
});

describe("templates: HTML context", () => {
  it("writes about:invalid#unsafe for a javascript:, vbscript: or data: URL in a URL attribute", () => {
    const e = engineWith({ "a.html": '<a href="{{ u }}">{{ u }}</a><img src="{{ u }}"><form action=\'{{ u }}\'></form>' });
    for (const u of ["javascript:alert(1)", " JAVA\tSCRIPT:x", "vbscript:x", "data:text/html,x"]) {
      assert.equal(render("a", { u }, e), `<a href="about:invalid#unsafe">${u.replace(/</g, "&lt;")}</a><img src="about:invalid#unsafe"><form action='about:invalid#unsafe'></form>`, JSON.stringify(u));
    }
    assert.equal(render("a", { u: "/x?a=1&b='2'" }, e), "<a href=\"/x?a=1&amp;b=&#39;2&#39;\">/x?a=1&amp;b=&#39;2&#39;</a><img src=\"/x?a=1&amp;b=&#39;2&#39;\"><form action='/x?a=1&amp;b=&#39;2&#39;'></form>");
    assert.equal(render("a", { u: "data:image/png;base64,AA" }, e), '<a href="about:invalid#unsafe">data:image/png;base64,AA</a><img src="data:image/png;base64,AA"><form action=\'about:invalid#unsafe\'></form>');
  });

  it("checks the URL together with the literal text around the value and replaces the whole value", () => {
    const e = engineWith({ "a.html": '<a href="java{{ u }}" title="{{ u }}">' });
    assert.equal(render("a", { u: "script:x" }, e), '<a href="about:invalid#unsafe" title="script:x">');
    assert.equal(render("a", { u: "/x" }, e), '<a href="java/x" title="/x">');
  });

  it("checks every value of a URL attribute together, with the literals between them", () => {
    const e = engineWith({ "link.html": '<a href="{{ scheme }}://{{ host }}/">x</a>\n<a href="{{ a }}{{ b }}">y</a>' });
    const attack = { scheme: "javascript", host: "%0aalert(1)", a: "java", b: "script:alert(2)" };
    assert.equal(render("link", attack, e), '<a href="about:invalid#unsafe">x</a>\n<a href="about:invalid#unsafe">y</a>');
    const fine = { scheme: "https", host: "x.example", a: "/p?q=", b: "a&b" };
    assert.equal(render("link", fine, e), '<a href="https://x.example/">x</a>\n<a href="/p?q=a&amp;b">y</a>');
  });

  it("checks a URL value whose parts are inside {{#if}} and {{#each}}, as rendered", () => {
    const e = engineWith({ "a.html": '<a href="{{#if j}}java{{/if}}script:{{ x }}" title="{{ x }}">{{#each xs as p}}<img src="/{{ p }}{{#if @last}}?last={{ p }}{{/if}}">{{/each}}' });
    assert.equal(render("a", { j: true, x: "go()" }, e), '<a href="about:invalid#unsafe" title="go()">');
    assert.equal(render("a", { j: false, x: "go()" }, e), '<a href="script:go()" title="go()">');
    assert.equal(render("a", { xs: ["a", "b"] }, e), '<a href="script:" title=""><img src="/a"><img src="/b?last=b">');
  });

  it("checks SafeHtml in a URL value as the browser decodes it", () => {
    const e = engineWith({ "a.html": '<a href="{{ a }}{{ b }}">' });
    const trusted = engineWith({ "i.html": "{{{ v }}}" });
    const safe = (v: string) => trusted.render("i", { v });
    assert.equal(render("a", { a: safe("java"), b: safe("script&colon;x") }, e), '<a href="about:invalid#unsafe">');
    assert.equal(render("a", { a: safe("/x?a=1&amp;b=2") }, e), '<a href="/x?a=1&amp;b=2">');
    // escaped text stays text: the browser reads "javascript&colon;x", a relative URL
    assert.equal(render("a", { a: "javascript&colon;x" }, e), '<a href="javascript&amp;colon;x">');
  });

  it("refuses a URL value that starts and ends in different blocks", () => {
    const e = engineWith({ "p.html": '{{#if a}}<a href="x{{else}}<a href="y{{/if}}{{ u }}">' });
    assert.throws(() => e.render("p", { a: true }), (err: Error) => err instanceof SyntaxError && /^templates: p\.html:1: .*starts and ends in different/.test(err.message));
    assert.equal(e.compiles, 0);
  });

  it("refuses a partial anywhere but in text, naming file and line", () => {
    const cases = ['<a href="{{> u }}">', '<p title="x {{> u }}">', "<p class={{> u }}>", "<p {{> u }}>", "<script>{{> u }}</script>", '<p style="{{> u }}">', "<!-- {{> u }} -->"];
    for (const source of cases) {
      const e = engineWith({ "p.html": `line 1\n${source}`, "u.html": "{{ v }}" });
      assert.throws(() => e.render("p", { v: "javascript:alert(3)" }), (err: Error) => err instanceof SyntaxError && /^templates: p\.html:2: \{\{> u \}\} /.test(err.message), source);
      assert.equal(e.compiles, 0);
    }
    const ok = engineWith({ "p.html": "<p>{{> u }}</p><title>{{> u }}</title>", "u.html": "<b>{{ v }}</b>" });
    assert.equal(render("p", { v: "<" }, ok), "<p><b>&lt;</b></p><title><b>&lt;</b></title>");
  });

  it("refuses a template that ends inside a tag, an attribute, a comment or a script", () => {
    for (const source of ['<a href="', "<p", '<p title="x">\n<a', "<!-- x", "<script>x", '{{#if a}}<a title="{{else}}<a title="{{/if}}']) {
      const e = engineWith({ "open.html": source, "page.html": '{{> open }}{{ u }}">' });
      assert.throws(() => e.render("page", { u: "javascript:alert(1)" }), (err: Error) => err instanceof SyntaxError && /^templates: open\.html:\d+: the template ends /.test(err.message), source);
    }
    const e = engineWith({ "p.html": "<p>a < b</p>\n<textarea>" });
    assert.equal(render("p", {}, e), "<p>a < b</p>\n<textarea>");
  });

  it("refuses {{{ }}} in an attribute value, where {{ }} escapes and checks", () => {
    for (const source of ['<a href="{{{ u }}}">', '<a href="/x/{{{ u }}}">', '<p title="{{{ t }}}">', "<p class={{{ c }}}>", "<p class=a{{{ c }}}>"]) {
      const e = engineWith({ "p.html": source });
      assert.throws(() => e.render("p", {}), (err: Error) => err instanceof SyntaxError && /^templates: p\.html:1: \{\{\{ \w+ \}\}\} /.test(err.message), source);
    }
    const e = engineWith({ "p.html": '<p style="{{{ css }}}" onclick="{{{ js }}}">{{{ b }}}</p>' });
    assert.equal(render("p", { css: "color: red", js: "go()", b: "<b>" }, e), '<p style="color: red" onclick="go()"><b></p>');
  });

  it("refuses {{ }} inside script, style, event handlers, comments and names at compile time", () => {
    const cases: Array<[string, RegExp]> = [
      ["<p>\n<script>var x = {{ x }};</script>", /p\.html:2: \{\{ x \}\} cannot be inside <script>/],
      ["<style>p { color: {{ c }} }</style>", /inside <style>/],
      ['<p style="color: {{ c }}">', /in the "style" attribute/],
      ["<p STYLE='{{ c }}'>", /in the "style" attribute/],
      ['<button onclick="go({{ id }})">', /in the event handler attribute "onclick"/],
      ["<!-- {{ x }} -->", /inside an HTML comment/],
      ["<{{ tag }}>", /in a tag or attribute name/],
      ['<p {{ attr }}="1">', /in a tag or attribute name/],
      ["<p class={{ c }}>", /unquoted attribute value/],
      ["<p class=a{{ c }}>", /unquoted attribute value/],
      ["{{#if a}}<script>{{/if}}{{ x }}", /inside <script>/],
    ];
    for (const [source, message] of cases) {
      const e = engineWith({ "p.html": source });
      assert.throws(() => e.render("p", {}), (err: Error) => err instanceof SyntaxError && err.message.startsWith("templates: p.html:") && message.test(err.message), source);
      assert.equal(e.compiles, 0);
    }
  });

  it("lets {{{ }}} go there, and {{ }} after the script ends", () => {
    const e = engineWith({ "p.html": "<script>var data = {{{ json }}};</script><p title=\"{{ t }}\">{{ t }}</p>" });
    assert.equal(render("p", { json: '{"a":1}', t: "<" }, e), '<script>var data = {"a":1};</script><p title="&lt;">&lt;</p>');
  });
});

describe("templates: blocks end in the HTML context they start in", () => {
  /** The SyntaxError thrown when compiling `source` as p.html (and nothing compiled). */
  function refused(source: string, line: number, message: RegExp): void {
    const e = engineWith({ "p.html": source });
    assert.throws(
      () => e.render("p", { a: true, xs: ["a"] }),
      (err: Error) => err instanceof SyntaxError && err.message.startsWith(`templates: p.html:${line}: `) && message.test(err.message),
      source,
    );
    assert.equal(e.compiles, 0);
  }

  it("refuses an {{#each}} body that ends in an attribute value it opened", () => {
    // rendered, the second item would land outside the quotes: <a title="a<a title="b onmouseover=...
    refused('<p>\n{{#each xs as x}}<a title="{{ x }}{{/each}}">', 2, /\{\{#each xs as x\}\} body ends in the "title" attribute value .* but starts in text/);
  });

  it("refuses an {{else}} of an {{#each}} that ends elsewhere than the loop body", () => {
    refused('{{#each xs as x}}<p>{{ x }}</p>{{else}}<p title="{{/each}}">', 1, /\{\{#each xs as x\}\} \{\{else\}\} part ends in the "title" attribute value .* but the loop body starts and ends in text/);
  });

  it("refuses a loop body that ends in a new place each time (an attribute name growing)", () => {
    refused("<p x{{#each xs as y}}x{{/each}}>", 1, /\{\{#each xs as y\}\} body ends in a different place each time it runs/);
    // a body that settles after one more round is fine: it starts in the tag name, then between attributes
    const ok = engineWith({ "p.html": '<li{{#each xs as x}} class="{{ x }}"{{/each}}>' });
    assert.equal(render("p", { xs: ["a", "b"] }, ok), '<li class="a" class="b">');
  });

  it("refuses an {{#if}} whose branches end in different contexts (a missing {{else}} is an empty branch)", () => {
    refused('{{#if a}}<textarea>{{/if}}<a href="{{ u }}">', 1, /\{\{#if a\}\} branches end in different contexts: inside <textarea> .* and in text/);
    refused("x\n\n{{#if a}}{{else}}<script>{{/if}}", 3, /\{\{#if a\}\} branches end in different contexts: in text .* and inside <script>/);
  });

  it("refuses branches that end in the same attribute quoted differently, and lets them agree", () => {
    refused("<p {{#if a}}title=\"A {{else}}title='B {{/if}}{{ x }}\">", 1, /branches end in different contexts: in the "title" attribute value \(double-quoted\) .* and in the "title" attribute value \(single-quoted\)/);
    const e = engineWith({ "p.html": '<p {{#if a}}title="A {{else}}title="B {{/if}}{{ x }}">' });
    assert.equal(render("p", { a: true, x: '" onclick="x' }, e), '<p title="A &quot; onclick=&quot;x">');
    assert.equal(render("p", { a: false, x: "<" }, e), '<p title="B &lt;">');
  });

  it("lets an {{#each}} body open and close a tag, or stay inside one attribute value", () => {
    const e = engineWith({ "p.html": '<ul>{{#each xs as x}}<li title="{{ x }}"><a href="{{ x }}">{{ x }}</a></li>{{/each}}</ul><p class="{{#each xs as x}}c-{{ x }} {{/each}}">' });
    assert.equal(
      render("p", { xs: ["a", 'b" onmouseover="x', "javascript:y"] }, e),
      '<ul><li title="a"><a href="a">a</a></li><li title="b&quot; onmouseover=&quot;x"><a href="b&quot; onmouseover=&quot;x">b&quot; onmouseover=&quot;x</a></li>' +
        '<li title="javascript:y"><a href="about:invalid#unsafe">javascript:y</a></li></ul><p class="c-a c-b&quot; onmouseover=&quot;x c-javascript:y ">',
    );
  });

  it("lets branches and loop bodies end elsewhere inside the same tag", () => {
    const e = engineWith({ "p.html": '<li{{#each cs as c}} data-{{#if c}}x{{else}}y{{/if}}="1"{{/each}}{{#if a}} class="a"{{/if}}>{{ t }}</li>' });
    assert.equal(render("p", { cs: [1, 0], a: true, t: "<" }, e), '<li data-x="1" data-y="1" class="a">&lt;</li>');
    assert.equal(render("p", { t: "<" }, e), "<li>&lt;</li>");
  });

  it("checks a value after a branch ending in an attribute name as a URL when any branch makes it one", () => {
    const e = engineWith({ "p.html": '<p {{#if c}}x{{/if}}href="{{ u }}">' });
    assert.equal(render("p", { c: false, u: "javascript:alert(1)" }, e), '<p href="about:invalid#unsafe">');
    assert.equal(render("p", { c: false, u: "/ok" }, e), '<p href="/ok">');
    assert.equal(render("p", { c: true, u: "javascript:alert(1)" }, e), '<p xhref="about:invalid#unsafe">');
    // and a value that is an event handler in one branch is refused
    refused('<p {{#if a}}x{{/if}}onclick="{{ v }}">', 1, /\{\{ v \}\} cannot be in the event handler attribute "onclick"/);
    refused('<p on{{#if a}}x{{/if}}click="{{ v }}">', 1, /\{\{ v \}\} cannot be in the event handler attribute "onx?click"/);
  });

  it("checks blocks nested in blocks, naming the inner one", () => {
    refused("{{#if a}}\n{{#each xs as x}}<b class='{{/each}}'>{{/if}}", 2, /\{\{#each xs as x\}\} body ends in the "class" attribute value \(single-quoted\)/);
    refused('{{#each xs as x}}<i>\n{{#if x}}<a href="{{ x }}{{/if}}">{{/each}}', 2, /\{\{#if x\}\} branches end in different contexts/);
    refused("<p>{{#if a}}{{#if b}}<style>{{else}}<style>{{/if}}{{/if}}</p>", 1, /\{\{#if a\}\} branches end in different contexts: inside <style>/);
    const e = engineWith({ "p.html": '{{#if a}}{{#each xs as x}}<a href="{{ x }}"{{#if @first}} class="first"{{/if}}>{{#if b}}<b>{{ x }}</b>{{else}}{{ x }}{{/if}}</a>{{/each}}{{/if}}' });
    assert.equal(render("p", { a: true, b: true, xs: ["<", "javascript:x"] }, e), '<a href="&lt;" class="first"><b>&lt;</b></a><a href="about:invalid#unsafe"><b>javascript:x</b></a>');
    assert.equal(render("p", { a: true, xs: ["y"] }, e), '<a href="y" class="first">y</a>');
  });

  it("refuses a value right after \"<\" inside <textarea> or <title>, which could end it", () => {
    refused('<textarea></textare{{ x }}><a href="{{ u }}">', 1, /\{\{ x \}\} cannot be .*<textarea>/);
    refused("<title>a <{{ x }}</title>", 1, /\{\{ x \}\} cannot be /);
    const e = engineWith({ "p.html": "<title>a < {{ x }}</title>" });
    assert.equal(render("p", { x: "/title" }, e), "<title>a < /title</title>");
  });
});

describe("templates: loops and conditionals", () => {
  it("loops with the item, @index, @first, @last and nested loops", () => {
    const html = render("list", { items: [{ name: "a<", tags: ["x", "y"] }, { name: "b" }, { name: "c", tags: [] }] });
    assert.equal(html, '<ul><li class="first">0. a&lt; #x #y</li><li>1. b</li><li class="last">2. c</li></ul>');
  });

  it("renders {{else}} for an empty or missing list", () => {
    assert.equal(render("list", { items: [] }), "<ul><li>empty</li></ul>");
    assert.equal(render("list", {}), "<ul><li>empty</li></ul>");
  });

  it("refuses to loop over something that is not an array", () => {
    assert.throws(() => render("list", { items: "abc" }), /^TypeError: templates: list\.html:1: \{\{#each items\}\} needs an array/);
  });

  it("treats false, 0, '', null, undefined and [] as false, the rest as true", () => {
    for (const user of [false, 0, "", null, undefined, []]) assert.equal(render("conditional", { user }), "Hello guest", String(user));
    assert.equal(render("conditional", { user: { name: "Ann" } }), "Hello Ann");
    assert.equal(render("conditional", { user: { name: "Bo", admin: true } }), "Hello Bo (admin)");
    assert.equal(render("conditional", { user: { name: "Cy", admin: [0] } }), "Hello Cy (admin)");
  });

  it("renders a missing variable, or a path through one, as empty", () => {
    assert.equal(render("missing-vars", {}), "<p>|||</p>");
    assert.equal(render("missing-vars", { a: "s" }), "<p>s|||</p>");
    const e = engineWith({ "p.html": "[{{ a.b.c }}|{{ a.x }}]" });
    assert.equal(render("p", { a: { b: null } }, e), "[|]");
  });

  it("shadows outer names with the loop variable", () => {
    const e = engineWith({ "s.html": "{{ x }}{{#each xs as x}}[{{ x }}]{{/each}}{{ x }}" });
    assert.equal(render("s", { x: "o", xs: [1, 2] }, e), "o[1][2]o");
  });
});

describe("templates: partials", () => {
  it("finds partials in partials/ first, then by name, with the caller's data and loop variables", () => {
    const html = render("with-partials", { site: "S&", content: "c", links: [{ href: "/a?x=1&y=2", label: "A" }] });
    assert.equal(html, '<header>S&amp;<nav><a href="/a?x=1&amp;y=2">A</a></nav></header><main>c</main>');
  });

  it("throws for a missing partial, naming the including file and line", () => {
    assert.throws(() => render("missing-partial"), /^Error: templates: missing-partial\.html:1: partial "nowhere" used by "missing-partial" not found/);
  });

  it("allows 64 nested partials and refuses the 65th (a partial that includes itself)", () => {
    const e = engineWith({ "page.html": "{{> tree }}", "partials/tree.html": "<i>{{ node.n }}</i>{{#each node.children as node}}{{> tree }}{{/each}}" });
    const chain = (n: number): object => {
      let node: object = { n, children: [] };
      for (let i = n - 1; i >= 1; i--) node = { n: i, children: [node] };
      return node;
    };
    const html = render("page", { node: chain(64) }, e);
    assert.ok(html.startsWith("<i>1</i><i>2</i>") && html.endsWith("<i>64</i>"));
    assert.throws(() => render("page", { node: chain(65) }, e), /partials nested deeper than 64/);
    const loop = engineWith({ "self.html": "x{{> self }}" });
    assert.throws(() => render("self", {}, loop), /^Error: templates: self\.html:1: partials nested deeper than 64/);
  });
});

describe("templates: layouts", () => {
  it("renders a page inside its layout, which sees the same data and the page as {{ body }}", () => {
    assert.equal(render("pages/home", { title: "<T>" }), "<!doctype html><html><head><title>&lt;T&gt;</title></head><body><h1>&lt;T&gt;</h1>\n</body></html>");
  });

  it("nests layouts", () => {
    assert.equal(render("pages/nested", { title: "t" }), "<!doctype html><html><head><title>t</title></head><body><section><p>t</p>\n</section></body></html>");
  });

  it("throws for a missing layout", () => {
    assert.throws(() => render("missing-layout"), /^Error: templates: layout "nowhere" used by "missing-layout" not found/);
  });

  it("accepts the layout header only first in the file", () => {
    const e = engineWith({ "late.html": "<p>\n{{! layout: base }}" });
    assert.throws(() => e.render("late"), /^SyntaxError: templates: late\.html:2: a layout header must be the first thing/);
    const ok = engineWith({ "early.html": "  {{! layout: l }}\n<p>", "l.html": "[{{ body }}]" });
    assert.equal(render("early", {}, ok), "[<p>]");
  });
});

describe("templates: compile cache and reload", () => {
  it("compiles each file once, however often it is rendered", () => {
    const e = templates({ dir: FIXTURES, dev: false });
    const data = { site: "s", content: "c", links: [{ href: "/", label: "h" }, { href: "/b", label: "b" }] };
    const first = render("with-partials", data, e);
    assert.equal(e.compiles, 3); // the page, partials/header, nav
    assert.equal(render("with-partials", data, e), first);
    render("with-partials", data, e);
    assert.equal(e.compiles, 3);
    e.clear();
    render("with-partials", data, e);
    assert.equal(e.compiles, 6);
  });

  it("in dev mode, recompiles a page, a partial and a layout whose file changed, only then", () => {
    const dir = folder({ "p.html": "{{! layout: l }}v1 {{> part }}", "partials/part.html": "part1", "layouts/l.html": "<L1>{{ body }}" });
    const e = templates({ dir, dev: true });
    assert.equal(render("p", {}, e), "<L1>v1 part1");
    assert.equal(render("p", {}, e), "<L1>v1 part1");
    assert.equal(e.compiles, 3);
    const later = new Date(Date.now() + 60_000);
    writeFileSync(join(dir, "p.html"), "{{! layout: l }}v2 {{> part }}");
    utimesSync(join(dir, "p.html"), later, later);
    assert.equal(render("p", {}, e), "<L1>v2 part1");
    assert.equal(e.compiles, 4);
    writeFileSync(join(dir, "partials/part.html"), "part2");
    utimesSync(join(dir, "partials/part.html"), later, later);
    writeFileSync(join(dir, "layouts/l.html"), "<L2>{{ body }}");
    utimesSync(join(dir, "layouts/l.html"), later, later);
    assert.equal(render("p", {}, e), "<L2>v2 part2");
    assert.equal(e.compiles, 6);
  });

  it("in dev mode, a partial added to partials/ takes over from the one by name", () => {
    const dir = folder({ "p.html": "{{> x }}", "x.html": "root" });
    const e = templates({ dir, dev: true });
    assert.equal(render("p", {}, e), "root");
    mkdirSync(join(dir, "partials"));
    writeFileSync(join(dir, "partials/x.html"), "partials");
    assert.equal(render("p", {}, e), "partials");
  });

  it("in production mode, never reads a file again", () => {
    const dir = folder({ "p.html": "v1", "q.html": "{{> r }}", "r.html": "r1" });
    const e = templates({ dir, dev: false });
    assert.equal(render("p", {}, e), "v1");
    assert.equal(render("q", {}, e), "r1");
    const later = new Date(Date.now() + 60_000);
    writeFileSync(join(dir, "p.html"), "v2");
    utimesSync(join(dir, "p.html"), later, later);
    writeFileSync(join(dir, "r.html"), "r2");
    utimesSync(join(dir, "r.html"), later, later);
    rmSync(join(dir, "q.html"));
    assert.equal(render("p", {}, e), "v1");
    assert.equal(render("q", {}, e), "r1");
    assert.equal(e.compiles, 3);
  });

  it("defaults dev to KEEL_ENV not being production", () => {
    const saved = process.env["KEEL_ENV"];
    try {
      process.env["KEEL_ENV"] = "production";
      assert.equal(templates({ dir: FIXTURES }).dev, false);
      process.env["KEEL_ENV"] = "development";
      assert.equal(templates({ dir: FIXTURES }).dev, true);
      delete process.env["KEEL_ENV"];
      assert.equal(templates({ dir: FIXTURES }).dev, true);
    } finally {
      if (saved === undefined) delete process.env["KEEL_ENV"];
      else process.env["KEEL_ENV"] = saved;
    }
  });

  it("uses the configured extension", () => {
    const e = templates({ dir: FIXTURES, extension: ".htm", dev: false });
    assert.equal(render("page", { value: "<" }, e), "<p>&lt;</p>");
    assert.equal(render("page.htm", { value: "x" }, e), "<p>x</p>");
    assert.throws(() => templates({ dir: FIXTURES, extension: "htm" }), TypeError);
  });
});

describe("templates: names stay inside the directory", () => {
  const bad = ["../escape", "pages/../../x", "..", "/etc/passwd", "pages\\home", "a\0b", "", "./escape", "pages//home", "C:/x", "pages/./home"];

  it("refuses names with .., absolute paths, backslashes, NUL and empty segments", () => {
    for (const name of bad) {
      assert.throws(() => fixtures.render(name), (err: Error) => err instanceof TypeError && err.message.startsWith("templates: the template name"), JSON.stringify(name));
    }
    assert.throws(() => fixtures.render(1 as unknown as string), TypeError);
  });

  it("limits a name to 512 characters", () => {
    assert.equal(checkTemplateName("a".repeat(512)), null);
    assert.match(checkTemplateName("a".repeat(513)) ?? "", /longer than 512/);
  });

  it("refuses partial and layout names that leave the directory when compiling", () => {
    const e = engineWith({ "p.html": "ok\n{{> ../secret }}", "q.html": "{{! layout: /etc/passwd }}" });
    assert.throws(() => e.render("p"), /^SyntaxError: templates: p\.html:2: /);
    assert.throws(() => e.render("q"), /^SyntaxError: templates: q\.html:1: /);
  });

  it("says which template is missing", () => {
    assert.throws(() => fixtures.render("nope"), /^Error: templates: template "nope" not found/);
    assert.throws(() => fixtures.render("pages"), /not found/); // a directory is not a template
  });
});

describe("templates: syntax errors name the file and line", () => {
  const cases: Array<[string, string, RegExp]> = [
    ["a\nb {{ x", "2", /"\{\{" is never closed with "\}\}"/],
    ["a\n\n{{{ x }}", "3", /"\{\{\{" is never closed/],
    ["{{#if a}}\nx\n{{#each b as c}}\n{{/each}}", "1", /\{\{#if\}\} is never closed with \{\{\/if\}\}/],
    ["{{#if a}}\n\n{{/each}}", "3", /"\{\{\/each\}\}" does not close the \{\{#if\}\} opened at line 1/],
    ["x\n{{/if}}", "2", /closes nothing/],
    ["\n\n\n{{else}}", "4", /\{\{else\}\} outside/],
    ["{{#if a}}{{else}}\n{{else}}{{/if}}", "2", /a second \{\{else\}\}/],
    ["{{#with a}}{{/with}}", "1", /unknown block "\{\{#with\}\}"/],
    ["{{#if}}{{/if}}", "1", /\{\{#if\}\} takes one path/],
    ["{{#each items}}{{/each}}", "1", /\{\{#each items as item\}\}/],
    ["{{#each items as 1x}}{{/each}}", "1", /not a name for the loop variable/],
    ["\n{{ a..b }}", "2", /not a dotted path/],
    ["{{ a + b }}", "1", /not a dotted path/],
    ["{{ fn() }}", "1", /not a dotted path/],
    ["{{ }}", "1", /an empty expression/],
    ["{{ @index.x }}", "1", /has no properties/],
    ["{{!-- x }}", "1", /never closed with "--\}\}"/],
  ];
  for (const [source, line, message] of cases) {
    it(`${JSON.stringify(source)} → line ${line}`, () => {
      const e = engineWith({ "bad.html": source });
      assert.throws(
        () => e.render("bad"),
        (err: Error) => err instanceof SyntaxError && err.message.startsWith(`templates: bad.html:${line}: `) && message.test(err.message),
      );
      assert.equal(e.compiles, 0);
    });
  }

  it("counts lines across comments, triple braces and CRLF", () => {
    const e = engineWith({ "bad.html": "{{!-- a\nb --}}\r\n{{{ x\n}}}\n{{ 1a }}" });
    assert.throws(() => e.render("bad"), /^SyntaxError: templates: bad\.html:5: /);
  });
});

describe("templates: paths cannot reach prototypes", () => {
  for (const expression of ["__proto__", "a.__proto__", "constructor", "a.constructor.name", "x.prototype", "__proto__.polluted"]) {
    it(`refuses {{ ${expression} }} at compile time`, () => {
      for (const source of [`{{ ${expression} }}`, `{{{ ${expression} }}}`, `{{#if ${expression}}}x{{/if}}`, `{{#each ${expression} as y}}x{{/each}}`]) {
        const e = engineWith({ "p.html": source });
        assert.throws(() => e.render("p", { a: {} }), /^SyntaxError: templates: p\.html:1: the path segment "(__proto__|constructor|prototype)" is refused/, source);
      }
    });
  }

  it("reads own properties only: inherited names and methods are missing", () => {
    const e = engineWith({ "p.html": "[{{ secret }}|{{ toString }}|{{ a.hasOwnProperty }}|{{ list.length }}|{{ list.0 }}|{{ s.length }}]" });
    const data = Object.assign(Object.create({ secret: "inherited" }) as object, { a: {}, list: ["x", "y"], s: "str" });
    assert.equal(render("p", data, e), "[|||2|x|]");
  });
});

describe("templates: page() replies", () => {
  it("answers text/html with the rendered page and the given status", async () => {
    const app = new App({ logger: silentLogger }).routes(
      route.get("/", [], () => fixtures.page("pages/home", { title: "Home & co" })),
      route.get("/gone", [], () => fixtures.page("conditional", {}, 410)),
      route.get("/broken", [], () => fixtures.page("nope")),
    );
    const home = await app.inject({ url: "/" });
    assert.equal(home.status, 200);
    assert.equal(home.headers["content-type"], "text/html; charset=utf-8");
    assert.match(home.body, /<title>Home &amp; co<\/title>/);
    const gone = await app.inject({ url: "/gone" });
    assert.equal(gone.status, 410);
    assert.equal(gone.body, "Hello guest");
    const broken = await app.inject({ url: "/broken" });
    assert.equal(broken.status, 500);
    assert.equal(broken.json<{ error: { type: string } }>().error.type, "internal_error");
  });
});
