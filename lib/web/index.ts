// keel/web: what a web app reaches for in its first week, each a build-time feature of its own:
// the markup`` tag and SafeHtml (html), signed cookies (cookies), server-side sessions (session),
// static files (static), multipart uploads (multipart), file templates (templates) and the Web
// fetch seam, fetchHandler(app) and mountFetch(prefix, handler) (fetch). Setting
// cookies and the html() reply are the kernel's (reply.setCookie, html).
export * from "./html/index.js";
export * from "./cookies/index.js";
export * from "./session/index.js";
export * from "./static/index.js";
export * from "./templates/index.js";
export * from "./multipart/index.js";
export * from "./fetch/index.js";
