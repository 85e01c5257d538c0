// keel/auth: the OAuth2 authorization-code client with PKCE.
export {
  oauth2Client,
  type OAuth2Client,
  type OAuth2ClientOptions,
  type OAuth2IdTokenOptions,
  type OAuth2Result,
  type AuthorizationRequest,
  type AuthorizationRequestOptions,
} from "./oauth2.js";
export type { OAuth2TokenResponse, TokenEndpointAuth } from "./oauth2-token.js";
export { createPkcePair, pkceChallenge, type PkcePair } from "./oauth2-pkce.js";
