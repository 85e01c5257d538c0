// keel/web templates: HTML files compiled once into closures, rendered with auto-escaping.
//
// Syntax (logic-less: expressions are dotted paths, nothing is evaluated):
//   {{ user.name }}            the value, HTML-escaped (& < > " ' ; safe in text and quoted attributes)
//   {{{ trusted }}}            the value unescaped (for SafeHtml or HTML you produced yourself)
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
// the template is compiled. Values follow the html`` tag's rule: strings and numbers escaped,
// true prints "true", null/undefined/false print nothing, arrays are concatenated, SafeHtml is
// written as is, other objects are a TypeError (naming file and line).
// A missing variable renders empty (in dev mode too: `{{#if x}}` on optional data is the normal
// case). Syntax errors are SyntaxErrors "templates: <file>:<line>: …", thrown when the file is
// compiled, never half-way through a render.
// HTML context (template-contexts.ts): each {{ value }} is placed with the html`` tag's scanner:
// in text and quoted attributes it is escaped; in URL attributes (href, src, action, ...) a
// javascript:, vbscript: or data: URL becomes about:invalid#unsafe; inside <script>/<style>, on*
// attributes, comments, tag or attribute names, or as an unquoted attribute value it is a compile
// error. {{{ value }}} is trusted and goes anywhere unchecked.
// Rendering is synchronous and reads no file once a template is compiled (see template-engine.ts).
export { templates, TemplateEngine, type TemplatesOptions, type TemplateData } from "./template-engine.js";
export { checkTemplateName } from "./template-names.js";
