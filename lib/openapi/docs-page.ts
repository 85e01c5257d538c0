// The docs UI page: one HTML document with its stylesheet and script inline, and the strict
// Content-Security-Policy that allows exactly those two (by hash), requests to the same origin and
// nothing else. Hashes are computed once, when this module loads.
import { createHash } from "node:crypto";
import { DOCS_SCRIPT_SCHEMA } from "./docs-script-schema.js";
import { DOCS_SCRIPT_UI } from "./docs-script-ui.js";
import { DOCS_STYLE } from "./docs-style.js";

/** The page's whole inline script (one IIFE, strict mode). */
export const DOCS_SCRIPT = `(function () {\n"use strict";\n${DOCS_SCRIPT_SCHEMA}\n${DOCS_SCRIPT_UI}\n})();\n`;

function sha256Source(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/** The `content-security-policy` header value the page is served with. */
export const DOCS_CSP = [
  "default-src 'none'",
  `script-src ${sha256Source(DOCS_SCRIPT)}`,
  `style-src ${sha256Source(DOCS_STYLE)}`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers of the page reply besides content-type. */
export const DOCS_PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": DOCS_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

// The inline code must not be able to end its own element early.
if (/<\/script|<!--/i.test(DOCS_SCRIPT) || /<\/style/i.test(DOCS_STYLE)) {
  throw new Error("keel openapi: the docs page's inline code contains a closing tag");
}

/** The HTML of the docs page; the title is only a placeholder until the document is loaded. */
export function renderDocsPage(title: string): string {
  const safeTitle = escapeHtml(title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${safeTitle} · API docs</title>
<link rel="icon" href="data:,">
<style>${DOCS_STYLE}</style>
</head>
<body>
<div id="app"><main><h1>${safeTitle}</h1><p class="loading">Loading the API description…</p><noscript><p>This page needs JavaScript to render the API description; the raw document is at openapi.json next to this page.</p></noscript></main></div>
<script>${DOCS_SCRIPT}</script>
</body>
</html>
`;
}
