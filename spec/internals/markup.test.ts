// The markup`` tag (lib/web/html/markup.ts, exported by keel/web): values
// escaped for the context the literal parts put them in, URL schemes refused in URL attributes,
// script/style/event handlers closed to anything but raw(), composition by interpolation.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  describeHtmlState,
  escapeHtml,
  htmlAfterValue,
  htmlContext,
  htmlContextKey,
  htmlOf,
  HTML_TEXT,
  isUnsafeUrl,
  markup,
  raw,
  SafeHtml,
  scanHtmlText,
  UNSAFE_URL,
  type HtmlState,
} from "../../lib/web/html/markup.js";

const DANGER = `<script>"'&</script>`;
const ESCAPED = "&lt;script&gt;&quot;&#39;&amp;&lt;/script&gt;";
const s = (h: SafeHtml): string => h.toString();

describe("SafeHtml, raw and escapeHtml", () => {
  it("escapes each dangerous character and leaves the rest", () => {
    assert.equal(escapeHtml("&"), "&amp;");
    assert.equal(escapeHtml("<"), "&lt;");
    assert.equal(escapeHtml(">"), "&gt;");
    assert.equal(escapeHtml('"'), "&quot;");
    assert.equal(escapeHtml("'"), "&#39;");
    assert.equal(escapeHtml("plain text é ✓"), "plain text é ✓");
    assert.equal(escapeHtml("a&&b"), "a&amp;&amp;b");
  });

  it("brands SafeHtml: an object with a toString is not SafeHtml", () => {
    const fake = { toString: () => "<b>" };
    assert.equal(SafeHtml.is(fake), false);
    assert.equal(SafeHtml.is(Object.create(SafeHtml.prototype)), false);
    assert.equal(SafeHtml.is(raw("<b>")), true);
    assert.throws(() => markup`<p>${fake}</p>`, TypeError);
  });

  it("raw() keeps trusted HTML and takes only strings", () => {
    assert.equal(s(markup`<p>${raw("<b>x</b>")}</p>`), "<p><b>x</b></p>");
    assert.throws(() => raw(1 as unknown as string), TypeError);
  });
});

describe("markup: values", () => {
  it("prints strings, numbers, bigints and true; null, undefined and false print nothing", () => {
    assert.equal(s(markup`[${"a"}|${0}|${1.5}|${10n}|${true}|${false}|${null}|${undefined}]`), "[a|0|1.5|10|true|||]");
  });

  it("refuses other objects, functions and symbols with a TypeError", () => {
    for (const v of [{}, new Date(0), () => 1, Symbol("x"), new Map()]) {
      assert.throws(() => markup`<p>${v}</p>`, TypeError);
    }
  });

  it("concatenates arrays, escaping strings and keeping SafeHtml items, nested arrays too", () => {
    assert.equal(s(markup`<p>${["<a>", raw("<br>"), ["&", 1]]}</p>`), "<p>&lt;a&gt;<br>&amp;1</p>");
    const items = ["x<", "y"];
    assert.equal(s(markup`<ul>${items.map((i) => markup`<li>${i}</li>`)}</ul>`), "<ul><li>x&lt;</li><li>y</li></ul>");
  });

  it("composes layouts as plain functions", () => {
    const layout = (title: string, body: SafeHtml): SafeHtml => markup`<html><title>${title}</title><body>${body}</body></html>`;
    const page = layout("A & B", markup`<h1>${"<hi>"}</h1>`);
    assert.ok(page instanceof SafeHtml);
    assert.equal(s(page), "<html><title>A &amp; B</title><body><h1>&lt;hi&gt;</h1></body></html>");
  });

  it("caches the scan per call site yet writes each call's values", () => {
    const li = (x: unknown): string => s(markup`<li title="${x}">${x}</li>`);
    assert.equal(li("a"), '<li title="a">a</li>');
    assert.equal(li('"'), '<li title="&quot;">&quot;</li>');
  });
});

