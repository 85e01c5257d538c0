// Who made the request, as established by an authentication layer (jwt(), apiKey() or your own).
// Layers store it in `ctx.locals`; `authUser()` and the guards read it from there, so guards
// work with any authentication layer that calls `setAuthPrincipal`.
import { ApiError, type Context } from "../index.js";

/** The `ctx.locals` key holding the request's AuthPrincipal (or null: no credentials given). */
export const AUTH_PRINCIPAL_KEY = "keel.auth";

/** Claims about a caller: verified JWT claims (a JwtPayload fits), or those configured for a key. */
export interface PrincipalClaims {
  readonly sub?: string;
  readonly [claim: string]: unknown;
}

export interface AuthPrincipal {
  /** How the request authenticated: "bearer" (jwt), "api-key", or a custom scheme name. */
  readonly scheme: string;
  /** Claims about the caller: verified JWT claims, or the claims configured for an API key. */
  readonly claims: PrincipalClaims;
  /** The `WWW-Authenticate` challenge to send when this request is refused for lack of credentials. */
  readonly challenge: string;
}

/** Record the authenticated caller (call it from a custom authentication layer). */
export function setAuthPrincipal(ctx: Context, principal: AuthPrincipal): void {
  ctx.locals[AUTH_PRINCIPAL_KEY] = principal;
}

/**
 * Record that an authentication layer ran but the request carried no credentials (a layer in
 * optional mode); `authUser()` and guards answer 401 with `challenge`.
 */
export function setAnonymousPrincipal(ctx: Context, challenge: string): void {
  ctx.locals[AUTH_PRINCIPAL_KEY] = challenge;
}

/**
 * The principal, or throws: 401 (with the layer's challenge) when a layer ran but the caller is
 * anonymous; 500 when no authentication layer ran at all, which is a wiring mistake (a guard on
 * a route that no jwt()/apiKey() layer covers) and must not silently pass or look like a 401.
 */
export function requirePrincipal(ctx: Context, user: string): AuthPrincipal {
  const v = ctx.locals[AUTH_PRINCIPAL_KEY];
  if (typeof v === "object" && v !== null) return v as AuthPrincipal;
  if (typeof v === "string") throw ApiError.unauthorized("Authentication required", { headers: { "www-authenticate": v } });
  throw ApiError.internal("Internal server error", {
    detail: `${user} used on route ${ctx.route?.pattern ?? ctx.path} that no authentication layer (jwt(), apiKey()) covers`,
  });
}

/** The principal if a layer authenticated the request, else undefined (never throws). */
export function getAuthPrincipal(ctx: Context): AuthPrincipal | undefined {
  const v = ctx.locals[AUTH_PRINCIPAL_KEY];
  return typeof v === "object" && v !== null ? (v as AuthPrincipal) : undefined;
}

/** True when the route opted out of authentication with `config: { auth: false }`. */
export function isPublicRoute(ctx: Context): boolean {
  const config = ctx.route?.meta.config;
  return config !== undefined && config["auth"] === false;
}
