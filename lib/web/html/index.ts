// keel/web's html feature: the markup`` tag, which escapes each value for the place it lands in
// (text, quoted or unquoted attribute value, URL; script, style and on* take raw() only), and
// SafeHtml, raw() and escapeHtml. SafeHtml carries keel/plugin's HTML_BRAND, so the kernel's
// html() reply, and a handler returning it, send it as is (200 text/html).
// The scanner behind the tag (HtmlState, scanHtmlText, htmlContext, ...) is exported for other
// template languages: the file templates (lib/web/templates) follow it through their blocks.
export { markup } from "./markup.js";
export { SafeHtml, raw, escapeHtml, htmlOf, isUnsafeUrlHtml, UNSAFE_URL } from "./html-values.js";
export { describeHtmlState, HTML_TEXT, htmlAfterValue, htmlContext, htmlContextKey, scanHtmlText, type HtmlContext, type HtmlState, type UrlValueEdge } from "./markup.js";
