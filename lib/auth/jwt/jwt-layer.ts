// The JWT authentication layer and the `authUser()` extractor.
// - `jwt({...})` reads `Authorization: Bearer <token>` (see bearer.ts), verifies it with the
//   JWT core (createJwtVerifier: algorithm allow-list, keys or JWKS, claims) and stores the
//   verified claims in `ctx.locals`; a missing or invalid token is 401 `unauthorized` with a
//   `WWW-Authenticate` challenge (RFC 6750 §3):
//     missing token      -> `Bearer realm="api"` (no error code, as §3.1 asks for requests
//                           without any authentication information)
//     invalid / expired  -> `Bearer realm="api", error="invalid_token", error_description="..."`
//     malformed header   -> the same invalid_token challenge, still 401 (§3.1 allows 400
//                           invalid_request; keel keeps "bad credentials = 401" uniform)
//   An unreachable JWKS (no cached keys) is 503: the token was not judged, so 401 would lie.
// - Apply it globally (`app.layer(jwt(...))`), per route (`meta.layers`) or per group
//   (`group({ layers: [jwt(...)] }, routes)`); never by path prefix. Routes behind a global
//   layer opt out with `config: { auth: false }`.
import { ApiError, type Context, describeLayer, Extractor, type Layer, type LayerDoc, type Reply } from "../../index.js";
import { BEARER_ABSENT, BEARER_MALFORMED, parseBearer } from "./bearer.js";
import { type Chain, directLayer, isPromise, isQuotableText } from "../../plugin.js";
import { DEFAULT_MAX_TOKEN_LENGTH } from "../../jose/index.js";
import type { JwtPayload } from "../../jose/index.js";
import { JwtError } from "../../jose/index.js";
import { createJwtVerifier, type JwtVerifier, type JwtVerifierOptions, verifyJwtClaims } from "../../jose/index.js";
import { AUTH_PRINCIPAL_KEY, isPublicRoute, requirePrincipal, setAnonymousPrincipal, type AuthPrincipal } from "../../shared/principal.js";
import { BEARER_SCHEMES, BEARER_SECURITY_SCHEME, defaultBearerSchemes } from "../../shared/security-schemes.js";

export interface JwtLayerSettings {
  /** `realm` in the WWW-Authenticate challenge (default "api"). No quotes or backslashes. */
  realm?: string;
  /**
   * When false, a request without an Authorization header passes through anonymously
   * (`optionalAuthUser()` gives undefined, `authUser()` and guards answer 401). A token that is
   * present but invalid is still refused. Default true.
   */
  credentialsRequired?: boolean;
  /**
   * Security scheme names for the OpenAPI document (default ["bearerAuth"], whose scheme the
   * layer registers; a custom name's scheme is yours to register with `docs({ securitySchemes })`).
   */
  security?: readonly string[];
  /**
   * Where else the token may come from when the request has no Authorization header, e.g. a
   * WebSocket subprotocol (browsers cannot set headers on `new WebSocket(...)`). Return the bare
   * token or undefined; it is checked like a header's (token68, at most maxTokenLength).
   */
  extractToken?: (ctx: Context) => string | undefined;
}

/** Verifier options (algorithms, key / keys / jwksUrl, issuer, audience, ...) or a ready verifier. */
export type JwtLayerOptions = (JwtVerifierOptions | { verifier: JwtVerifier; maxTokenLength?: number }) & JwtLayerSettings;

/** Client-facing descriptions: fixed strings, never the verifier's detailed message. */
function describe(code: JwtError["code"]): { message: string; description: string } {
  switch (code) {
    case "expired":
      return { message: "Token expired", description: "The access token expired" };
    case "not_before":
      return { message: "Token not yet valid", description: "The access token is not valid yet" };
    default:
      return { message: "Invalid token", description: "The access token is invalid" };
  }
}

/** A token from `extractToken`, held to the same syntax as a bearer header's. */
function bearerFrom(token: string | undefined, maxLength: number): string | typeof BEARER_ABSENT | typeof BEARER_MALFORMED {
  if (token === undefined || token === "") return BEARER_ABSENT;
  return parseBearer(`Bearer ${token}`, maxLength);
}

/**
 * The bearer-token layer: verifies `Authorization: Bearer <token>` (options of createJwtVerifier,
 * or a ready `verifier`) and stores the claims for `authUser()` and the guards. A missing or
 * invalid token is 401 with a `WWW-Authenticate` challenge; unreachable JWKS keys, 503.
 *
 * @example
 * ```ts
 * app.layer(jwt({ algorithms: ["HS256"], key: secret, issuer: "todo-api" }));
 * route.get("/me", [authUser<{ name: string }>()], (user) => ({ sub: user.sub, name: user.name }));
 * route.get("/health", { config: { auth: false } }, [], () => "ok");
 * ```
 * @see docs/features/auth.md
 */