describe("markup: escaping by context", () => {
  it("escapes text", () => {
    assert.equal(s(markup`<p>${DANGER}</p>`), `<p>${ESCAPED}</p>`);
  });

  it("escapes double- and single-quoted attribute values so no quote closes them", () => {
    assert.equal(s(markup`<p title="${DANGER}" data-x='${DANGER}'></p>`), `<p title="${ESCAPED}" data-x='${ESCAPED}'></p>`);
    assert.equal(s(markup`<p title="a ${"b"} c">`), '<p title="a b c">');
  });

  it("quotes an unquoted attribute value, up to the next space or >", () => {
    assert.equal(s(markup`<p class=${"a b"}>`), '<p class="a b">');
    assert.equal(s(markup`<p class=${'x" onclick="y'} id=z>`), '<p class="x&quot; onclick=&quot;y" id=z>');
    assert.equal(s(markup`<p class=${"a"}-big title=t>`), '<p class="a-big" title=t>');
    assert.equal(s(markup`<p class = ${"a"}>`), '<p class = "a">');
    assert.equal(s(markup`<img alt=${"x"}/>`), '<img alt="x/">');
    assert.equal(s(markup`<p class=${"a"}`), '<p class="a"');
  });

  it("escapes whitespace, = and backtick in the middle of an unquoted value", () => {
    assert.equal(s(markup`<p class=a${" b=`c"}>`), "<p class=a&#32;b&#61;&#96;c>");
  });

  it("escapes SafeHtml in the middle of an unquoted value too, so it cannot add an attribute", () => {
    const label = markup`${"x onmouseover=alert(1)"}`;
    assert.equal(s(markup`<div class=a${label}>`), "<div class=ax&#32;onmouseover&#61;alert(1)>");
    assert.equal(s(markup`<div class=a${raw("b\t'\"`<>")}>`), "<div class=ab&#9;&#39;&quot;&#96;&lt;&gt;>");
    // its entities are kept: the browser reads the value the SafeHtml spells
    assert.equal(s(markup`<div class=a${raw("&amp;b")}>`), "<div class=a&amp;b>");
    assert.equal(s(markup`<div class=a${[raw("x y"), "z"]}>`), "<div class=ax&#32;yz>");
  });

  it("escapes quotes in SafeHtml written into a value markup quotes itself", () => {
    assert.equal(s(markup`<p class=${raw('x" onclick="y')}>`), '<p class="x&quot;&#32;onclick&#61;&quot;y">');
    assert.equal(s(markup`<p class=${"a"}${raw('" onclick=y')}>`), '<p class="a&quot;&#32;onclick&#61;y">');
    // in a value the author quoted, SafeHtml stays as written
    assert.equal(s(markup`<p title="${raw("a&amp;b c")}">`), '<p title="a&amp;b c">');
  });

  it("treats <title>, <textarea> and <noscript> as text that ends only at its end tag", () => {
    assert.equal(s(markup`<title>${"</title><script>"}</title>`), "<title>&lt;/title&gt;&lt;script&gt;</title>");
    assert.equal(s(markup`<textarea><p title="${"<x>"}</textarea>`), '<textarea><p title="&lt;x&gt;</textarea>');
    // the browser leaves <noscript> at </noscript>, inside what looks like an attribute value
    assert.throws(() => markup`<noscript><p title="</noscript><img src=x onerror=${"alert(1)"}>"></noscript>`, /event handler/);
  });

  it("escapes text after a tag whose attribute values contain > and quotes", () => {
    assert.equal(s(markup`<p title="a>b" data-q='"'>${"<"}</p>`), `<p title="a>b" data-q='"'>&lt;</p>`);
    assert.equal(s(markup`a < b ${"<"}`), "a < b &lt;");
  });
});

describe("markup: URL attributes", () => {
  const bad = ["javascript:alert(1)", "JavaScript:alert(1)", " \tjavascript:x", "java\nscript:x", "\x01javascript:x", "vbscript:msgbox", "data:text/html,<script>", "DATA:text/html,x"];

  it("replaces javascript:, vbscript: and data: values with about:invalid#unsafe", () => {
    for (const url of bad) {
      const inAttributes = [
        markup`<a href="${url}">`,
        markup`<iframe src="${url}">`,
        markup`<form action="${url}">`,
        markup`<button formaction="${url}">`,
        markup`<use xlink:href="${url}">`,
        markup`<video poster="${url}">`,
        markup`<q cite="${url}">`,
      ];
      for (const h of inAttributes) assert.ok(s(h).endsWith(`="${UNSAFE_URL}">`), `${s(h)} for ${JSON.stringify(url)}`);
      assert.equal(s(markup`<a href="${url}">`), `<a href="${UNSAFE_URL}">`);
      assert.equal(s(markup`<a href=${url}>`), `<a href="${UNSAFE_URL}">`);
      assert.equal(s(markup`<a HREF='${url}'>`), `<a HREF='${UNSAFE_URL}'>`);
    }
  });

  it("keeps safe URLs, escaped", () => {
    assert.equal(s(markup`<a href="${"https://x.example/?a=1&b=2"}">`), '<a href="https://x.example/?a=1&amp;b=2">');
    assert.equal(s(markup`<a href="/users/${"javascript:1"}">`), '<a href="/users/javascript:1">');
    assert.equal(s(markup`<a href="${"/path"}">`), '<a href="/path">');
    assert.equal(s(markup`<a title="${"javascript:x"}">`), '<a title="javascript:x">');
  });

  it("checks the whole value: literal parts and several values together", () => {
    assert.equal(s(markup`<a href="${"java"}script:x">`), `<a href="${UNSAFE_URL}">`);
    assert.equal(s(markup`<a href="java${"script:x"}">`), `<a href="${UNSAFE_URL}">`);
    assert.equal(s(markup`<a href="${"javas"}${"cript"}:x" title="${"t"}">`), `<a href="${UNSAFE_URL}" title="t">`);
    assert.equal(s(markup`<a href="${"/a"}"><a href="${"javascript:1"}"><a href="${"/b"}">`), `<a href="/a"><a href="${UNSAFE_URL}"><a href="/b">`);
    // entities in the literal part are what the browser reads
    assert.equal(s(markup`<a href="javascript&#58;${"x"}">`), `<a href="${UNSAFE_URL}">`);
    // a value the author wrote alone is trusted
    assert.equal(s(markup`<a href="javascript:void(0)">${"x"}</a>`), '<a href="javascript:void(0)">x</a>');
  });

  it("checks SafeHtml values too, as the browser decodes them", () => {
    assert.equal(s(markup`<a href="${raw("javascript:x")}">`), `<a href="${UNSAFE_URL}">`);
    assert.equal(s(markup`<a href="${raw("javascript&colon;x")}">`), `<a href="${UNSAFE_URL}">`);
    assert.equal(s(markup`<a href="${raw("&#106;avascript:x")}">`), `<a href="${UNSAFE_URL}">`);
    // escaped text stays text: the browser reads "javascript&#58;x", a relative URL
    assert.equal(s(markup`<a href="${"javascript&#58;x"}">`), '<a href="javascript&amp;#58;x">');
  });

  it("allows data:image/ (not SVG) in image attributes only", () => {
    const png = "data:image/png;base64,iVBORw0KGgo=";
    assert.equal(s(markup`<img src="${png}">`), `<img src="${png}">`);
    assert.equal(s(markup`<a href="${png}">`), `<a href="${UNSAFE_URL}">`);
    assert.equal(s(markup`<img src="${"data:image/svg+xml,<svg/>"}">`), `<img src="${UNSAFE_URL}">`);
    assert.equal(isUnsafeUrl("data:image/gif,x", true), false);
    assert.equal(isUnsafeUrl("data:image/gif,x", false), true);
  });

  it("checks each candidate of a srcset", () => {
    assert.equal(s(markup`<img srcset="${"a.png 1x, b.png 2x"}">`), '<img srcset="a.png 1x, b.png 2x">');
    assert.equal(s(markup`<img srcset="${"a.png 1x, javascript:x 2x"}">`), `<img srcset="${UNSAFE_URL}">`);
    assert.equal(s(markup`<img srcset="${"data:image/png;base64,AA 1x"}">`), '<img srcset="data:image/png;base64,AA 1x">');
  });
});

describe("markup: places only raw() may go", () => {
  it("refuses values in event handler attributes, quoted or not", () => {
    assert.throws(() => markup`<button onclick="${"x"}">`, /event handler attribute "onclick"/);
    assert.throws(() => markup`<button onclick=${"x"}>`, TypeError);
    assert.throws(() => markup`<button ONMOUSEOVER='go(${1})'>`, TypeError);
    assert.equal(s(markup`<button onclick="${raw("go()")}">`), '<button onclick="go()">');
    assert.throws(() => markup`<iframe srcdoc="${"<script>x()</script>"}">`, /"srcdoc" attribute/);
  });

  it("refuses values in the style attribute (CSS), quoted or not, and accepts raw()", () => {
    assert.throws(() => markup`<p style="${"background:url(//evil/?)"}">`, /in the "style" attribute/);
    assert.throws(() => markup`<p style="color: ${"red"}">`, TypeError);
    assert.throws(() => markup`<p STYLE='${"x"}'>`, TypeError);
    assert.throws(() => markup`<p style=${"x"}>`, TypeError);
    assert.throws(() => markup`<p style=a${"x"}>`, TypeError);
    assert.equal(s(markup`<p style="${raw("color: red")}">`), '<p style="color: red">');
    assert.equal(s(markup`<p style="color: red" title="${"t"}" data-style="${"x"}">`), '<p style="color: red" title="t" data-style="x">');
  });

  it("refuses values inside <script> and <style> bodies, and accepts them after the end tag", () => {
    assert.throws(() => markup`<script>let a = ${"1"};</script>`, /inside <script>/);
    assert.throws(() => markup`<script type="module">${1}</script>`, TypeError);
    assert.throws(() => markup`<STYLE>p { color: ${"red"} }</STYLE>`, /inside <style>/);
    assert.throws(() => markup`<script>"</scripts>"; ${"x"}</script>`, TypeError);
    assert.equal(s(markup`<script>let a = ${raw("1")};</script>`), "<script>let a = 1;</script>");
    assert.equal(s(markup`<script>x()</script >${"<"}<style>p{}</style>${"<"}`), "<script>x()</script >&lt;<style>p{}</style>&lt;");
    assert.equal(s(markup`<p>${"<"}</p><script>a</script><p>${"<"}`), "<p>&lt;</p><script>a</script><p>&lt;");
  });

  it("refuses values in tag names, attribute names and comments", () => {
    assert.throws(() => markup`<${"script"}>`, /tag or attribute name/);
    assert.throws(() => markup`<p ${"onclick=x"}>`, TypeError);
    assert.throws(() => markup`<p data-${"x"}="1">`, TypeError);
    assert.throws(() => markup`<!-- ${"x"} -->`, /comment/);
    assert.equal(s(markup`<input ${raw("disabled")}>`), "<input disabled>");
    assert.equal(s(markup`<!-- c -->${"<"}`), "<!-- c -->&lt;");
  });

  it("htmlOf is the text-context rule the file templates share", () => {
    assert.equal(htmlOf(["<", raw("<b>"), 1, null]), "&lt;<b>1");
    assert.throws(() => htmlOf({}), TypeError);
  });
});

describe("the scan, step by step (for the file templates)", () => {
  /** The state after scanning the texts one after the other, each from where the last ended. */
  const after = (...texts: string[]): HtmlState => texts.reduce((state, text) => scanHtmlText(state, text).end, HTML_TEXT);

  it("reads text cut anywhere as the whole text", () => {
    const whole = '<p title="a>b" data-q=\'"\'><!-- x -> --><textarea></textarea ><a href="/x" id=y';
    for (let cut = 0; cut <= whole.length; cut++) {
      assert.deepEqual(after(whole.slice(0, cut), whole.slice(cut)), after(whole), `cut at ${cut}`);
    }
    assert.equal(describeHtmlState(after(whole)), 'in the "id" attribute value (unquoted) of <a>');
    assert.equal(describeHtmlState(after("</")), 'right after "</"');
    assert.equal(describeHtmlState(after("<textarea></text", "area")), "inside <textarea>");
    assert.equal(describeHtmlState(after("<textarea></text", "area>")), "in text");
    assert.equal(describeHtmlState(after("<!--", "-", "->")), "in text");
    assert.equal(describeHtmlState(after("<!-- -", "->")), "in text");
    assert.equal(describeHtmlState(after("<!-- -", ">")), "inside an HTML comment");
    assert.equal(describeHtmlState(after("<!-- --!", ">")), "in text");
  });

  it("starts from a given state and reports the state it ends in", () => {
    const inTitle = after('<p title="');
    assert.equal(describeHtmlState(inTitle), 'in the "title" attribute value (double-quoted) of <p>');
    assert.equal(describeHtmlState(scanHtmlText(inTitle, 'a" class=\'b').end), 'in the "class" attribute value (single-quoted) of <p>');
    assert.equal(describeHtmlState(scanHtmlText(after("<script>"), "x</script>").end), "in text");
    assert.equal(describeHtmlState(scanHtmlText(HTML_TEXT, "<noscript>").end), "inside <noscript>");
  });

  it("gives equal keys to places that are the same context, and only to those", () => {
    const key = (...texts: string[]): string => htmlContextKey(after(...texts));
    assert.equal(key("<li"), key('<li class="a"'));
    assert.equal(key("<li"), key("<li x"));
    assert.equal(key("<p>"), key("<p><b>x</b>"));
    assert.notEqual(key("<li"), key("<ul"));
    assert.notEqual(key("<li"), key("<li>"));
    assert.notEqual(key('<a title="'), key("<a title='"));
    assert.notEqual(key('<a title="'), key('<a alt="'));
    assert.notEqual(key("<p>"), key("<textarea>"));
    assert.notEqual(key("<p>"), key("<!--"));
  });

  it("reports URL attribute value edges, after the opening quote and at the closing one", () => {
    const text = '<a href="/x" title="t"><img src=\'y\'>';
    assert.deepEqual(scanHtmlText(HTML_TEXT, text).urlEdges, [
      { offset: 9, edge: "start", attribute: "href" },
      { offset: 11, edge: "end", attribute: "href" },
      { offset: 33, edge: "start", attribute: "src" },
      { offset: 34, edge: "end", attribute: "src" },
    ]);
    assert.deepEqual(scanHtmlText(after('<a href="/'), 'x">').urlEdges, [{ offset: 1, edge: "end", attribute: "href" }]);
  });

  it("says where a value lands and what follows it", () => {
    assert.deepEqual(htmlContext(after('<a href="')), { kind: "quoted", where: "in an attribute value", url: "href" });
    assert.deepEqual(htmlContext(after('<a title="')), { kind: "quoted", where: "in an attribute value", url: null });
    assert.equal(htmlContext(after("<p class=")).kind, "unquoted");
    assert.equal(htmlContext(after("<title>")).kind, "text");
    assert.equal(htmlContext(after("<title><")).kind, "trusted");
    assert.equal(htmlContext(after('<p onclick="')).url, null);
    // a value in a comment breaks a "--" in two
    assert.equal(describeHtmlState(scanHtmlText(htmlAfterValue(after("<!-- -")), "->").end), "inside an HTML comment");
  });
});

describe("markup: a value after \"<\" in <title> or <textarea>", () => {
  it("is refused, as it could end the element and turn what follows into markup", () => {
    assert.throws(() => markup`<textarea></textare${"a"}><a href="${"javascript:alert(1)"}">x</a>`, /right after "<" inside <textarea>/);
    assert.throws(() => markup`<title>a <${"/title"}</title>`, TypeError);
    assert.equal(s(markup`<title>a < ${"/title"}</title>`), "<title>a < /title</title>");
    assert.equal(s(markup`<textarea>${raw("<b>")}</textare${raw("a")}>${"<"}`), "<textarea><b></textarea>&lt;");
  });
});

