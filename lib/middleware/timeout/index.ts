// keel/middleware: timeout() aborts the request's signal and answers 503 (or 504).
export { timeout, discardReply, type TimeoutOptions } from "./timeout.js";
