// keel/web templates: HTML files compiled once into closures, rendered with auto-escaping.
//
// Syntax (logic-less: expressions are dotted paths, nothing is evaluated):
//   {{ user.name }}            the value, HTML-escaped (& < > " ' ; safe in text and quoted attributes)
//   {{{ trusted }}}            the value unescaped (HTML you produced yourself), in text or in a
//                              script, style, on* or style attribute; never in an attribute value
//   {{#if user.admin}}…{{else}}…{{/if}}
//                              false, null, undefined, 0, "" and empty arrays are false
//   {{#each items as item}}…{{else}}…{{/each}}
//                              an array; inside, `item`, `@index`, `@first`, `@last`; the
//                              {{else}} part renders for a missing or empty list
//   {{> header}}               a partial: partials/header.html if it exists, else header.html;
//                              it sees the same data and loop variables; a missing one throws
//   {{! layout: base }}        first in a file: render this page inside layouts/base.html (or
//                              base.html), which writes the page with {{ body }} (a layout may
//                              have a layout of its own)
//   {{! comment }}  {{!-- comment with }} --}}   not written
//   \{{                        a literal "{{"
// Paths read own properties only; `__proto__`, `constructor` and `prototype` are refused when
// the template is compiled. Values follow the markup`` tag's rule: strings and numbers escaped,
// true prints "true", null/undefined/false print nothing, arrays are concatenated, SafeHtml is
// written as is, other objects are a TypeError (naming file and line).
// A missing variable renders empty (in dev mode too: `{{#if x}}` on optional data is the normal
// case). Syntax errors are SyntaxErrors "templates: <file>:<line>: …", thrown when the file is
// compiled, never half-way through a render.
// HTML context (template-contexts.ts): each {{ value }}, {{{ value }}} and {{> partial }} is
// placed at compile time with the markup`` tag's scanner, which follows the blocks as Go's
// html/template does: both branches of an {{#if}} are scanned from where it starts, and an
// {{#each}} body from where the loop starts and from where the body ends. These are
// SyntaxErrors (file:line):
//   an {{#if}} whose branches end in different contexts (a missing {{else}} is an empty branch:
//     `{{#if a}}<textarea>{{/if}}` is one), or an {{#each}} body or {{else}} part that does not
//     end in the context it started in (`{{#each xs as x}}<a title="{{ x }}{{/each}}">`): what
//     follows must be read in one place whatever the data. Anywhere inside the same tag is one
//     context (`<li{{#if @first}} class="first"{{/if}}>`), and a value after such a block must be
//     fit for every way the branches can leave the tag (`<p {{#if c}}x{{/if}}href="{{ u }}">`
//     checks u as a URL);
//   {{ value }} inside <script>/<style>, an on*, style or srcdoc attribute, a comment, a tag or
//     attribute name, or right after "<" in <title>/<textarea> (it could end the element): no
//     escaping makes text safe there ({{{ }}} is for HTML you built);
//   {{ }} or {{{ }}} as an unquoted attribute value (quote it);
//   {{{ value }}} in any attribute value ({{ value }} keeps SafeHtml and checks URLs);
//   {{> partial }} anywhere but in text (a partial is compiled as text);
//   a template that ends anywhere but in text (inside a tag, attribute value, comment, script);
//   a URL attribute value holding values that starts and ends in different #if/#each blocks.
// In text and quoted attributes a {{ value }} is escaped. A URL attribute value (href, src,
// action, ...) holding values is rendered whole (literal text, values and blocks) and checked
// once: a javascript:, vbscript: or data: URL replaces the whole value with about:invalid#unsafe.
// {{{ value }}} in text or in the places above where only trusted HTML goes is written unchecked.
// Rendering is synchronous and reads no file once a template is compiled (see template-engine.ts).
export { templates, TemplateEngine, type TemplatesOptions, type TemplateData } from "./template-engine.js";
export { checkTemplateName } from "./template-names.js";
