// The OpenAPI security scheme of bearer tokens, shared by the jwt layer, authUser() and the guards
// (which name it "bearerAuth" by default and register it themselves).
export const BEARER_SECURITY_SCHEME: Readonly<Record<string, string>> = Object.freeze({ type: "http", scheme: "bearer", bearerFormat: "JWT" });

/** `{ bearerAuth }`, for `ExtractorDoc.securitySchemes` and layer descriptions. */
export const BEARER_SCHEMES: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.freeze({ bearerAuth: BEARER_SECURITY_SCHEME });

/** The scheme behind the default security name; a custom name is the application's to register. */
export function defaultBearerSchemes(security: readonly string[] | undefined): { securitySchemes?: typeof BEARER_SCHEMES } {
  return security === undefined ? { securitySchemes: BEARER_SCHEMES } : {};
}