export function jwt(options: JwtLayerOptions): Layer {
  const verifier: JwtVerifier = "verifier" in options ? options.verifier : createJwtVerifier(options);
  const realm = options.realm ?? "api";
  if (!isQuotableText(realm) || realm === "") throw new TypeError(`jwt: realm must be printable ASCII without quotes or backslashes`);
  const required = options.credentialsRequired !== false;
  const maxLength = options.maxTokenLength ?? DEFAULT_MAX_TOKEN_LENGTH;
  const extractToken = options.extractToken;
  // Challenges are fixed per layer: computed once.
  const missing = `Bearer realm="${realm}"`;
  const invalidChallenge = (description: string) => `${missing}, error="invalid_token", error_description="${description}"`;
  const malformed = invalidChallenge("Malformed bearer credentials");

  /** The verified request goes on with its principal. */
  const admit = (ctx: Context, next: Chain, claims: JwtPayload): Reply | Promise<Reply> => {
    const principal: AuthPrincipal = { scheme: "bearer", claims, challenge: missing };
    ctx.locals[AUTH_PRINCIPAL_KEY] = principal;
    return next(ctx);
  };

  const reject = (err: unknown): never => {
    if (!(err instanceof JwtError)) throw err;
    if (err.code === "jwks_unavailable") {
      throw ApiError.serviceUnavailable("Token keys are unavailable", { detail: err.message, cause: err });
    }
    if (err.code === "invalid_key" || err.code === "invalid_config") {
      throw ApiError.internal("Internal server error", { detail: `jwt verifier: ${err.message}`, cause: err });
    }
    const { message, description } = describe(err.code);
    throw ApiError.unauthorized(message, {
      headers: { "www-authenticate": invalidChallenge(description) },
      detail: `${err.code}: ${err.message}`,
    });
  };

  // A direct layer: with keys at hand the token is verified without a promise, so behind a route
  // that answers synchronously an authenticated request makes none for its authentication.
  return describeLayer(directLayer(function jwtLayer(ctx: Context, next: Chain): Reply | Promise<Reply> {
    if (isPublicRoute(ctx)) {
      setAnonymousPrincipal(ctx, missing);
      return next(ctx);
    }
    const header = ctx.req.headers.authorization;
    const token = header === undefined && extractToken !== undefined ? bearerFrom(extractToken(ctx), maxLength) : parseBearer(header, maxLength);
    if (token === BEARER_ABSENT) {
      if (required) throw ApiError.unauthorized("Missing bearer token", { headers: { "www-authenticate": missing } });
      setAnonymousPrincipal(ctx, missing);
      return next(ctx);
    }
    if (token === BEARER_MALFORMED) {
      throw ApiError.unauthorized("Malformed bearer credentials", { headers: { "www-authenticate": malformed } });
    }
    let claims: JwtPayload | Promise<JwtPayload>;
    try {
      claims = verifyJwtClaims(verifier, token);
    } catch (err) {
      return reject(err);
    }
    if (isPromise(claims)) return claims.then((c) => admit(ctx, next, c), reject);
    return admit(ctx, next, claims);
  }), jwtLayerDoc(required, options.security, "jwksUrl" in options && options.jwksUrl !== undefined));
}

/** The OpenAPI security scheme that `authUser()` and the guards name "bearerAuth" (they register it themselves). */
export { BEARER_SECURITY_SCHEME };
const CHALLENGE_HEADER = { "www-authenticate": { description: "The Bearer challenge (RFC 6750): `error=\"invalid_token\"` when a token was sent", schema: { type: "string" } } };

/**
 * What the jwt() layer adds: a 401 with its challenge for a missing or invalid token (only an
 * invalid one when credentials are optional), a 503 while JWKS keys cannot be fetched, and the
 * bearer requirement (none in optional mode: anonymous callers pass). `config: { auth: false }`
 * turns it off for a route.
 */
function jwtLayerDoc(required: boolean, security: readonly string[] | undefined, remoteKeys: boolean): LayerDoc {
  return {
    optOut: "auth",
    responses: {
      401: {
        description: required
          ? "The bearer token is missing, malformed, expired or not signed by a trusted key"
          : "The bearer token sent is malformed, expired or not signed by a trusted key",
        headers: CHALLENGE_HEADER,
      },
      ...(remoteKeys ? { 503: { description: "The token signing keys (JWKS) cannot be fetched right now" } } : {}),
    },
    ...(required ? { security: security ?? ["bearerAuth"] } : {}),
    securitySchemes: security === undefined ? BEARER_SCHEMES : {},
  };
}


export interface AuthUserOptions {
  /** Security scheme names for the OpenAPI document (default ["bearerAuth"]). */
  security?: readonly string[];
}

/**
 * The verified claims of the caller, typed by `T`: `authUser<{ role: string }>()`.
 * 401 when the request is anonymous; 500 when no authentication layer covers the route.
 *
 * @example
 * ```ts
 * route.get("/me", [authUser<{ name: string }>()], (user) => ({ sub: user.sub, name: user.name }));
 * ```
 * @see docs/features/auth.md
 */
export function authUser<T extends object = Record<never, never>>(options: AuthUserOptions = {}): Extractor<JwtPayload & T> {
  return new Extractor<JwtPayload & T>(
    "authUser",
    (ctx) => requirePrincipal(ctx, "authUser()").claims as JwtPayload & T,
    false,
    { security: options.security ?? ["bearerAuth"], errorStatuses: [401], ...defaultBearerSchemes(options.security) },
  );
}

/** Like authUser(), but undefined for an anonymous request (a layer with credentialsRequired: false). */
export function optionalAuthUser<T extends object = Record<never, never>>(options: AuthUserOptions = {}): Extractor<(JwtPayload & T) | undefined> {
  return new Extractor<(JwtPayload & T) | undefined>(
    "optionalAuthUser",
    (ctx) => {
      const v = ctx.locals[AUTH_PRINCIPAL_KEY];
      if (typeof v === "string") return undefined;
      return requirePrincipal(ctx, "optionalAuthUser()").claims as JwtPayload & T;
    },
    false,
    { security: options.security ?? ["bearerAuth"], ...defaultBearerSchemes(options.security) },
  );
}
