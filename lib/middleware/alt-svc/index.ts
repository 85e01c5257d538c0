// keel/middleware: altSvc() advertises an alternative service such as HTTP/3 (RFC 7838).
export { altSvc, type AltService } from "./alt-svc.js";
