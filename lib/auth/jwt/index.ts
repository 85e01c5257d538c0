// keel/auth: the jwt() layer and the authUser() extractors (token verification is keel/jose).
export { jwt, authUser, optionalAuthUser, BEARER_SECURITY_SCHEME, type JwtLayerOptions, type JwtLayerSettings, type AuthUserOptions } from "./jwt-layer.js";
