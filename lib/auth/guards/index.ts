// keel/auth: who made the request (set by any authentication layer) and the role/permission guards.
export { requireRole, requirePermission, type GuardOptions, type ClaimPath } from "./guards.js";
export { AUTH_PRINCIPAL_KEY, setAuthPrincipal, setAnonymousPrincipal, getAuthPrincipal, type AuthPrincipal, type PrincipalClaims } from "../../shared/principal.js";
