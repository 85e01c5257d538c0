// keel/middleware: securityHeaders() sets CSP, HSTS, nosniff, frame and referrer policies.
export { securityHeaders, DEFAULT_CONTENT_SECURITY_POLICY, type SecurityHeadersOptions, type HstsOptions } from "./security-headers.js";
