// keel/middleware: csrf() double-submit protection and the csrfToken() extractor.
export { csrf, csrfToken, CSRF_TOKEN_KEY, type CsrfOptions } from "./csrf.js";
